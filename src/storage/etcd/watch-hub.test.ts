/**
 * The etcd watch hub: one gRPC watch per storage however many watches are open (counted by etcd
 * itself), replay of recent events for watches that start behind it, and a stream of its own for
 * a watch from before what it keeps.
 */
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { EtcdCluster } from "../../testing/etcd-cluster.js";
import { startTestServer } from "../../testing/test-server.js";
import { waitFor } from "../../testing/wait-for.js";
import type { WatchEvent } from "../interface.js";
import { EtcdStorage } from "./etcd-storage.js";
import { parseEtcdUrl } from "./etcd-url.js";
import { EtcdWatchHub } from "./watch-hub.js";

let cluster: Promise<EtcdCluster> | undefined;
const etcd = (): Promise<EtcdCluster> => {
  cluster ??= EtcdCluster.start(1);
  return cluster;
};
after(async () => {
  if (cluster) await (await cluster).stop();
});

/** etcd's own count of open watchers (its metrics endpoint). */
async function etcdWatchers(c: EtcdCluster): Promise<number> {
  const text = await (await fetch(`http://${c.endpoints[0]}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith("etcd_debugging_mvcc_watcher_total "));
  assert.ok(line, "etcd reports etcd_debugging_mvcc_watcher_total");
  return Number(line.split(" ")[1]);
}

/** Waits until `check` holds (the shared waitFor: a hang guard, not a timing assertion). */
async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  await waitFor(
    what,
    async () => await check(),
    (ok) => ok,
  );
}

const recorder = () => {
  const seen: WatchEvent[] = [];
  return {
    seen,
    callbacks: { onEvents: (e: readonly WatchEvent[]) => seen.push(...e), onError: (e: Error) => assert.fail(e) },
  };
};

describe("etcd watch hub", () => {
  test("twenty watches on one storage are one etcd watcher, each seeing only its prefix", async () => {
    const c = await etcd();
    const before = await etcdWatchers(c);
    const storage = new EtcdStorage(parseEtcdUrl(c.url));
    try {
      const root = `/hub-${Date.now()}/`;
      const start = await storage.currentRevision();
      const recorders = Array.from({ length: 20 }, (_, i) => {
        const r = recorder();
        storage.watch(`${root}${i}/`, { afterRevision: start }, r.callbacks);
        return r;
      });
      await until("the hub's stream", async () => (await etcdWatchers(c)) === before + 1);
      for (let i = 0; i < 20; i++) await storage.create(`${root}${i}/k`, Buffer.from(String(i)));
      await until("every event", () => recorders.every((r) => r.seen.length === 1));
      for (const [i, r] of recorders.entries()) assert.equal(r.seen[0]!.kv.key, `${root}${i}/k`);
      assert.equal(await etcdWatchers(c), before + 1);
      assert.equal(storage.hub.streamsOpened, 1);
    } finally {
      await storage.close();
    }
    await until("the stream closed", async () => (await etcdWatchers(c)) === before);
  });

  test("a watch that starts behind the hub is replayed from its ring; one from before the ring gets its own stream", async () => {
    const c = await etcd();
    const storage = new EtcdStorage(parseEtcdUrl(c.url));
    const hub = new EtcdWatchHub(storage.kv, 16);
    try {
      const p = `/ring-${Date.now()}/`;
      const start = await storage.currentRevision();
      const live = recorder();
      hub.watch(p, start, live.callbacks);
      const written: number[] = [];
      for (let i = 0; i < 40; i++) written.push(await storage.create(`${p}${i}`, Buffer.from(String(i))));
      await until("the live watch", () => live.seen.length === 40);

      // 10 events back: still in the ring of 16.
      const recent = recorder();
      hub.watch(p, written[29]!, recent.callbacks);
      // From the start: older than the ring.
      const old = recorder();
      hub.watch(p, start, old.callbacks);
      assert.equal(hub.streamsOpened, 2, "only the old watch needed a stream of its own");
      written.push(await storage.create(`${p}last`, Buffer.from("x")));
      await until("both catch up", () => recent.seen.length === 11 && old.seen.length === 41);
      assert.deepEqual(
        recent.seen.map((e) => e.revision),
        written.slice(30),
      );
      assert.deepEqual(
        old.seen.map((e) => e.revision),
        written,
      );
      assert.deepEqual(
        live.seen.map((e) => e.revision),
        written,
      );
    } finally {
      hub.close();
      await storage.close();
    }
  });

  test("a whole server on etcd (caches, informers, controllers) opens one etcd watcher", async () => {
    const c = await etcd();
    // The other tests of this file closed their storages: etcd's gauge settles at zero.
    await until("no watchers", async () => (await etcdWatchers(c)) === 0);
    const before = 0;
    const server = await startTestServer({ storage: c.url });
    try {
      // Touch every resource so its watch cache starts.
      for (const plural of ["teams", "users", "clusters", "ownedaccesskeys", "projects"]) {
        const res = await server.request("GET", `/kubernetes/management/apis/management.platform/v1/${plural}`);
        assert.equal(res.status, 200, plural);
      }
      await until("the server's watch", async () => (await etcdWatchers(c)) === before + 1);
      await sleep(200);
      assert.equal(await etcdWatchers(c), before + 1);
    } finally {
      await server.close();
    }
  });
});
