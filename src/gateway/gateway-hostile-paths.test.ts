import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { stringify } from "yaml";
import { FakeClusterApiServer } from "../testing/fake-cluster-apiserver.js";
import { accessKey, connectCluster, postObject } from "../testing/gateway-fixture.js";
import { rawUpgrade } from "../testing/raw-upgrade.js";
import { startTestServer, type TestServer } from "../testing/test-server.js";

/**
 * The gateway's paths as an attacker writes them: escapes that do not decode (the refusal of
 * such a request once threw past the gateway and ended the process), encoded slashes and
 * paths that are no resource (which a key scoped to pods once read through), and a cluster
 * whose kubeconfig leads back to the gateway itself (which once recursed without end).
 */
describe("cluster gateway with hostile paths", () => {
  let server: TestServer;
  let cluster: FakeClusterApiServer;
  const auditFile = join(mkdtempSync(join(tmpdir(), "gw-paths-")), "audit.log");
  let podsInDefault = "";
  let getAnything = "";

  before(async () => {
    [cluster, server] = await Promise.all([
      FakeClusterApiServer.start(),
      startTestServer({ auditLog: auditFile, allowLocalEndpoints: true }),
    ]);
    cluster.add("pods", "default", "web-1");
    await postObject(server, "users", { metadata: { name: "alice" }, spec: {} });
    await connectCluster(server, "c1", cluster, { access: [{ verbs: ["use"], users: ["alice"] }] });
    podsInDefault = await accessKey(server, "alice", {
      rules: [
        {
          cluster: "c1",
          verbs: ["get", "list"],
          namespaces: ["default"],
          resources: [{ group: "", resources: ["pods"] }],
        },
      ],
    });
    getAnything = await accessKey(server, "alice", { rules: [{ cluster: "c1", verbs: ["get"] }] });
  });
  after(async () => {
    await server.stop();
    await cluster.stop();
  });

  const alive = async () => {
    const res = await server.request("GET", "/readyz", { token: null });
    assert.equal(res.status, 200, "the server still answers");
  };
  /** Requests the cluster saw whose path contains `part`. */
  const seen = (part: string) => cluster.seen.filter((s) => s.path.includes(part)).length;

  it("a name with a malformed escape is 400 for anyone, and the server lives on", async () => {
    for (const path of [
      "/kubernetes/cluster/%ZZ/api",
      "/kubernetes/cluster/%E0%A4%A/api/v1/pods",
      "/kubernetes/project/%E0%A4%A/virtualcluster/x/api",
      "/kubernetes/project/p/virtualcluster/%ZZ/api",
    ]) {
      for (const token of [null, "not-a-key", server.adminKey]) {
        const res = await sendAsIs(server, path, token);
        assert.equal(res.json.kind, "Status", `${path}: ${res.text}`);
        // First: the process survived the refusal (it once died right after answering 401).
        await alive();
        assert.equal(res.status, 400, `${path}: ${res.text}`);
        assert.equal(res.json.code, 400);
      }
    }
    // Each refusal is one audit line of the gateway's, with no target (the name did not decode).
    const lines = readFileSync(auditFile, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { gateway?: string; code?: number });
    assert.ok(lines.some((l) => l.gateway === "" && l.code === 400));
  });

  it("an upgrade with a malformed escape is 400 on its socket, and the server lives on", async () => {
    for (const path of ["/kubernetes/cluster/%ZZ/api", "/kubernetes/project/%E0%A4%A/virtualcluster/x/api"]) {
      const head = await rawUpgrade(server, path);
      assert.match(head, /"kind":"Status"/, head);
      await alive();
      assert.match(head, /^HTTP\/1\.1 400 /, head);
    }
  });

  it("an encoded slash, a dot segment or an empty one is refused before anything is forwarded", async () => {
    for (const path of [
      "/api%2Fv1/namespaces/kube-system/secrets",
      "/api/v1/namespaces%2Fkube-system%2Fsecrets",
      "/api/v1/namespaces/default/pods/%2E%2E/%2E%2E/kube-system/secrets",
      "/api/v1/namespaces//secrets",
    ]) {
      for (const token of [podsInDefault, server.adminKey]) {
        const res = await sendAsIs(server, `/kubernetes/cluster/c1${path}`, token);
        assert.equal(res.status, 400, `${path}: ${res.text}`);
        assert.equal(res.json.kind, "Status");
      }
    }
    assert.equal(seen("secrets"), 0, "the cluster was never asked for secrets");
    await alive();
  });

  it("a key whose rules name no nonResourceURLs reads discovery and nothing else that is no resource", async () => {
    const get = (path: string) => server.request("GET", `/kubernetes/cluster/c1${path}`, { token: podsInDefault });
    assert.equal((await get("/api/v1/namespaces/default/pods")).status, 200);
    for (const discovery of ["/api", "/apis", "/version"]) {
      assert.equal((await get(discovery)).status, 200, `${discovery} is discovery`);
    }
    for (const path of ["/metrics", "/logs/", "/debug/pprof/", "/healthz", "/"]) {
      const res = await get(path);
      assert.equal(res.status, 403, `${path}: ${res.text}`);
      assert.equal(res.json.kind, "Status");
    }
    assert.equal(seen("/metrics") + seen("/logs/") + seen("/debug/"), 0, "none of them was forwarded");
  });

  it("a key allowed to get cannot watch through the deprecated watch paths", async () => {
    const res = await server.request("GET", "/kubernetes/cluster/c1/api/v1/watch/namespaces/default/pods", {
      token: getAnything,
    });
    assert.equal(res.status, 403, res.text);
    assert.equal(seen("/watch/"), 0);
  });

  it("a cluster whose kubeconfig leads back to the gateway is refused with 508, and nothing keeps going", async () => {
    const looping = stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [
        {
          name: "self",
          cluster: {
            server: `${server.url}/kubernetes/cluster/loop`,
            "certificate-authority-data": Buffer.from(server.caPem ?? "").toString("base64"),
          },
        },
      ],
      users: [{ name: "self", user: { token: server.adminKey } }],
      contexts: [{ name: "self", context: { cluster: "self", user: "self" } }],
      "current-context": "self",
    });
    await connectCluster(server, "loop", { kubeconfig: () => looping });
    const res = await server.request("GET", "/kubernetes/cluster/loop/api/v1/namespaces/default/pods");
    assert.equal(res.status, 508, res.text);
    assert.equal(res.json.kind, "Status");
    assert.match(res.json.message, /Loop Detected/);
    // Every round of the loop was answered: no forwarded exchange stays open.
    for (let i = 0; server.gateway.openExchanges > 0; i++) {
      assert.ok(i < 500, `${server.gateway.openExchanges} forwarded exchanges stay open`);
      await new Promise((r) => setTimeout(r, 10));
    }
    await alive();
  });
});

/** A GET of `path` exactly as written (the test server's request() resolves dot segments, as URL does). */
function sendAsIs(server: TestServer, path: string, token: string | null) {
  return new Promise<{ status: number; text: string; json: { kind?: string; code?: number } }>((resolve, reject) => {
    const headers: Record<string, string> = token === null ? {} : { authorization: `Bearer ${token}` };
    const req = request(
      { host: "127.0.0.1", port: server.port, path, headers, ca: server.caPem, servername: "localhost" },
      (res) => {
        let text = "";
        res.on("data", (c: Buffer) => {
          text += c.toString("utf8");
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text, json: JSON.parse(text) }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}
