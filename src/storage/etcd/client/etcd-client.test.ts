import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer as createH2Server, type Http2Server } from "node:http2";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { EtcdCluster } from "../../../testing/etcd-cluster.js";
import { type EtcdTlsFiles, writeEtcdTls } from "../../../testing/etcd-tls.js";
import { runStorageSuite } from "../../../testing/storage-suite.js";
import { waitFor } from "../../../testing/wait-for.js";
import { isStorageError } from "../../errors.js";
import { openStorage } from "../../factory.js";
import type { WatchEvent } from "../../interface.js";
import { EtcdStorage } from "../etcd-storage.js";
import { parseEtcdUrl } from "../etcd-url.js";
import { EtcdClient } from "./etcd-client.js";
import { EtcdRequestError } from "./kv-calls.js";

/** A port nothing listens on (bound, then closed). */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A member that accepts a request and then drops the connection without an answer. */
async function droppingServer(): Promise<{ server: Http2Server; port: number; requests: () => number }> {
  let requests = 0;
  const server = createH2Server();
  server.on("stream", (stream) => {
    requests++;
    stream.session?.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as { port: number }).port, requests: () => requests };
}

describe("etcd KV over gRPC on the client's own HTTP/2 connections", () => {
  let etcd: EtcdCluster;
  before(async () => {
    etcd = await EtcdCluster.start(1);
  });
  after(async () => {
    await etcd?.stop();
  });

  test("moves past an endpoint that refuses connections, for reads and writes", async () => {
    const live = etcd.endpoints[0]!;
    const storage = new EtcdStorage(parseEtcdUrl(`etcd://127.0.0.1:${await deadPort()},${live}`));
    const p = `/failover/${randomUUID()}/`;
    try {
      const rev = await storage.create(`${p}a`, Buffer.from("1"));
      assert.equal((await storage.get(`${p}a`))?.modRevision, rev);
      assert.equal(storage.kv.endpoint, `http://${live}`);
      assert.equal((await storage.list(p)).items.length, 1);
    } finally {
      await storage.close();
    }
  });

  test("a write whose answer was lost is not sent again elsewhere (it may have been applied); a read is", async () => {
    const dropping = await droppingServer();
    const kv = new EtcdClient({ endpoints: [`127.0.0.1:${dropping.port}`, etcd.endpoints[0]!] });
    const key = `/lost/${randomUUID()}`;
    try {
      await assert.rejects(
        kv.txn({ compare: [], success: [{ put: { key, value: "v" } }], failure: [] }),
        (err: unknown) => err instanceof EtcdRequestError && err.code === 14,
      );
      assert.equal(dropping.requests(), 1);
      // The client moved on: this read goes to the live member and shows the write never happened.
      assert.equal((await kv.range({ key })).kvs.length, 0);
      // A read that loses its answer is sent to the next member at once.
      const again = new EtcdClient({ endpoints: [`127.0.0.1:${dropping.port}`, etcd.endpoints[0]!] });
      try {
        assert.equal((await again.range({ key, count_only: true })).count, 0);
        assert.equal(dropping.requests(), 2);
      } finally {
        await again.close();
      }
    } finally {
      await kv.close();
      dropping.server.close();
    }
  });

  test("a member that accepts connections but never speaks HTTP/2 (stopped) is left after the connect timeout; a write is sent elsewhere, as it never went out", async () => {
    // A stopped process's listening socket still completes TCP handshakes: no SETTINGS ever come.
    const silent = await new Promise<Server>((resolve) => {
      const server = createServer(() => {});
      server.listen(0, "127.0.0.1", () => resolve(server));
    });
    const port = (silent.address() as { port: number }).port;
    const options = { connectTimeoutMs: 200, answerTimeoutMs: 2_000 };
    const alone = new EtcdClient({ endpoints: [`127.0.0.1:${port}`], ...options });
    const kv = new EtcdClient({ endpoints: [`127.0.0.1:${port}`, etcd.endpoints[0]!], ...options });
    const key = `/silent/${randomUUID()}`;
    try {
      await assert.rejects(
        alone.range({ key }),
        (e: unknown) =>
          e instanceof EtcdRequestError && /no HTTP\/2 connection within 200 ms \(ETIMEDOUT\)$/.test(e.message),
      );
      await kv.txn({ compare: [], success: [{ put: { key, value: "v" } }], failure: [] });
      assert.equal((await kv.range({ key })).kvs.length, 1);
    } finally {
      await alone.close();
      await kv.close();
      silent.close();
    }
  });

  test("a call the member accepted but never answers is cut after the answer timeout, and the next one too", async () => {
    // A member that takes every stream and says nothing (stopped, partitioned after accepting).
    const server = createH2Server();
    let streams = 0;
    server.on("stream", () => streams++);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    const kv = new EtcdClient({ endpoints: [`127.0.0.1:${port}`], answerTimeoutMs: 300 });
    const silent = (e: unknown) =>
      e instanceof EtcdRequestError && e.code === 14 && /no answer within 300 ms/.test(e.message);
    try {
      await assert.rejects(kv.txn({ compare: [], success: [{ put: { key: "/k", value: "v" } }], failure: [] }), silent);
      await assert.rejects(kv.range({ key: "/k" }), silent);
      // The write was not sent twice (its answer was lost, not refused); the read was retried once.
      assert.equal(streams, 3);
    } finally {
      await kv.close();
      server.close();
    }
  });

  test("a value larger than etcd's initial HTTP/2 window (1.4 MiB) is written and read back intact", async () => {
    const kv = new EtcdClient({ endpoints: etcd.endpoints });
    const key = `/big/${randomUUID()}`;
    const value = randomBytes(1_400_000);
    try {
      await kv.txn({ compare: [], success: [{ put: { key, value } }], failure: [] });
      const [read] = (await kv.range({ key })).kvs;
      assert.ok(read?.value.equals(value), "the value read back is the one written");
    } finally {
      await kv.close();
    }
  });

  test("an etcd user given while etcd's auth is off is refused with etcd's reason", async () => {
    const storage = new EtcdStorage(parseEtcdUrl(`${etcd.url}?user=root&password=x`));
    try {
      await assert.rejects(
        storage.currentRevision(),
        (e: unknown) => isStorageError(e, "Unavailable") && /authentication is not enabled/.test(e.message),
      );
    } finally {
      await storage.close();
    }
  });

  test("a read whose kept-alive connection was closed under it is sent again", async () => {
    const dropping = await droppingServer();
    const kv = new EtcdClient({ endpoints: [`127.0.0.1:${dropping.port}`] });
    try {
      await assert.rejects(kv.range({ key: "/x" }), (e: unknown) => e instanceof EtcdRequestError && e.code === 14);
      assert.equal(dropping.requests(), 2, "a read is tried twice on a single endpoint");
      await assert.rejects(kv.txn({ compare: [], success: [], failure: [] }));
      assert.equal(dropping.requests(), 3, "a write once");
    } finally {
      await kv.close();
      dropping.server.close();
    }
  });

  test("transport=grpc is still accepted; the removed gateway transport is refused with the reason", () => {
    assert.deepEqual(parseEtcdUrl(`${etcd.url}?transport=grpc`).endpoints, etcd.endpoints);
    assert.throws(() => parseEtcdUrl(`${etcd.url}?transport=gateway`), /every call goes over gRPC/);
    assert.throws(() => parseEtcdUrl(`${etcd.url}?transport=carrier-pigeon`), /every call goes over gRPC/);
  });

  // Last in this etcd: it compacts, which would fail the suite's watches from older revisions.
  test("etcd's errors keep their meaning: compacted revisions, conflicts, bad requests", async () => {
    const storage = new EtcdStorage(parseEtcdUrl(etcd.url));
    const p = `/errors/${randomUUID()}/`;
    try {
      const first = await storage.create(`${p}a`, Buffer.from("1"));
      await storage.update(`${p}a`, Buffer.from("2"), first);
      await assert.rejects(storage.update(`${p}a`, Buffer.from("3"), first), (e) => isStorageError(e, "Conflict"));
      await assert.rejects(storage.create(`${p}a`, Buffer.from("4")), (e) => isStorageError(e, "KeyExists"));
      await storage.compact(first + 1);
      await assert.rejects(storage.list(p, { revision: first }), (e) => isStorageError(e, "Compacted"));
      await assert.rejects(
        storage.kv.range({ key: p, revision: 1e12 }),
        (e: unknown) => e instanceof EtcdRequestError && /future revision/.test(e.message),
      );
    } finally {
      await storage.close();
    }
  });
});

