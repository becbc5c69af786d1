import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { EtcdCluster } from "../../testing/etcd-cluster.js";
import { runStorageSuite } from "../../testing/storage-suite.js";
import { waitFor } from "../../testing/wait-for.js";
import { openStorage } from "../factory.js";
import { EtcdClient } from "./client/index.js";
import { EtcdStorage } from "./etcd-storage.js";
import { parseEtcdUrl } from "./etcd-url.js";

// One single-member etcd for the whole file, started on first use.
let cluster: Promise<EtcdCluster> | undefined;
const etcd = (): Promise<EtcdCluster> => {
  cluster ??= EtcdCluster.start(1);
  return cluster;
};
after(async () => {
  if (cluster) await (await cluster).stop();
});

runStorageSuite("etcd (1 member)", async () => {
  const c = await etcd();
  return { storage: await openStorage(c.url), cleanup: async () => {} };
});

/** Bytes etcd has received from and sent to its gRPC clients so far (its own metrics). */
async function etcdGrpcBytes(c: EtcdCluster): Promise<{ received: number; sent: number }> {
  const text = await (await fetch(`http://${c.endpoints[0]}/metrics`)).text();
  const counter = (name: string) => {
    const line = text.split("\n").find((l) => l.startsWith(`${name} `));
    assert.ok(line, `etcd reports ${name}`);
    return Number(line.split(" ")[1]);
  };
  return {
    received: counter("etcd_network_client_grpc_received_bytes_total"),
    sent: counter("etcd_network_client_grpc_sent_bytes_total"),
  };
}

