import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { KubeObject } from "../api/object.js";
import { FakeClusterApiServer } from "../testing/fake-cluster-apiserver.js";
import { accessKey, connectCluster, postObject } from "../testing/gateway-fixture.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";
import { waitFor } from "../testing/wait-for.js";

/**
 * With an audit log, the gateway still answers a known key from memory (its own audit line is
 * written either way), and each gateway request, allowed or refused, from memory or not, is one
 * line of the audit log: the gateway's, naming who, where, what and how it ended.
 *
 * The audit lines are under test, not the cluster: a stand-in (testing/fake-cluster-apiserver.ts)
 * answers in the real wire format without a control plane's start and memory, and its token is
 * known, to show it is never logged. Forwarding to a real cluster: gateway-real-cluster.test.ts.
 */
describe("cluster gateway with an audit log", () => {
  let server: TestServer;
  let cluster: FakeClusterApiServer;
  const auditFile = join(mkdtempSync(join(tmpdir(), "gw-audit-")), "audit.log");
  const keys: Record<string, string> = {};
  const POD = "/api/v1/namespaces/default/pods/web-1";
  const get = (token: string, path = POD) => server.request("GET", `/kubernetes/cluster/c1${path}`, { token });

  before(async () => {
    [cluster, server] = await Promise.all([
      FakeClusterApiServer.start(),
      startTestServer({ auditLog: auditFile, allowLocalEndpoints: true }),
    ]);
    cluster.add("pods", "default", "web-1");
    await postObject(server, "users", { metadata: { name: "alice" }, spec: {} });
    await postObject(server, "users", { metadata: { name: "bob" }, spec: {} });
    await connectCluster(server, "c1", cluster, { access: [{ verbs: ["use"], users: ["alice"] }] });
    keys.alice = await accessKey(server, "alice");
    keys.bob = await accessKey(server, "bob");
  });
  after(async () => {
    await server.stop();
    await cluster.stop();
  });

  /** Whether alice's key has its status.lastActivity (the one write that changes the key on first use). */
  const aliceKeyUsed = async () => {
    const list = await server.request("GET", `${GROUP_PATH}/ownedaccesskeys`);
    const mine = (list.json.items as KubeObject[]).filter((k) => k.spec?.user === "alice");
    return mine.length === 1 && mine[0]!.status?.lastActivity !== undefined;
  };
  /** The audit file's lines, once `done` holds on them (they are written asynchronously). */
  const auditLines = async (done: (lines: AuditLine[]) => boolean) => {
    for (let i = 0; ; i++) {
      const lines = readFileSync(auditFile, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as AuditLine);
      if (done(lines) || i === 500) return lines;
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  /** An audit.k8s.io Event that is not about a management API request: what a gateway request must not add. */
  const strayEvents = (lines: AuditLine[]) => lines.filter((l) => l.kind === "Event" && !l.requestURI);

  it("answers a key it knows from memory, and audits each request once", async () => {
    // The first request authenticates the key and builds the upstream; recording the key's
    // activity (once) changes the key, and the next one authenticates again. Then memory answers.
    assert.equal((await get(keys.alice!)).status, 200);
    await waitFor("the key's activity recorded", aliceKeyUsed, (used) => used);
    await waitFor(
      "the gateway answering from memory with an audit log on",
      async () => {
        const before = server.gateway.answeredFromMemory;
        assert.equal((await get(keys.alice!)).status, 200);
        return server.gateway.answeredFromMemory > before;
      },
      (fromMemory) => fromMemory,
    );
    const fromMemory = server.gateway.answeredFromMemory;
    const N = 5;
    // The list of pods, a path only these requests take.
    const PODS = "/api/v1/namespaces/default/pods";
    for (let i = 0; i < N; i++) assert.equal((await get(keys.alice!, `${PODS}?n=${i}`)).status, 200);
    assert.equal(server.gateway.answeredFromMemory, fromMemory + N, "every request was answered from memory");
    const all = await auditLines((lines) => lines.filter((l) => l.path === PODS).length >= N);
    const lines = all.filter((l) => l.path === PODS);
    assert.equal(lines.length, N, JSON.stringify(lines));
    assert.deepEqual(strayEvents(all), [], "no audit.k8s.io Event for a gateway request");
    for (const line of lines) {
      assert.deepEqual(Object.keys(line).sort(), [...GATEWAY_LINE_FIELDS].sort());
      assert.equal(line.user, "alice");
      assert.equal(line.gateway, "cluster/c1");
      assert.equal(line.verb, "get");
      assert.equal(line.code, 200, "the query is not logged");
      assert.ok(Number(line.bytes) > 0);
      assert.equal(line.sourceAddress, "127.0.0.1");
    }
  });

  it("audits refusals once each: a caller without `use`, an unknown key, no key", async () => {
    for (let i = 0; i < 2; i++) assert.equal((await get(keys.bob!)).status, 403);
    assert.equal((await get("not-a-key")).status, 401);
    assert.equal((await server.request("GET", `/kubernetes/cluster/c1${POD}`, { token: null })).status, 401);
    const refused = (lines: AuditLine[]) => lines.filter((l) => l.code === 401 || l.code === 403);
    const all = await auditLines((lines) => refused(lines).length >= 4);
    assert.deepEqual(
      refused(all).map((l) => [l.user, l.gateway, l.path, l.code]),
      [
        ["bob", "cluster/c1", POD, 403],
        ["bob", "cluster/c1", POD, 403],
        ["", "cluster/c1", POD, 401],
        ["", "cluster/c1", POD, 401],
      ],
    );
    assert.deepEqual(strayEvents(all), [], "no audit.k8s.io Event for a gateway request");
    const text = readFileSync(auditFile, "utf8");
    for (const secret of [keys.alice!, keys.bob!, cluster.token]) assert.ok(!text.includes(secret));
  });
});

/** A line of the audit file: a gateway line, or an audit.k8s.io Event of the management API. */
type AuditLine = Record<string, unknown>;

const GATEWAY_LINE_FIELDS = [
  "time",
  "user",
  "keyName",
  "gateway",
  "verb",
  "path",
  "code",
  "bytes",
  "durationMs",
  "sourceAddress",
];
