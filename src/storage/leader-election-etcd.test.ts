/**
 * Leader election on a real etcd, through the platform's etcd client: one leader at a time, the
 * other takes over when it stops, and a leader whose lease etcd dropped steps down.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { EtcdCluster } from "../testing/etcd-cluster.js";
import { EtcdClient, type LeaseId } from "./etcd/client/index.js";
import { type ElectionEtcd, EtcdLeaderElector } from "./leader-election.js";

/** Leadership changes of one elector, as they happen. */
function recorder(elector: EtcdLeaderElector) {
  const changes: string[] = [];
  elector.start({ onElected: () => changes.push("elected"), onLost: () => changes.push("lost") });
  return changes;
}

/** Polls until `ok()` (the elector's retry period is short): fails the test after `ms`. */
async function until(ok: () => boolean, what: string, ms = 20_000): Promise<void> {
  for (const end = Date.now() + ms; !ok(); await sleep(50)) {
    if (Date.now() > end) assert.fail(`not within ${ms} ms: ${what}`);
  }
}

describe("etcd leader election", () => {
  let etcd: EtcdCluster;
  const clients: EtcdClient[] = [];
  const client = () => {
    const c = new EtcdClient({ endpoints: etcd.endpoints });
    clients.push(c);
    return c;
  };
  /** The lease the key is bound to (none: undefined). */
  const boundLease = async (key: string): Promise<LeaseId | undefined> => {
    const res = await client().txnMessage({ success: [{ request_range: { key: Buffer.from(key) } }] });
    const lease = res.responses[0]?.response_range?.kvs?.[0]?.lease;
    return typeof lease === "object" && lease !== null ? lease : undefined;
  };
  before(async () => {
    etcd = await EtcdCluster.start(1);
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await etcd?.stop();
  });

  test("one of two replicas leads; when it stops, the other takes over", async () => {
    const key = `/leader/${randomUUID()}`;
    const a = new EtcdLeaderElector(client(), { key, ttlSeconds: 5, retryMs: 50, identity: "a" });
    const b = new EtcdLeaderElector(client(), { key, ttlSeconds: 5, retryMs: 50, identity: "b" });
    const aChanges = recorder(a);
    const bChanges = recorder(b);
    await until(() => a.isLeader || b.isLeader, "a leader");
    // Several rounds of both: the follower stays a follower.
    await sleep(300);
    assert.notEqual(a.isLeader, b.isLeader, "exactly one leader");
    const [leader, follower] = a.isLeader ? [a, b] : [b, a];
    const held = await client().range({ key });
    assert.equal(held.kvs[0]?.value.toString(), leader.identity, "the leader key names the leader");

    await leader.stop();
    assert.equal(leader.isLeader, false);
    await until(() => follower.isLeader, "the follower elected after the leader stopped");
    await follower.stop();
    assert.equal((await client().range({ key })).kvs.length, 0, "stopping revoked the lease, and so the key");
    const elections = [...aChanges, ...bChanges].filter((c) => c === "elected");
    assert.equal(elections.length, 2, "one election each, in turn");
    assert.deepEqual(aChanges.at(-1), "lost");
    assert.deepEqual(bChanges.at(-1), "lost");
  });

  test("a leader whose lease etcd revoked steps down, then campaigns with a new lease", async () => {
    const key = `/leader/${randomUUID()}`;
    const elector = new EtcdLeaderElector(client(), { key, ttlSeconds: 3, retryMs: 50, identity: "only" });
    const changes = recorder(elector);
    try {
      await until(() => elector.isLeader, "elected");
      const bound = await boundLease(key);
      assert.ok(bound, "the key is bound to a lease");
      // As when the lease expired while the leader could not reach etcd.
      await client().leaseRevoke(bound);
      await until(() => changes.includes("lost"), "stepped down");
      await until(() => elector.isLeader, "elected again");
      assert.notEqual(String(await boundLease(key)), String(bound), "on a new lease");
    } finally {
      await elector.stop();
    }
  });
});

describe("etcd leader election when etcd stops answering", () => {
  test("the leader steps down once its lease may have expired, while its renewal still waits", async () => {
    const granted = { id: { toString: () => "7" } as unknown as LeaseId, ttlSeconds: 1 };
    let renewals = 0;
    const hangingEtcd: ElectionEtcd = {
      leaseGrant: async () => granted,
      // A member that took the request and never answers (partitioned).
      leaseKeepAlive: () => {
        renewals++;
        return new Promise<number>(() => {});
      },
      leaseRevoke: async () => {},
      createIfAbsent: async () => ({ created: true }),
    };
    const elector = new EtcdLeaderElector(hangingEtcd, { ttlSeconds: 1, retryMs: 50 });
    const changes = recorder(elector);
    await until(() => elector.isLeader, "elected");
    await until(() => renewals > 0, "a renewal sent");
    await until(() => changes.includes("lost"), "stepped down without an answer");
    assert.equal(elector.isLeader, false);
  });
});