describe("etcd storage", () => {
  test("a create sends etcd its key twice (the absence compare and the put), with no read for a failure", async () => {
    const c = await etcd();
    const storage = new EtcdStorage(parseEtcdUrl(c.url));
    try {
      // A long key makes each copy of it in the transaction stand out from the framing.
      const key = `/lone-create/${Date.now()}/${"k".repeat(8192)}`;
      const before = await etcdGrpcBytes(c);
      await storage.create(key, Buffer.from("v"));
      const sent = (await etcdGrpcBytes(c)).received - before.received;
      assert.ok(sent > 2 * key.length && sent < 3 * key.length, `${sent} bytes for a ${key.length}-byte key`);
      await assert.rejects(storage.create(key, Buffer.from("w")), { code: "KeyExists", key });
    } finally {
      await storage.close();
    }
  });

  test("a refused write names its failing op without etcd sending back a value", async () => {
    const c = await etcd();
    const storage = new EtcdStorage(parseEtcdUrl(c.url));
    try {
      const p = `/refused/${Date.now()}/`;
      const value = Buffer.alloc(256 * 1024, "x");
      const revision = await storage.create(`${p}big`, value);
      const before = await etcdGrpcBytes(c);
      await assert.rejects(storage.create(`${p}big`, value), { code: "KeyExists", key: `${p}big` });
      await assert.rejects(storage.update(`${p}big`, value, revision + 1), { code: "Conflict", key: `${p}big` });
      await assert.rejects(storage.delete(`${p}big`, revision + 1), { code: "Conflict", key: `${p}big` });
      await assert.rejects(
        storage.txn([
          { type: "create", key: `${p}new`, value },
          { type: "create", key: `${p}big`, value },
        ]),
        { code: "KeyExists", key: `${p}big` },
      );
      await assert.rejects(storage.update(`${p}missing`, value, revision), { code: "NotFound", key: `${p}missing` });
      // Each refusal's answer carries the keys it read, not their values.
      const answered = (await etcdGrpcBytes(c)).sent - before.sent;
      assert.ok(answered < value.length, `etcd answered ${answered} bytes`);
      assert.equal((await storage.get(`${p}big`))?.modRevision, revision, "nothing was written");
    } finally {
      await storage.close();
    }
  });

  test("a refused write of an object over the client's largest message is a Conflict, not Unavailable", async () => {
    const c = await etcd();
    const limit = 64 * 1024;
    const storage = new EtcdStorage({ ...parseEtcdUrl(c.url), maxReceiveMessageBytes: limit });
    try {
      const key = `/over-limit/${Date.now()}`;
      const revision = await storage.create(key, Buffer.alloc(2 * limit, "x"));
      await assert.rejects(storage.update(key, Buffer.from("y"), revision + 1), { code: "Conflict", key });
      const other = `${key}-other`;
      await assert.rejects(
        storage.txn([
          { type: "create", key: other, value: Buffer.from("z") },
          { type: "delete", key, expectedModRevision: revision + 1 },
        ]),
        { code: "Conflict", key },
      );
      assert.equal(await storage.get(other), undefined, "nothing of the refused transaction was written");
    } finally {
      await storage.close();
    }
  });

  test("the factory opens etcd:// URLs as EtcdStorage", async () => {
    const c = await etcd();
    const storage = await openStorage(c.url);
    try {
      assert.ok(storage instanceof EtcdStorage);
      assert.ok((await storage.currentRevision()) >= 1);
    } finally {
      await storage.close();
    }
  });

  test("a watch resumes after its stream breaks, without missing or repeating an event", async () => {
    const c = await etcd();
    const storage = new EtcdStorage(parseEtcdUrl(c.url));
    const p = `/resume/${Date.now()}/`;
    try {
      const revs: number[] = [];
      const start = await storage.currentRevision();
      let progressed = 0;
      const watcher = storage.watch(
        p,
        { afterRevision: start },
        {
          onEvents: (events) => revs.push(...events.map((e) => e.revision)),
          onError: (err) => assert.fail(err),
          onProgress: (r) => {
            progressed = r;
          },
        },
      );
      const written: number[] = [];
      for (let i = 0; i < 20; i++) {
        written.push(await storage.create(`${p}${i}`, Buffer.from(String(i))));
        // Break the watch's gRPC stream now and then: it must resume from the last delivered revision.
        if (i % 5 === 2) storage.hub.breakStream();
      }
      await waitFor(
        "every write's event",
        async () => revs.length,
        (count) => count >= written.length,
      );
      assert.deepEqual(revs, written);
      assert.ok(progressed >= written.at(-1)!);
      watcher.close();
    } finally {
      await storage.close();
    }
  });

  test("lists more than one gRPC message holds (paged at one revision), whole and with a limit", async () => {
    const c = await etcd();
    const storage = new EtcdStorage(parseEtcdUrl(c.url));
    const p = `/big/${Date.now()}/`;
    try {
      const value = Buffer.alloc(2048, "x");
      const total = 2600; // 5.3 MB: over grpc-js's 4 MiB default for one message
      for (let i = 0; i < total; i += 100) {
        const ops = Array.from({ length: Math.min(100, total - i) }, (_, j) => ({
          type: "create" as const,
          key: `${p}${String(i + j).padStart(5, "0")}`,
          value,
        }));
        await storage.txn(ops);
      }
      const before = await storage.currentRevision();
      const whole = await storage.list(p);
      assert.equal(whole.items.length, total);
      assert.equal(whole.more, false);
      assert.equal(whole.revision, before);
      assert.equal(whole.items.at(-1)!.key, `${p}${String(total - 1).padStart(5, "0")}`);
      // A write after the first page must not show up in later pages (one snapshot).
      const limited = await storage.list(p, { limit: 1500, revision: before });
      await storage.create(`${p}99999`, value);
      assert.equal(limited.items.length, 1500);
      assert.equal(limited.more, true);
      assert.equal(limited.remaining, total - 1500);
      const rest = await storage.list(p, { after: limited.items.at(-1)!.key, revision: before });
      assert.equal(rest.items.length, total - 1500);
      assert.equal(rest.more, false);
    } finally {
      await storage.close();
    }
  });

  test("parses endpoints, TLS files and credentials from the URL", async () => {
    const dir = await mkdtemp(join(tmpdir(), "platform-etcd-url-"));
    try {
      await writeFile(join(dir, "ca.pem"), "CA");
      await writeFile(join(dir, "c.pem"), "CERT");
      await writeFile(join(dir, "k.pem"), "KEY");
      await writeFile(join(dir, "pw"), "secret\n");
      const o = parseEtcdUrl(
        `etcd://a:2379,b:2380?cacert=${dir}/ca.pem&cert=${dir}/c.pem&key=${dir}/k.pem&user=root&password-file=${dir}/pw`,
      );
      assert.deepEqual(o.endpoints, ["a:2379", "b:2380"]);
      assert.equal(o.ca?.toString(), "CA");
      assert.equal(o.cert?.toString(), "CERT");
      assert.equal(o.key?.toString(), "KEY");
      assert.equal(o.user, "root");
      assert.equal(o.password, "secret");
      // A client connects on its first call: these never do.
      assert.equal(new EtcdClient(o).endpoint, "https://a:2379", "TLS by the CA given");
      assert.equal(new EtcdClient(parseEtcdUrl("etcd://h:1")).endpoint, "http://h:1");
      assert.equal(parseEtcdUrl("etcd://h:1?user=u", { PLATFORM_ETCD_PASSWORD: "envpw" }).password, "envpw");
      assert.throws(() => parseEtcdUrl("etcd://h:1?user=u", {}), /without a password/);
      assert.throws(() => parseEtcdUrl(`etcd://h:1?cert=${dir}/c.pem`), /both cert= and key=/);
      assert.throws(() => parseEtcdUrl("etcd://h"), /bad etcd endpoint/);
      assert.equal(parseEtcdUrl("etcd://h:1").revisionCheckIntervalMs, undefined, "the storage's default");
      assert.equal(parseEtcdUrl("etcd://h:1?revision-check-interval-ms=0").revisionCheckIntervalMs, 0);
      assert.equal(parseEtcdUrl("etcd://h:1?revision-check-interval-ms=12").revisionCheckIntervalMs, 12);
      for (const bad of ["-1", "4ms", "", "1.5", "100000"])
        assert.throws(
          () => parseEtcdUrl(`etcd://h:1?revision-check-interval-ms=${bad}`),
          /expected whole milliseconds/,
          bad,
        );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
