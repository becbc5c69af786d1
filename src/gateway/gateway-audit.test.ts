import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { FakeClusterApiServer } from "../testing/fake-cluster-apiserver.js";
import { accessKey, connectCluster, postObject } from "../testing/gateway-fixture.js";
import { startTestServer, type TestServer } from "../testing/test-server.js";

/**
 * With an audit log, the gateway still answers a known key from memory (its own audit line is
 * written either way), and each gateway request, allowed or refused, from memory or not, is one
 * line of the audit log: the gateway's, naming who, where, what and how it ended.
 */
describe("cluster gateway with an audit log", () => {
  let server: TestServer;
  let cluster: FakeClusterApiServer;
  const auditFile = join(mkdtempSync(join(tmpdir(), "gw-audit-")), "audit.log");
  const keys: Record<string, string> = {};
  const POD = "/api/v1/namespaces/default/pods/web-1";
  const get = (token: string, path = POD) => server.request("GET", `/kubernetes/cluster/c1${path}`, { token });

  before(async () => {
    [cluster, server] = await Promise.all([FakeClusterApiServer.start(), startTestServer({ auditLog: auditFile })]);
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

  /** The audit lines written since `from` (bytes), once `count` of them are there (written asynchronously). */
  const linesSince = async (from: number, count: number) => {
    for (let i = 0; ; i++) {
      const lines = readFileSync(auditFile).subarray(from).toString("utf8").split("\n").filter(Boolean);
      if (lines.length >= count || i === 200) return lines.map((l) => JSON.parse(l));
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  const auditSize = () => readFileSync(auditFile).length;

  it("answers a key it knows from memory, and audits each request once", async () => {
    // The first requests authenticate the key and build the upstream; recording the key's
    // activity changes the key, and the next one authenticates again. Then memory answers.
    for (let i = 0; ; i++) {
      const before = server.gateway.answeredFromMemory;
      assert.equal((await get(keys.alice!)).status, 200);
      if (server.gateway.answeredFromMemory > before) break;
      assert.ok(i < 100, "the gateway never answered from memory with an audit log on");
      await new Promise((r) => setTimeout(r, 20));
    }
    const from = auditSize();
    const fromMemory = server.gateway.answeredFromMemory;
    const N = 5;
    for (let i = 0; i < N; i++) assert.equal((await get(keys.alice!, `${POD}?n=${i}`)).status, 200);
    assert.equal(server.gateway.answeredFromMemory, fromMemory + N, "every request was answered from memory");
    // One line more than expected would show up by now: wait for N + 1 and expect exactly N.
    const lines = await linesSince(from, N + 1);
    assert.equal(lines.length, N, JSON.stringify(lines));
    lines.forEach((line, i) => {
      assert.deepEqual(Object.keys(line).sort(), [...GATEWAY_LINE_FIELDS].sort());
      assert.equal(line.user, "alice");
      assert.equal(line.gateway, "cluster/c1");
      assert.equal(line.verb, "get");
      assert.equal(line.path, POD, `query ?n=${i} is not logged`);
      assert.equal(line.code, 200);
      assert.ok(line.bytes > 0);
      assert.equal(line.sourceAddress, "127.0.0.1");
    });
  });

  it("audits refusals once each: a caller without `use`, an unknown key, no key", async () => {
    const from = auditSize();
    for (let i = 0; i < 2; i++) assert.equal((await get(keys.bob!)).status, 403);
    assert.equal((await get("not-a-key")).status, 401);
    assert.equal((await server.request("GET", `/kubernetes/cluster/c1${POD}`, { token: null })).status, 401);
    const lines = await linesSince(from, 5);
    assert.equal(lines.length, 4, JSON.stringify(lines));
    assert.deepEqual(
      lines.map((l) => [l.user, l.gateway, l.code]),
      [
        ["bob", "cluster/c1", 403],
        ["bob", "cluster/c1", 403],
        ["", "cluster/c1", 401],
        ["", "cluster/c1", 401],
      ],
    );
    const text = readFileSync(auditFile, "utf8");
    for (const secret of [keys.alice!, keys.bob!, cluster.token]) assert.ok(!text.includes(secret));
  });
});

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
