/**
 * Leases, Put and whole Txn messages on the etcd client (the calls leader election makes), against
 * a real etcd: each checked by what etcd then does with the keys, not by the client's own answer.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { EtcdCluster } from "../../../testing/etcd-cluster.js";
import { EtcdClient } from "./etcd-client.js";

describe("etcd leases on the etcd client", () => {
  let etcd: EtcdCluster;
  let client: EtcdClient;
  before(async () => {
    etcd = await EtcdCluster.start(1);
    client = new EtcdClient({ endpoints: etcd.endpoints });
  });
  after(async () => {
    await client?.close();
    await etcd?.stop();
  });

  test("a key put under a lease lives while the lease is renewed and goes when it is revoked", async () => {
    const key = Buffer.from(`/leases/${randomUUID()}`);
    const lease = await client.leaseGrant(30);
    assert.ok(lease.ttlSeconds >= 30, `TTL ${lease.ttlSeconds}`);
    // etcd's lease IDs use the whole int64: the ID must survive the trip (no rounding to a double).
    assert.match(String(lease.id), /^[1-9]\d*$/);

    const put = await client.txnMessage({
      compare: [{ key, target: 1 /* CREATE */, result: 0 /* EQUAL */, create_revision: 0 }],
      success: [{ request_put: { key, value: Buffer.from("holder"), lease: lease.id } }],
      failure: [{ request_range: { key } }],
    });
    assert.equal(put.succeeded, true);
    const again = await client.txnMessage({
      compare: [{ key, target: 1, result: 0, create_revision: 0 }],
      success: [{ request_put: { key, value: Buffer.from("other") } }],
      failure: [{ request_range: { key } }],
    });
    assert.equal(again.succeeded, false, "the key exists: the create-if-absent fails");
    const holder = again.responses[0]?.response_range?.kvs?.[0];
    assert.equal(Buffer.from(holder?.value ?? []).toString(), "holder");
    assert.equal(String(holder?.lease), String(lease.id), "etcd reports the lease the key is bound to");

    const ttl = await client.leaseKeepAlive(lease.id);
    assert.ok(ttl > 0 && ttl <= lease.ttlSeconds, `renewed TTL ${ttl}`);

    await client.leaseRevoke(lease.id);
    assert.equal((await client.range({ key })).kvs.length, 0, "revoking the lease deleted its key");
    assert.equal(await client.leaseKeepAlive(lease.id), 0, "a revoked lease renews to TTL 0");
  });

  test("a put under an unknown lease is refused with etcd's error, not taken", async () => {
    const key = Buffer.from(`/leases/${randomUUID()}`);
    const lease = await client.leaseGrant(30);
    await client.leaseRevoke(lease.id);
    await assert.rejects(
      client.txnMessage({ compare: [], success: [{ request_put: { key, value: Buffer.from("x"), lease: lease.id } }] }),
      /lease not found/,
    );
    assert.equal((await client.range({ key })).kvs.length, 0);
  });

  test("createIfAbsent creates once, then names the lease the key is bound to", async () => {
    const key = Buffer.from(`/leases/${randomUUID()}`);
    const [mine, theirs] = [await client.leaseGrant(30), await client.leaseGrant(30)];
    assert.deepEqual(await client.createIfAbsent(key, Buffer.from("me"), mine.id), { created: true });
    const second = await client.createIfAbsent(key, Buffer.from("them"), theirs.id);
    assert.equal(second.created, false);
    assert.equal(String(second.holderLease), String(mine.id));
    assert.equal((await client.range({ key })).kvs[0]?.value.toString(), "me", "the first value stays");
    await client.leaseRevoke(mine.id);
    await client.leaseRevoke(theirs.id);
  });

  test("Put answers the store's revision after it", async () => {
    const key = `/leases/${randomUUID()}`;
    const revision = await client.put(key, Buffer.from("v"));
    const read = await client.range({ key });
    assert.equal(read.kvs[0]?.modRevision, revision);
    assert.equal(read.kvs[0]?.value.toString(), "v");
  });
});
