import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { EtcdCluster } from "../../testing/etcd-cluster.js";
import { openStorage } from "../factory.js";
import { runStorageSuite } from "../storage-suite.js";
import { EtcdStorage, etcdClientOptions, prefixRangeEnd } from "./etcd-storage.js";
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

describe("etcd storage", () => {
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
      for (let i = 0; i < 400 && revs.length < written.length; i++) await new Promise((r) => setTimeout(r, 25));
      assert.deepEqual(revs, written);
      assert.ok(progressed >= written.at(-1)!);
      watcher.close();
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
      const client = etcdClientOptions(o);
      assert.deepEqual(client.hosts, ["https://a:2379", "https://b:2380"]);
      assert.deepEqual(client.auth, { username: "root", password: "secret" });
      assert.deepEqual(etcdClientOptions(parseEtcdUrl("etcd://h:1")).hosts, ["http://h:1"]);
      assert.equal(parseEtcdUrl("etcd://h:1?user=u", { PLATFORM_ETCD_PASSWORD: "envpw" }).password, "envpw");
      assert.throws(() => parseEtcdUrl("etcd://h:1?user=u", {}), /without a password/);
      assert.throws(() => parseEtcdUrl(`etcd://h:1?cert=${dir}/c.pem`), /both cert= and key=/);
      assert.throws(() => parseEtcdUrl("etcd://h"), /bad etcd endpoint/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("prefix range ends", () => {
    assert.deepEqual(prefixRangeEnd(Buffer.from("/a/")), Buffer.from("/a0"));
    assert.deepEqual(prefixRangeEnd(Buffer.from([0x61, 0xff])), Buffer.from([0x62]));
    assert.deepEqual(prefixRangeEnd(Buffer.from([0xff])), Buffer.from([0]));
  });
});
