/**
 * Fault test: a three-member etcd, steady writes through two replicas, and the etcd leader
 * killed in the middle. Writes resume after the election, every acknowledged write is there
 * afterwards, and each replica's watch sees every change exactly once, in revision order.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { WatchEvent } from "../storage/interface.js";
import { EtcdCluster } from "../testing/etcd-cluster.js";
import { GROUP_PATH, startReplica, type TestServer } from "../testing/test-server.js";

const BOOTSTRAP_KEY = "fault-test-admin-key-0123456789abcdefghijklmn";
const WRITES_BEFORE = 30;
const WRITES_AFTER = 30;
/** Each write is retried this often at most (bounded; failures during the election are expected). */
const MAX_ATTEMPTS = 200;
const RETRY_MS = 50;
const TEAMS_PREFIX = "/registry/management.platform/teams/";

let etcd: EtcdCluster;
before(async () => {
  etcd = await EtcdCluster.start(3);
});
after(async () => {
  await etcd?.stop();
});

test("killing the etcd leader under writes through two replicas loses and repeats nothing", {
  timeout: 180_000,
}, async () => {
  const replicas: TestServer[] = [];
  for (let i = 0; i < 2; i++) {
    replicas.push(await startReplica(etcd.url, BOOTSTRAP_KEY));
  }
  const start = await replicas[0]!.storage.currentRevision();
  // One raw watch per replica: the stream the replica's own watch clients are served from.
  const seen = replicas.map(() => [] as WatchEvent[]);
  const watchers = replicas.map((r, i) =>
    r.storage.watch(
      TEAMS_PREFIX,
      { afterRevision: start },
      {
        onEvents: (events) => seen[i]!.push(...events),
        onError: (err) => assert.fail(`watch ${i} failed: ${err.message}`),
      },
    ),
  );
  const acknowledged = new Map<string, string>(); // name → resourceVersion
  const maybe = new Set<string>(); // answered with an error, possibly applied anyway
  let failures = 0;

  const write = async (n: number): Promise<void> => {
    const name = `t-${n}`;
    const via = replicas[n % 2]!;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const res = await via
        .request("POST", `${GROUP_PATH}/teams`, {
          body: { apiVersion: "management.platform/v1", kind: "Team", metadata: { name }, spec: { displayName: name } },
        })
        .catch(() => undefined);
      if (res?.status === 201) {
        acknowledged.set(name, (res.json as { metadata: { resourceVersion: string } }).metadata.resourceVersion);
        return;
      }
      // An earlier attempt may have committed although its answer was lost.
      if (res?.status === 409 && attempt > 0) {
        maybe.add(name);
        return;
      }
      assert.ok(res === undefined || res.status >= 500, `unexpected answer ${res?.status}: ${res?.text}`);
      failures++;
      await sleep(RETRY_MS);
    }
    assert.fail(`write ${name} never succeeded`);
  };

  try {
    // Two writers in parallel, one per replica.
    const writer = async (from: number, to: number) => {
      for (let n = from; n < to; n += 2) await write(n);
    };
    await Promise.all([writer(0, WRITES_BEFORE), writer(1, WRITES_BEFORE)]);
    const leader = await etcd.leader();
    const writing = Promise.all([
      writer(WRITES_BEFORE, WRITES_BEFORE + WRITES_AFTER),
      writer(WRITES_BEFORE + 1, WRITES_BEFORE + WRITES_AFTER),
    ]);
    await etcd.kill(leader);
    // Writes continued after the leader was gone (otherwise the test proved nothing about recovery).
    const doneAtKill = acknowledged.size + maybe.size;
    assert.ok(doneAtKill < WRITES_BEFORE + WRITES_AFTER, "every write finished before the kill");
    await writing;
    assert.equal(acknowledged.size + maybe.size, WRITES_BEFORE + WRITES_AFTER);

    // Every acknowledged write is there, at the revision it was acknowledged with or later.
    const list = await replicas[1]!.request("GET", `${GROUP_PATH}/teams`);
    assert.equal(list.status, 200, list.text);
    const items = (list.json as { items: { metadata: { name: string; resourceVersion: string } }[] }).items;
    const present = new Map(items.map((t) => [t.metadata.name, t.metadata.resourceVersion]));
    for (const [name, rv] of acknowledged)
      assert.equal(present.get(name), rv, `acknowledged ${name} missing or changed`);

    // Each replica's watch: every creation exactly once, strictly increasing revisions, and
    // the same sequence on both replicas.
    for (let i = 0; i < replicas.length; i++) {
      const events = seen[i]!;
      for (let polls = 0; polls < 400 && !(events.at(-1) && events.at(-1)!.revision >= maxRevision(present)); polls++) {
        await sleep(RETRY_MS);
      }
      const revisions = events.map((e) => e.revision);
      for (let k = 1; k < revisions.length; k++) {
        assert.ok(revisions[k]! > revisions[k - 1]!, `replica ${i}: revisions not strictly increasing at ${k}`);
      }
      const created = events.filter((e) => e.type === "put" && e.kv.createRevision === e.kv.modRevision);
      const names = created.map((e) => e.kv.key.slice(TEAMS_PREFIX.length));
      assert.equal(new Set(names).size, names.length, `replica ${i}: repeated events`);
      assert.deepEqual(new Set(names), new Set(present.keys()), `replica ${i}: missed events`);
    }
    assert.deepEqual(
      seen[0]!.map((e) => e.revision),
      seen[1]!.map((e) => e.revision),
    );
    process.stderr.write(`fault test: ${failures} failed attempts during the etcd election\n`);
  } finally {
    for (const w of watchers) w.close();
    for (const r of replicas) await r.stop().catch(() => undefined);
  }
});

function maxRevision(present: Map<string, string>): number {
  return Math.max(...[...present.values()].map(Number));
}
