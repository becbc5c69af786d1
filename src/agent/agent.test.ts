import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { request as httpsRequest } from "node:https";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import { clusterCannotBeUsed } from "../clusters/cluster-connection.js";
import { loadOrCreateServerTls } from "../crypto/certificates.js";
import { FakeClusterApiServer } from "../testing/fake-cluster-apiserver.js";
import {
  echoThrough,
  type KubectlTarget,
  kubectlAt,
  postObject,
  startPortForward,
} from "../testing/gateway-fixture.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";
import { type RunningAgent, startAgent } from "./agent.js";

const run = promisify(execFile);
const BIN = resolve(import.meta.dirname, "..", "..", "bin", "platform.js");

/**
 * kubectl through `platform agent` with tokens the platform issued, including while the platform
 * is down. A stand-in cluster (testing/fake-cluster-apiserver.ts): exec and port-forward need a
 * running pod (no kubelet runs on a test machine), and the headers the cluster received (the
 * agent's credentials, never the token) are seen only by the stand-in.
 */
describe("direct cluster endpoint agent", () => {
  let server: TestServer;
  let cluster: FakeClusterApiServer;
  let agent: RunningAgent;
  let agentCa: string;
  let aliceKey: string;
  const dir = mkdtempSync(join(tmpdir(), "platform-agent-"));
  /** The agent as kubectl sees it (set once it listens). */
  let direct: KubectlTarget;

  const post = (path: string, body: unknown, token?: string) => postObject(server, path, body, token);

  async function token(scope: unknown, ttl = 600): Promise<string> {
    const issued = await post("directclusterendpointtokens", { metadata: {}, spec: { ttl, scope } }, aliceKey);
    return issued.status.token as string;
  }

  const kubectl = (bearer: string, ...args: string[]) => kubectlAt(direct, bearer, args);

  before(async () => {
    [server, cluster] = await Promise.all([
      startTestServer({ allowLocalEndpoints: true }),
      FakeClusterApiServer.start(),
    ]);
    cluster.add("pods", "default", "web-1");
    await post("users", { metadata: { name: "alice" }, spec: { groups: ["qa"] } });
    await post("teams", { metadata: { name: "devs" }, spec: { users: ["alice"] } });
    for (const name of ["c1", "c2"]) {
      await post("clusters", {
        metadata: { name },
        spec: { local: true, access: [{ verbs: ["get", "use"], users: ["alice"] }] },
      });
    }
    aliceKey = (await post("ownedaccesskeys", { metadata: { name: "alice-k" }, spec: { user: "alice" } })).spec.key;
    const upstreamKubeconfig = join(dir, "upstream.kubeconfig");
    writeFileSync(upstreamKubeconfig, cluster.kubeconfig(), { mode: 0o600 });
    const tls = await loadOrCreateServerTls(join(dir, "tls"));
    agentCa = tls.caPem ?? "";
    agent = await startAgent({
      platformUrl: server.url,
      platformCaPem: server.caPem,
      cluster: "c1",
      upstreamKubeconfig,
      host: "127.0.0.1",
      port: 0,
      tls,
    });
    direct = { url: agent.url, caPem: agentCa, dir };
  });
  after(async () => {
    await agent.close();
    await server.stop();
    await cluster.stop();
  });

  it("kubectl get and exec through the agent, impersonating the token's subject", async () => {
    const t = await token({ rules: [{ cluster: "c1" }] });
    const { stdout } = await kubectl(t, "get", "pods", "-o", "name");
    assert.equal(stdout.trim(), "pod/web-1");
    const last = cluster.seen.filter((s) => s.path.startsWith("/api/v1/namespaces/default/pods")).at(-1)!;
    assert.equal(last.impersonateUser, "alice");
    assert.deepEqual(last.impersonateGroups.sort(), ["platform:team:devs", "qa"]);
    assert.equal(last.authorization, `Bearer ${cluster.token}`, "the token itself never reaches the cluster");
    const who = await kubectl(t, "exec", "web-1", "--", "whoami");
    assert.equal(who.stdout, "alice\n");
  });

  it("port-forward through the agent, over WebSocket and over SPDY/3.1", async () => {
    const t = await token({ rules: [{ cluster: "c1" }] });
    const before = cluster.portForwards;
    const ws = await startPortForward(direct, t, "pod/web-1");
    try {
      assert.equal(await echoThrough(ws.port, "through the agent"), "through the agent");
    } finally {
      ws.child.kill();
    }
    const spdy = await startPortForward(direct, t, "pod/web-1", { KUBECTL_PORT_FORWARD_WEBSOCKETS: "false" });
    try {
      assert.equal(await echoThrough(spdy.port, "spdy via the agent"), "spdy via the agent");
    } finally {
      spdy.child.kill();
    }
    assert.equal(cluster.portForwards - before, 2);
    assert.deepEqual(cluster.spdyUpgrades, ["portforward.k8s.io"]);
    const seen = cluster.seen.filter((s) => s.path.includes("/portforward"));
    assert.equal(seen.length, 2);
    for (const s of seen) {
      assert.equal(s.impersonateUser, "alice");
      assert.equal(s.authorization, `Bearer ${cluster.token}`);
    }
  });

  it("refuses tokens for another cluster, access keys, and expired tokens (401)", async () => {
    const other = await token({ rules: [{ cluster: "c2" }] });
    await assert.rejects(kubectl(other, "get", "pods"), /Unauthorized|logged in/);
    const unscoped = await token(undefined);
    await assert.rejects(kubectl(unscoped, "get", "pods"), /Unauthorized|logged in/);
    await assert.rejects(kubectl(aliceKey, "get", "pods"), /Unauthorized|logged in/);
    const short = await token({ rules: [{ cluster: "c1" }] }, 1);
    await new Promise((r) => setTimeout(r, 2100));
    await assert.rejects(kubectl(short, "get", "pods"), /Unauthorized|logged in/);
  });

  it("the platform issues a token for a cluster only to those who may use it", async () => {
    await post("users", { metadata: { name: "bob" }, spec: {} });
    const bobKey = (await post("ownedaccesskeys", { metadata: { name: "bob-k" }, spec: { user: "bob" } })).spec.key;
    const refused = await server.request("POST", `${GROUP_PATH}/directclusterendpointtokens`, {
      token: bobKey,
      body: { metadata: {}, spec: { scope: { rules: [{ cluster: "c1" }] } } },
    });
    assert.equal(refused.status, 403, refused.text);
    assert.match(refused.json.message, /a token for cluster "c1"/);
    const everywhere = await server.request("POST", `${GROUP_PATH}/directclusterendpointtokens`, {
      token: aliceKey,
      body: { metadata: {}, spec: { scope: { rules: [{ cluster: "*" }] } } },
    });
    assert.equal(everywhere.status, 403, everywhere.text);
  });

  it("enforces the token's scope (403)", async () => {
    const readOnly = await token({
      rules: [{ cluster: "c1", verbs: ["get", "list"], resources: [{ group: "", resources: ["pods"] }] }],
    });
    const { stdout } = await kubectl(readOnly, "get", "pods", "-o", "name");
    assert.equal(stdout.trim(), "pod/web-1");
    await assert.rejects(kubectl(readOnly, "delete", "pod", "web-1"), /forbidden/i);
  });

  it("platform use cluster --direct writes a context to the agent that kubectl uses", async () => {
    const patched = await server.request("PATCH", `${GROUP_PATH}/clusters/c1`, {
      body: {
        metadata: {
          annotations: {
            "management.platform/direct-cluster-endpoint": agent.url,
            "management.platform/direct-cluster-endpoint-ca": Buffer.from(agentCa).toString("base64"),
          },
        },
      },
      contentType: "application/merge-patch+json",
    });
    assert.equal(patched.status, 200, patched.text);
    const home = mkdtempSync(join(tmpdir(), "platform-direct-"));
    writeFileSync(join(home, "ca.crt"), server.caPem ?? "");
    const env = {
      PATH: process.env.PATH ?? "",
      HOME: home,
      PLATFORM_CONFIG: join(home, "config.json"),
      KUBECONFIG: join(home, "kubeconfig"),
    };
    const cli = (...args: string[]) =>
      new Promise<{ code: number | null; stderr: string }>((done) => {
        const child = spawn(process.execPath, [BIN, ...args], { env });
        let stderr = "";
        child.stderr.on("data", (d: Buffer) => {
          stderr += d.toString();
        });
        child.on("close", (code) => done({ code, stderr }));
      });
    const login = await cli(
      "login",
      server.url,
      "--access-key",
      aliceKey,
      "--certificate-authority",
      join(home, "ca.crt"),
      "--reuse-key",
    );
    assert.equal(login.code, 0, login.stderr);
    const used = await cli("use", "cluster", "c1", "--direct");
    assert.equal(used.code, 0, used.stderr);
    assert.ok(
      !readFileSync(join(home, "kubeconfig"), "utf8").includes(aliceKey),
      "the direct context holds a token, not the key",
    );
    const { stdout } = await run("/usr/bin/kubectl", ["get", "pods", "-o", "name", "-n", "default"], {
      env: { ...process.env, KUBECONFIG: env.KUBECONFIG },
    });
    assert.equal(stdout.trim(), "pod/web-1");
  });

  it("--trusted-proxies: audits the client behind a trusted proxy, the peer itself otherwise", async () => {
    // 127.0.0.10 plays the Ingress in front of the agent; any 127.x address reaches 127.0.0.1.
    const auditLog = join(dir, "agent-audit.log");
    const proxied = await startAgent({
      platformUrl: server.url,
      platformCaPem: server.caPem,
      cluster: "c1",
      upstreamKubeconfig: join(dir, "upstream.kubeconfig"),
      host: "127.0.0.1",
      port: 0,
      tls: await loadOrCreateServerTls(join(dir, "tls")),
      auditLog,
      trustedProxies: ["127.0.0.10/32"],
    });
    const t = await token({ rules: [{ cluster: "c1" }] });
    const getFrom = (from: string, forwardedFor: string) =>
      new Promise<number>((done, fail) => {
        const req = httpsRequest(
          new URL("/api/v1/namespaces/default/pods/web-1", proxied.url),
          {
            ca: agentCa,
            localAddress: from,
            agent: false,
            headers: { authorization: `Bearer ${t}`, "x-forwarded-for": forwardedFor },
          },
          (res) => {
            res.resume();
            res.on("end", () => done(res.statusCode ?? 0));
          },
        );
        req.on("error", fail);
        req.end();
      });
    try {
      assert.equal(await getFrom("127.0.0.10", "1.1.1.1, 203.0.113.50"), 200);
      assert.equal(await getFrom("127.0.0.20", "203.0.113.51"), 200);
    } finally {
      await proxied.close(); // writes out the audit log
    }
    const lines = readFileSync(auditLog, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.deepEqual(
      lines.map((l) => [l.gateway, l.code, l.sourceAddress]),
      [
        ["cluster/c1", 200, "203.0.113.50"],
        ["cluster/c1", 200, "127.0.0.20"],
      ],
    );
  });

  it("--trusted-proxies: a range that does not parse stops the start", async () => {
    await assert.rejects(
      startAgent({
        platformUrl: server.url,
        cluster: "c1",
        upstreamKubeconfig: join(dir, "upstream.kubeconfig"),
        host: "127.0.0.1",
        port: 0,
        tls: await loadOrCreateServerTls(join(dir, "tls")),
        trustedProxies: ["10.0.1.0/33"],
      }),
      { message: '--trusted-proxies: "10.0.1.0/33" is not an IP address or CIDR range (as 10.0.0.0/8 or fd00::/8)' },
    );
  });

  it("a token scoped to pods in one namespace reaches neither other paths nor, by an encoded slash, secrets", async () => {
    const t = await token({
      rules: [{ cluster: "c1", verbs: ["get", "list"], namespaces: ["default"], resources: [{ resources: ["pods"] }] }],
    });
    const get = (path: string) =>
      new Promise<{ status: number; kind?: string }>((done, fail) => {
        // The path as written: no URL parsing between the test and the agent.
        const req = httpsRequest(
          {
            host: "127.0.0.1",
            port: agent.port,
            path,
            ca: agentCa,
            agent: false,
            headers: { authorization: `Bearer ${t}` },
          },
          (res) => {
            let text = "";
            res.on("data", (c: Buffer) => {
              text += c.toString("utf8");
            });
            res.on("end", () => done({ status: res.statusCode ?? 0, kind: JSON.parse(text).kind }));
          },
        );
        req.on("error", fail);
        req.end();
      });
    assert.equal((await get("/api/v1/namespaces/default/pods")).status, 200);
    assert.equal((await get("/api")).status, 200, "discovery");
    for (const path of [
      "/api%2Fv1/namespaces/kube-system/secrets",
      "/api/v1/namespaces/default/pods/%2e%2e/%2e%2e/secrets",
    ]) {
      assert.deepEqual(await get(path), { status: 400, kind: "Status" }, path);
    }
    for (const path of ["/metrics", "/logs/", "/debug/pprof/"]) {
      assert.deepEqual(await get(path), { status: 403, kind: "Status" }, path);
    }
    const leaked = cluster.seen.filter((s) => /secrets|metrics|logs|debug/.test(s.path));
    assert.deepEqual(leaked, [], "none of them reached the cluster");
  });

  it("sends the upstream kubeconfig's tokenFile, read again when it is rewritten (a rotated ServiceAccount token)", async () => {
    const tokenPath = join(dir, "sa-token");
    writeFileSync(tokenPath, `${cluster.token}\n`);
    // kubectl's field name, with a path relative to the kubeconfig as kubectl reads it.
    const kubeconfig = parseYaml(cluster.kubeconfig()) as { users: Array<{ user: unknown }> };
    kubeconfig.users[0]!.user = { tokenFile: "sa-token" };
    const upstreamKubeconfig = join(dir, "token-file.kubeconfig");
    writeFileSync(upstreamKubeconfig, stringifyYaml(kubeconfig), { mode: 0o600 });
    const rotating = await startAgent({
      platformUrl: server.url,
      platformCaPem: server.caPem,
      cluster: "c1",
      upstreamKubeconfig,
      host: "127.0.0.1",
      port: 0,
      tls: await loadOrCreateServerTls(join(dir, "tls")),
    });
    const original = cluster.token;
    try {
      const via = { url: rotating.url, caPem: agentCa, dir };
      const t = await token({ rules: [{ cluster: "c1" }] });
      assert.equal((await kubectlAt(via, t, ["get", "pods", "-o", "name"])).stdout.trim(), "pod/web-1");
      // The kubelet writes a new token; the cluster accepts only it from now on.
      cluster.token = `rotated-${original}`;
      writeFileSync(tokenPath, cluster.token);
      assert.equal((await kubectlAt(via, t, ["get", "pods", "-o", "name"])).stdout.trim(), "pod/web-1");
    } finally {
      cluster.token = original;
      await rotating.close();
    }
  });

  it("a cluster that refuses the agent's credentials: 503 naming the cluster and the reason only", async () => {
    const t = await token({ rules: [{ cluster: "c1" }] });
    const original = cluster.token;
    cluster.token = "no-longer-accepted";
    try {
      const res = await new Promise<{ status: number; text: string }>((done, fail) => {
        const req = httpsRequest(
          new URL("/api/v1/namespaces/default/pods", agent.url),
          { ca: agentCa, agent: false, headers: { authorization: `Bearer ${t}` } },
          (answer) => {
            let text = "";
            answer.setEncoding("utf8");
            answer.on("data", (chunk: string) => {
              text += chunk;
            });
            answer.on("end", () => done({ status: answer.statusCode ?? 0, text }));
          },
        );
        req.on("error", fail);
        req.end();
      });
      assert.equal(res.status, 503, res.text);
      // The token's holder may use the cluster; its API server's address is not theirs to read.
      assert.equal(JSON.parse(res.text).message, clusterCannotBeUsed("c1", "Unauthorized"));
      assert.ok(!res.text.includes(new URL(cluster.url).host), res.text);
    } finally {
      cluster.token = original;
    }
  });

  it("keeps serving tokens it can verify while the platform is down", async () => {
    const t = await token({ rules: [{ cluster: "c1" }] });
    await server.stop();
    const { stdout } = await kubectl(t, "get", "pods", "-o", "name");
    assert.equal(stdout.trim(), "pod/web-1");
    server = await startTestServer();
  });
});
