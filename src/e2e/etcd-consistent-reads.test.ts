/**
 * Consistent reads from the watch cache on etcd: a GET or LIST without a resourceVersion never
 * returns data older than a write acknowledged before it started, on any replica — while the
 * revision checks behind them are shared (one etcd round trip per batch of requests) and GETs
 * take the fast path.
 */
import assert from "node:assert/strict";
import type { IncomingMessage, ServerResponse } from "node:http";
import { after, before, describe, test } from "node:test";
import { SYSTEM_USER } from "../registry/request-context.js";
import { fastGet } from "../server/fast-get.js";
import { RequestPipeline } from "../server/request-pipeline.js";
import type { CachedStorage } from "../storage/cache/cached-storage.js";
import { EtcdStorage } from "../storage/etcd/etcd-storage.js";
import type { Storage } from "../storage/interface.js";
import { EtcdCluster } from "../testing/etcd-cluster.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";
import { waitFor } from "../testing/wait-for.js";

const BOOTSTRAP_KEY = "consistent-reads-admin-key-0123456789abcdef";
const ROUNDS = 1000;
/** Independent writer/reader lanes (each one write then one read, in order, ROUNDS / LANES times). */
const LANES = 4;

/** The server's etcd backend, under the watch cache and any decorator (metrics). */
function etcdOf(s: TestServer): EtcdStorage {
  let storage: Storage = (s.storage as CachedStorage).inner;
  while (!(storage instanceof EtcdStorage) && "inner" in storage) storage = (storage as { inner: Storage }).inner;
  assert.ok(storage instanceof EtcdStorage, "the server stores in etcd");
  return storage;
}

describe("consistent reads across replicas on etcd", { timeout: 300_000 }, () => {
  let etcd: EtcdCluster;
  let a: TestServer;
  let b: TestServer;
  before(async () => {
    etcd = await EtcdCluster.start(1);
    a = await startTestServer({ storage: etcd.url, bootstrapKey: BOOTSTRAP_KEY });
    b = await startTestServer({ storage: etcd.url, bootstrapKey: BOOTSTRAP_KEY });
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await etcd?.stop();
  });

  test(`a write on one replica is seen by a GET and a LIST on the other at once, ${ROUNDS} times`, async () => {
    const lanes = Array.from({ length: LANES }, (_, lane) => lane);
    for (const lane of lanes) {
      const res = await a.request("POST", `${GROUP_PATH}/teams`, {
        body: { apiVersion: "management.platform/v1", kind: "Team", metadata: { name: `lane-${lane}` }, spec: {} },
      });
      assert.equal(res.status, 201, res.text);
    }
    const checksBefore = etcdOf(b).revisionCheck.reads;
    await Promise.all(
      lanes.map(async (lane) => {
        for (let i = 0; i < ROUNDS / LANES; i++) {
          const written = await a.request("PATCH", `${GROUP_PATH}/teams/lane-${lane}`, {
            body: { spec: { description: String(i) } },
            contentType: "application/merge-patch+json",
          });
          assert.equal(written.status, 200, written.text);
          const rv = Number(written.json.metadata.resourceVersion);
          const read = await b.request("GET", `${GROUP_PATH}/teams/lane-${lane}`);
          assert.equal(read.status, 200, read.text);
          assert.equal(read.json.spec.description, String(i), `GET on b after write ${i} of lane ${lane}`);
          assert.ok(Number(read.json.metadata.resourceVersion) >= rv);
          if (i % 25 === 0) {
            const list = await b.request("GET", `${GROUP_PATH}/teams`);
            const item = list.json.items.find(
              (t: { metadata: { name: string } }) => t.metadata.name === `lane-${lane}`,
            );
            assert.equal(item.spec.description, String(i), `LIST on b after write ${i} of lane ${lane}`);
          }
        }
      }),
    );
    // Every read asked etcd for its revision, but concurrent ones shared a check.
    const checks = etcdOf(b).revisionCheck.reads - checksBefore;
    assert.ok(checks > 0, "reads on b checked etcd's revision");
    assert.ok(checks <= ROUNDS + ROUNDS / 25, `no more than one check per read (${checks})`);
  });

  test("the fast GET path answers on etcd once the shared revision check says the cache is current", async () => {
    const hot = fastGet({
      registry: b.registry,
      groupPrefix: `${GROUP_PATH}/`,
      authenticate: () => ({ user: SYSTEM_USER, warnings: [] }),
      allows: () => true,
      bypassed: () => false,
      requests: new RequestPipeline(),
      noteCaller: () => {},
      log: { error: () => {} },
    });
    const written = await a.request("PATCH", `${GROUP_PATH}/teams/lane-0`, {
      body: { spec: { description: "fast" } },
      contentType: "application/merge-patch+json",
    });
    assert.equal(written.status, 200, written.text);
    const out: { status?: number; body?: Buffer } = {};
    let answered!: () => void;
    const done = new Promise<void>((resolve) => {
      answered = resolve;
    });
    const req = { method: "GET", url: `${GROUP_PATH}/teams/lane-0`, headers: {}, socket: {} } as IncomingMessage;
    const res = {
      headersSent: false,
      writeHead: (status: number) => {
        out.status = status;
      },
      end: (body: Buffer) => {
        out.body = body;
        answered();
      },
    } as unknown as ServerResponse;
    const handedOn: string[] = [];
    const normalPath = (r: IncomingMessage) => handedOn.push(r.url ?? "");
    assert.equal(hot(req, res, normalPath), true, "the fast path takes the request");
    assert.equal(out.status, undefined, "on etcd the answer waits for the revision check");
    await done;
    assert.equal(out.status, 200);
    assert.equal(JSON.parse(out.body!.toString()).spec.description, "fast");
    assert.deepEqual(handedOn, []);
    // A missing object is handed to the normal handler (which answers 404), untouched.
    const missing = { ...req, url: `${GROUP_PATH}/teams/nope` } as IncomingMessage;
    out.status = undefined;
    assert.equal(hot(missing, res, normalPath), true);
    await waitFor(
      "the missing object handed on",
      async () => handedOn.length,
      (n) => n > 0,
    );
    assert.deepEqual(handedOn, [`${GROUP_PATH}/teams/nope`]);
    assert.equal(out.status, undefined);
  });
});