/** A watch of `prefix` from the store's current revision; keysSeen(n) waits (waitFor) for n events and gives their keys. */
async function watchFromNow(storage: EtcdStorage, prefix: string) {
  const seen: WatchEvent[] = [];
  const watcher = storage.watch(
    prefix,
    { afterRevision: await storage.currentRevision() },
    { onEvents: (events) => seen.push(...events), onError: (err) => assert.fail(err) },
  );
  const keysSeen = async (n: number): Promise<string[]> => {
    await waitFor(
      `${n} events`,
      async () => seen.length,
      (count) => count >= n,
    );
    return seen.map((e) => e.kv.key);
  };
  return { keysSeen, watcher };
}

describe("etcd over TLS with client certificates and etcd users", () => {
  let dir: string;
  let etcd: EtcdCluster;
  let tls: EtcdTlsFiles;
  const password = `pw-${randomUUID()}`;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "platform-etcd-tls-"));
    // Tokens live one second: the tests below outlive several.
    tls = await writeEtcdTls(dir);
    etcd = await EtcdCluster.start(1, { tls, authTokenTtl: 1 });
    await etcd.enableAuth(password);
  });
  after(async () => {
    await etcd?.stop();
    await rm(dir, { recursive: true, force: true });
  });
  const url = () => `${etcd.url}&user=root&password=${password}`;

  runStorageSuite("etcd (TLS, client certificate, etcd user)", async () => ({
    storage: await openStorage(url()),
    cleanup: async () => {},
  }));

  test("an expired token is replaced and the call goes through; watches keep running", async () => {
    const storage = new EtcdStorage(parseEtcdUrl(url()));
    const p = `/expiry/${randomUUID()}/`;
    try {
      const { keysSeen, watcher } = await watchFromNow(storage, p);
      await storage.create(`${p}a`, Buffer.from("1"));
      const fetched = storage.kv.authentications;
      await sleep(2_500); // past the token's TTL
      const rev = await storage.create(`${p}b`, Buffer.from("2"));
      assert.equal(storage.kv.authentications, fetched + 1, "one fresh token");
      assert.equal((await storage.get(`${p}b`))?.modRevision, rev);
      assert.deepEqual(await keysSeen(2), [`${p}a`, `${p}b`]);
      watcher.close();
    } finally {
      await storage.close();
    }
  });

  test("a watch that reconnects after its token expired resumes with a fresh one, with no call of its own to refresh it", async () => {
    const watching = new EtcdStorage(parseEtcdUrl(url()));
    const writing = new EtcdStorage(parseEtcdUrl(url()));
    const p = `/rewatch/${randomUUID()}/`;
    try {
      const { keysSeen, watcher } = await watchFromNow(watching, p);
      await writing.create(`${p}a`, Buffer.from("1"));
      await keysSeen(1);
      await sleep(2_500); // past the token's TTL; the watching storage makes no call meanwhile
      watching.hub.breakStream();
      await writing.create(`${p}b`, Buffer.from("2"));
      assert.deepEqual(await keysSeen(2), [`${p}a`, `${p}b`]);
      watcher.close();
    } finally {
      await watching.close();
      await writing.close();
    }
  });

  test("a client certificate naming a user is served, with a password and without one (etcd takes the CommonName)", async () => {
    const named = etcd.url.replace(/&cert=.*$/, `&cert=${tls.namedClientCert}&key=${tls.namedClientKey}`);
    const storage = new EtcdStorage(parseEtcdUrl(`${named}&user=root&password=${password}`));
    const p = `/named/${randomUUID()}/`;
    try {
      const rev = await storage.create(`${p}a`, Buffer.from("1"));
      assert.equal((await storage.get(`${p}a`))?.modRevision, rev);
      assert.equal((await storage.list(p)).items.length, 1);
      assert.equal(storage.kv.authentications, 1);
    } finally {
      await storage.close();
    }
    const byCertificate = new EtcdStorage(parseEtcdUrl(named));
    try {
      assert.equal((await byCertificate.list(p)).items.length, 1);
      await byCertificate.create(`${p}b`, Buffer.from("2"));
      assert.equal(byCertificate.kv.authentications, 0, "no token: the certificate's CommonName is the user");
    } finally {
      await byCertificate.close();
    }
  });

  test("a wrong password, a missing client certificate and plain HTTP are refused", async () => {
    const attempts = [
      `${etcd.url.replace(/\?.*$/, "")}?user=root&password=x`, // plain HTTP to a TLS port
      `${etcd.url}&user=root&password=wrong`,
      `${etcd.url.replace(/&cert=.*$/, "")}&user=root&password=${password}`,
      etcd.url, // no user: etcd refuses anonymous requests once auth is on
    ];
    for (const attempt of attempts) {
      const storage = new EtcdStorage(parseEtcdUrl(attempt));
      try {
        await assert.rejects(storage.get("/anything"), (e) => isStorageError(e, "Unavailable"), attempt);
      } finally {
        await storage.close();
      }
    }
  });
});
