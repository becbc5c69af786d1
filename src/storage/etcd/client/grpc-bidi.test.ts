import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { connect, createServer, type Socket } from "node:net";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { EtcdCluster } from "../../../testing/etcd-cluster.js";
import { loadEtcdProto } from "../../../testing/etcd-rpc-proto.js";
import { waitFor } from "../../../testing/wait-for.js";
import { EtcdClient } from "./etcd-client.js";
import type { EtcdRequestError } from "./kv-calls.js";

// etcd's own .proto files (proto/, by reflection) encode the requests and decode the answers here.
const root = loadEtcdProto({ keepCase: false });
const WatchRequest = root.lookupType("etcdserverpb.WatchRequest");
const WatchResponse = root.lookupType("etcdserverpb.WatchResponse");

interface Seen {
  created?: boolean;
  events?: { kv: { key: string; value: string } }[];
}

function watchOf(kv: EtcdClient, key: string) {
  const messages: Seen[] = [];
  const ended: EtcdRequestError[] = [];
  const opened = kv.openStream("/etcdserverpb.Watch/Watch", {
    onMessage: (m) =>
      messages.push(WatchResponse.toObject(WatchResponse.decode(m), { bytes: String, longs: Number }) as Seen),
    onEnd: (err) => ended.push(err),
  });
  const create = WatchRequest.fromObject({ createRequest: { key: Buffer.from(key).toString("base64") } });
  return { messages, ended, opened, create: WatchRequest.encode(create).finish() };
}

/** Waits until `check` holds (the shared waitFor: a hang guard, not a timing assertion). */
async function until(check: () => boolean, what: string): Promise<void> {
  await waitFor(
    what,
    async () => check(),
    (ok) => ok,
  );
}

describe("a gRPC bidirectional stream on the etcd client's HTTP/2 session", () => {
  let etcd: EtcdCluster;
  let kv: EtcdClient;
  before(async () => {
    etcd = await EtcdCluster.start(1);
    kv = new EtcdClient({ endpoints: etcd.endpoints });
  });
  after(async () => {
    await kv?.close();
    await etcd?.stop();
  });

  test("carries etcd's Watch: requests out, whole messages in, even one far larger than an HTTP/2 frame", async () => {
    const key = `/bidi/${randomUUID()}`;
    const w = watchOf(kv, key);
    const stream = await w.opened;
    stream.write(w.create);
    await until(() => w.messages.some((m) => m.created), "the watch is created");
    const big = "x".repeat(300_000); // many 16 KiB DATA frames
    for (const value of ["small", big]) {
      await kv.txn({ compare: [], success: [{ put: { key, value } }], failure: [] });
    }
    await until(() => w.messages.flatMap((m) => m.events ?? []).length === 2, "both events arrive");
    const values = w.messages.flatMap((m) => m.events ?? []).map((e) => Buffer.from(e.kv.value, "base64").toString());
    assert.deepEqual(values, ["small", big]);
    stream.cancel();
    await sleep(50);
    assert.deepEqual(w.ended, [], "a cancelled stream reports no end");
  });

  test("a stream etcd refuses ends with etcd's status, and the session keeps serving calls", async () => {
    const ended: EtcdRequestError[] = [];
    const stream = await kv.openStream("/etcdserverpb.Watch/NoSuchMethod", {
      onMessage: () => assert.fail("no message expected"),
      onEnd: (err) => ended.push(err),
    });
    stream.write(new Uint8Array(0));
    await until(() => ended.length === 1, "the stream ends");
    assert.equal(ended[0]!.code, 12, `UNIMPLEMENTED, got ${ended[0]!.code}: ${ended[0]!.message}`);
    assert.equal((await kv.range({ key: "/", count_only: true })).more, false);
  });

  test("a connection that stops carrying anything is found by keepalive pings and its stream ends", async () => {
    const [host, port] = etcd.endpoints[0]!.split(":") as [string, string];
    const sockets: Socket[] = [];
    const proxy = createServer((client) => {
      const upstream = connect(Number(port), host);
      client.pipe(upstream).pipe(client);
      sockets.push(client, upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    const through = new EtcdClient({
      endpoints: [`127.0.0.1:${(proxy.address() as { port: number }).port}`],
      keepaliveMs: 400,
    });
    try {
      const w = watchOf(through, `/bidi/${randomUUID()}`);
      (await w.opened).write(w.create);
      await until(() => w.messages.some((m) => m.created), "the watch is created");
      // Frozen, not closed: what a partition looks like to the client.
      for (const s of sockets) {
        s.unpipe();
        s.pause();
      }
      await until(() => w.ended.length === 1, "the stream ends");
      assert.equal(w.ended[0]!.code, 14);
      assert.match(w.ended[0]!.message, /no answer to a ping/);
    } finally {
      await through.close();
      for (const s of sockets) s.destroy();
      proxy.close();
    }
  });

  test("closing the client cuts a stream left open", async () => {
    const other = new EtcdClient({ endpoints: etcd.endpoints });
    const w = watchOf(other, `/bidi/${randomUUID()}`);
    (await w.opened).write(w.create);
    await until(() => w.messages.some((m) => m.created), "the watch is created");
    await other.close();
    await assert.rejects(other.openStream("/etcdserverpb.Watch/Watch", { onMessage() {}, onEnd() {} }), /closed/);
  });
});
