import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { FakeClusterApiServer } from "../testing/fake-cluster-apiserver.js";
import {
  accessKey,
  connectCluster,
  echoThrough,
  KUBECTL,
  type KubectlTarget,
  kubectlAt,
  postObject,
  startPortForward,
  writeKubeconfig,
} from "../testing/gateway-fixture.js";
import { startTestServer, type TestServer } from "../testing/test-server.js";
import { GATEWAY_HOPS_HEADER } from "./gateway-hops.js";

/**
 * Real kubectl through the cluster gateway (`/kubernetes/cluster/c1`) to a stand-in cluster
 * API server, for what a real control plane cannot serve on a test machine or cannot show:
 * exec, logs and port-forward need a running pod (no kubelet runs), a watch the cluster drops
 * needs a server that drops it on cue, and what the cluster received (the platform's
 * credentials, never the caller's key) is seen only by the stand-in. What the cluster's RBAC
 * grants through the gateway (get, list, watch, apply, delete, auth can-i), scoped keys, an
 * offline cluster and revoked credentials run on a real control plane:
 * gateway-real-cluster.test.ts.
 */
describe("cluster gateway with kubectl", () => {
  let server: TestServer;
  let cluster: FakeClusterApiServer;
  const keys: Record<string, string> = {};
  const auditFile = join(mkdtempSync(join(tmpdir(), "gw-audit-")), "audit.log");
  let gateway: KubectlTarget;

  const post = (path: string, body: unknown) => postObject(server, path, body);
  const key = (user: string, scope?: unknown) => accessKey(server, user, scope);
  const kubeconfig = (token: string) => writeKubeconfig(gateway.dir, gateway.url, gateway.caPem, token);
  const kubectl = (token: string, ...args: string[]) => kubectlAt(gateway, token, args);

  before(async () => {
    cluster = await FakeClusterApiServer.start();
    server = await startTestServer({ auditLog: auditFile, allowLocalEndpoints: true });
    gateway = { url: `${server.url}/kubernetes/cluster/c1`, caPem: server.caPem ?? "", dir: server.dataDir };
    await post("teams", { metadata: { name: "devs" }, spec: { users: ["alice"] } });
    await post("users", { metadata: { name: "alice" }, spec: { groups: ["qa"] } });
    await post("users", { metadata: { name: "bob" }, spec: {} });
    await connectCluster(server, "c1", cluster, { access: [{ verbs: ["use"], users: ["alice"] }] });
    keys.alice = await key("alice");
    keys.bob = await key("bob");
    cluster.add("pods", "default", "web-1");
  });
  after(async () => {
    await server.stop();
    await cluster.stop();
  });

  it("get: forwarded with the cluster's credentials and the caller as Impersonate-User/-Group", async () => {
    const { stdout } = await kubectl(keys.alice!, "get", "pods", "-o", "name");
    assert.equal(stdout.trim(), "pod/web-1");
    const seen = cluster.seen.filter((s) => s.path.startsWith("/api/v1/namespaces/default/pods"));
    assert.ok(seen.length > 0);
    for (const s of seen) {
      assert.equal(s.authorization, `Bearer ${cluster.token}`);
      assert.equal(s.impersonateUser, "alice");
      assert.deepEqual(s.impersonateGroups.sort(), ["platform:team:devs", "qa"]);
    }
  });

  it("the caller's key and its own Impersonate-* headers never reach the cluster", async () => {
    const res = await server.request("GET", "/kubernetes/cluster/c1/api/v1/namespaces/default/pods", {
      token: keys.alice!,
      headers: { "impersonate-group": "system:masters" },
    });
    // alice is no admin: asking to impersonate is refused before anything is forwarded.
    assert.equal(res.status, 403, res.text);
    await kubectl(keys.alice!, "get", "pods", "web-1");
    for (const s of cluster.seen) {
      assert.ok(!s.authorization?.includes(keys.alice!));
      assert.ok(!s.impersonateGroups.includes("system:masters"));
    }
  });

  it("a user without `use` on the cluster is refused with a 403 Status; an unknown cluster is 403 for them, 404 for an admin", async () => {
    // Every request the gateway forwards carries its hop count; the platform's controllers (the
    // health check's passes among them) call the cluster meanwhile without it, and are not counted.
    const forwarded = () =>
      cluster.seen.filter((s) => s.rawHeaders.some((h) => h.toLowerCase() === GATEWAY_HOPS_HEADER)).length;
    const before = forwarded();
    await assert.rejects(kubectl(keys.bob!, "get", "pods"), /Forbidden|forbidden/);
    const res = await server.request("GET", "/kubernetes/cluster/c1/api/v1/namespaces/default/pods", {
      token: keys.bob!,
    });
    assert.equal(res.status, 403);
    assert.equal(res.json.kind, "Status");
    assert.match(res.json.message, /User "bob" cannot use resource "clusters"/);
    const unknown = await server.request("GET", "/kubernetes/cluster/nope/version", { token: keys.bob! });
    assert.equal(unknown.status, 403);
    const unknownAdmin = await server.request("GET", "/kubernetes/cluster/nope/version");
    assert.equal(unknownAdmin.status, 404);
    assert.equal(unknownAdmin.json.reason, "NotFound");
    const anonymous = await server.request("GET", "/kubernetes/cluster/c1/version", { token: null });
    assert.equal(anonymous.status, 401);
    assert.equal(forwarded(), before, "nothing refused reached the cluster");
  });

  it("the upstream closing mid-watch ends the client's watch cleanly", async () => {
    const child = spawn(KUBECTL, [`--kubeconfig=${kubeconfig(keys.alice!)}`, "get", "pods", "-w", "-o", "name"]);
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    await waitFor(() => cluster.openWatches > 0);
    cluster.dropWatches();
    const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r("hung"), 15_000))]);
    assert.notEqual(code, "hung", "kubectl's watch ended");
    if (code === "hung") child.kill();
  });

  it("logs -f streams lines", async () => {
    cluster.logLines = 4;
    const { stdout } = await kubectl(keys.alice!, "logs", "-f", "web-1");
    assert.equal(stdout, "line 1\nline 2\nline 3\nline 4\n");
  });

  it("exec over WebSocket: output, stdin, and the impersonated user on the other side", async () => {
    const echo = await kubectl(keys.alice!, "exec", "web-1", "--", "echo", "hello", "gateway");
    assert.equal(echo.stdout, "hello gateway\n");
    const who = await kubectl(keys.alice!, "exec", "web-1", "--", "whoami");
    assert.equal(who.stdout, "alice\n");
    const child = spawn(KUBECTL, [`--kubeconfig=${kubeconfig(keys.alice!)}`, "exec", "-i", "web-1", "--", "cat"]);
    let out = "";
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString();
    });
    child.stdin.end("through the gateway\n");
    const code = await new Promise((resolve) => child.on("exit", resolve));
    assert.equal(code, 0);
    assert.equal(out, "through the gateway\n");
    const upgrades = cluster.seen.filter((s) => s.path.includes("/exec?"));
    assert.ok(upgrades.length >= 3);
    for (const s of upgrades) assert.equal(s.impersonateUser, "alice");
    await assert.rejects(kubectl(keys.bob!, "exec", "web-1", "--", "echo", "no"), /forbidden/i);
  });

  it("port-forward over WebSocket (SPDY tunneled): bytes go to the pod's port and back", async () => {
    const { child, port } = await startPortForward(gateway, keys.alice!, "pod/web-1");
    try {
      assert.equal(await echoThrough(port, "ping through the gateway"), "ping through the gateway");
      assert.equal(cluster.portForwards, 1);
      const seen = cluster.seen.filter((s) => s.path.includes("/portforward"));
      assert.ok(seen.length > 0 && seen.every((s) => s.impersonateUser === "alice"));
    } finally {
      child.kill();
    }
  });

  it("exec and port-forward over SPDY/3.1 (kubectl's fallback): negotiated, impersonated, bytes both ways", async () => {
    const spdy = { KUBECTL_REMOTE_COMMAND_WEBSOCKETS: "false", KUBECTL_PORT_FORWARD_WEBSOCKETS: "false" };
    const before = cluster.seen.length;
    const echo = await kubectlAt(gateway, keys.alice!, ["exec", "web-1", "--", "echo", "over", "spdy"], spdy);
    assert.equal(echo.stdout, "over spdy\n");
    const child = spawn(KUBECTL, [`--kubeconfig=${kubeconfig(keys.alice!)}`, "exec", "-i", "web-1", "--", "cat"], {
      env: { ...process.env, ...spdy },
    });
    let out = "";
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString();
    });
    child.stdin.end("stdin over spdy\n");
    assert.equal(await new Promise((resolve) => child.on("exit", resolve)), 0);
    assert.equal(out, "stdin over spdy\n");
    const pf = await startPortForward(gateway, keys.alice!, "pod/web-1", spdy);
    try {
      assert.equal(await echoThrough(pf.port, "spdy port-forward"), "spdy port-forward");
    } finally {
      pf.child.kill();
    }
    // kubectl offered several protocols, one header line each: the stand-in matched them exactly.
    assert.deepEqual(cluster.spdyUpgrades, ["v4.channel.k8s.io", "v4.channel.k8s.io", "portforward.k8s.io"]);
    const upgrades = cluster.seen.slice(before).filter((s) => /\/(exec|portforward)/.test(s.path));
    assert.equal(upgrades.length, 3);
    for (const s of upgrades) {
      assert.equal(s.impersonateUser, "alice");
      assert.equal(s.authorization, `Bearer ${cluster.token}`);
    }
    await assert.rejects(kubectlAt(gateway, keys.bob!, ["exec", "web-1", "--", "echo", "no"], spdy), /forbidden/i);
    assert.equal(cluster.spdyUpgrades.length, 3, "the refused upgrade never reached the cluster");
  });

  it("writes one audit line per forwarded request, without header values", async () => {
    const lines = readFileSync(auditFile, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const forwarded = lines.filter((l) => l.gateway === "cluster/c1");
    const get = forwarded.find((l) => l.user === "alice" && l.path === "/api/v1/namespaces/default/pods/web-1");
    assert.ok(get, "the get of web-1 was logged");
    assert.equal(get.code, 200);
    assert.ok(get.bytes > 0);
    assert.equal(typeof get.durationMs, "number");
    assert.ok(
      forwarded.some((l) => l.code === 403 && l.user === "bob" && l.path === "/api/v1/namespaces/default/pods"),
    );
    const text = readFileSync(auditFile, "utf8");
    for (const secret of [keys.alice!, keys.bob!, cluster.token]) assert.ok(!text.includes(secret));
  });
});

async function waitFor(check: () => boolean, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 20));
  }
}
