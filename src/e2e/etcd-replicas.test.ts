/**
 * Two server replicas on one etcd: shared data, watches across replicas, one bootstrap, and the
 * controllers on exactly one replica, moving to the other when the leader goes away.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { Controller } from "../controllers/controller-manager.js";
import { EtcdCluster } from "../testing/etcd-cluster.js";
import { spawnReplica } from "../testing/replica-child.js";
import { GROUP_PATH, startReplica, type TestServer } from "../testing/test-server.js";
import { WatchClient } from "../testing/watch-client.js";

const BOOTSTRAP_KEY = "replica-test-admin-key-0123456789abcdefghijkl";
/** Polling bound for leadership changes (hang guard; the test asserts on order, not on time). */
const POLLS = 400;
const POLL_MS = 50;

/** A controller that only records whether it runs. */
class FlagController implements Controller {
  readonly name = "test-flag";
  running = false;
  starts = 0;
  start(): void {
    this.running = true;
    this.starts++;
  }
  stop(): void {
    this.running = false;
  }
}

async function waitFor(what: string, check: () => boolean): Promise<void> {
  for (let i = 0; i < POLLS; i++) {
    if (check()) return;
    await sleep(POLL_MS);
  }
  assert.fail(`timed out waiting for ${what}`);
}

const team = (name: string) => ({
  apiVersion: "management.platform/v1",
  kind: "Team",
  metadata: { name },
  spec: { displayName: name },
});

describe("replicas on one etcd", { timeout: 120_000 }, () => {
  let etcd: EtcdCluster;
  before(async () => {
    etcd = await EtcdCluster.start(1);
  });
  after(async () => {
    await etcd?.stop();
  });

  const start = (): Promise<TestServer> => startReplica(etcd.url, BOOTSTRAP_KEY);

  test("both start on an empty etcd, bootstrap once, and see each other's writes in watches", async () => {
    // Started together: both find the store empty and race to bootstrap.
    const [a, b] = await Promise.all([start(), start()]);
    try {
      const keys = await a.request("GET", `${GROUP_PATH}/ownedaccesskeys`);
      assert.equal(keys.status, 200);
      assert.equal((keys.json as { items: unknown[] }).items.length, 1);
      assert.equal((await b.request("GET", `${GROUP_PATH}/users/admin`)).status, 200);

      const list = await b.request("GET", `${GROUP_PATH}/teams`);
      const rv = (list.json as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
      const watch = new WatchClient(b, `${GROUP_PATH}/teams?watch=true&resourceVersion=${rv}`, b.adminKey);
      try {
        const created = await a.request("POST", `${GROUP_PATH}/teams`, { body: team("written-on-a") });
        assert.equal(created.status, 201, created.text);
        await watch.until((evs) => evs.some((e) => e.object.metadata.name === "written-on-a"));
        const ev = watch.events.find((e) => e.object.metadata.name === "written-on-a")!;
        assert.equal(ev.type, "ADDED");
        assert.equal(
          ev.object.metadata.resourceVersion,
          (created.json as { metadata: { resourceVersion: string } }).metadata.resourceVersion,
        );
        // And a read on b right after the write on a sees it (linearizable reads).
        assert.equal((await b.request("GET", `${GROUP_PATH}/teams/written-on-a`)).status, 200);
      } finally {
        watch.close();
      }
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  test("controllers run on exactly one replica and move when the leader stops", async () => {
    const servers = [await start(), await start()];
    const flags = [new FlagController(), new FlagController()];
    for (let i = 0; i < servers.length; i++) servers[i]!.controllers.register(flags[i]!);
    const stopped = new Set<number>();
    try {
      await waitFor("a leader", () => flags.filter((f) => f.running).length === 1);
      const leader = flags.findIndex((f) => f.running);
      const other = 1 - leader;
      assert.ok(servers[leader]!.controllers.isLeader);
      assert.equal(servers[other]!.controllers.isLeader, false);
      // The server's own background work runs on the leader only.
      for (const name of ["garbage-collector", "cluster-health", "user-teams"]) {
        assert.ok(servers[leader]!.controllers.runningControllers().includes(name), name);
      }
      assert.deepEqual(servers[other]!.controllers.runningControllers(), []);
      // One shared informer per kind: the follower runs only those its requests need (identity,
      // authorizer, gateway); the leader's controllers added one for every stored kind.
      const informed = (i: number) =>
        servers[i]!.informers.resources()
          .filter((r) => r.synced)
          .map((r) => r.resource)
          .sort();
      assert.deepEqual(informed(other), ["clusters", "ownedaccesskeys", "projects", "sharedsecrets", "teams", "users"]);
      const stored = servers[leader]!.registry.resourceTypes()
        .filter((rt) => !rt.virtualCreate)
        .map((rt) => rt.plural)
        .sort();
      assert.deepEqual(informed(leader), stored);
      await servers[leader]!.stop();
      stopped.add(leader);
      assert.equal(flags[leader]!.running, false);
      await waitFor("the other replica to take over", () => flags[other]!.running);
      await waitFor("the new leader's controllers to start", () =>
        servers[other]!.controllers.runningControllers().includes("garbage-collector"),
      );
      assert.deepEqual(informed(other), stored);
      // Clients of the remaining replica are unaffected.
      assert.equal(
        (await servers[other]!.request("POST", `${GROUP_PATH}/teams`, { body: team("after-stop") })).status,
        201,
      );
    } finally {
      for (let i = 0; i < servers.length; i++) if (!stopped.has(i)) await servers[i]!.stop();
    }
  });

  test("a killed leader replica's controllers move to another replica", async () => {
    // Only the child runs when it is started first and alone; then b joins as a follower.
    const child = spawnReplica(etcd.url, { bootstrapKey: BOOTSTRAP_KEY });
    let b: TestServer | undefined;
    try {
      await child.ready;
      await waitFor("the child to lead", () => child.running);
      b = await start();
      const flag = new FlagController();
      b.controllers.register(flag);
      await sleep(500); // b gets a few chances to (wrongly) take over; it must not
      assert.equal(flag.running, false);
      child.kill();
      await child.exited;
      await waitFor("b to take over from the killed leader", () => flag.running);
      assert.equal(flag.starts, 1);
    } finally {
      child.kill();
      await b?.stop();
    }
  });
});
