import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { parse } from "yaml";
import { DIRECT_ENDPOINT_ANNOTATION } from "../api/endpoint-annotations.js";
import { systemContext } from "../registry/request-context.js";
import { type CliRun, loggedInHome, runCli } from "../testing/cli-run.js";
import { FakeClusterApiServer } from "../testing/fake-cluster-apiserver.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";

/** The real executable, run as a user would (src/testing/cli-run.ts). */
function cli(home: string, args: string[]): Promise<CliRun> {
  return runCli(home, args);
}

/**
 * `platform use cluster` / `use vcluster` / `list clusters` against a real server and a stand-in
 * cluster (testing/fake-cluster-apiserver.ts): the kubeconfig the CLI writes is under test, the
 * cluster only answers; a virtual cluster needs a pod, which never runs on a test machine.
 */
describe("platform use cluster", () => {
  let server: TestServer;
  let cluster: FakeClusterApiServer;
  let home: string;
  let aliceKey: string;

  before(async () => {
    [server, cluster] = await Promise.all([
      startTestServer({ allowLocalEndpoints: true }),
      FakeClusterApiServer.start(),
    ]);
    cluster.add("pods", "default", "web-1");
    const post = async (path: string, body: unknown) => {
      const res = await server.request("POST", `${GROUP_PATH}/${path}`, { body });
      assert.equal(res.status, 201, res.text);
      return res.json;
    };
    await post("users", { metadata: { name: "alice" }, spec: {} });
    await post("namespaces/platform/sharedsecrets", {
      metadata: { name: "kc" },
      spec: { data: { config: Buffer.from(cluster.kubeconfig()).toString("base64") } },
    });
    await post("clusters", {
      metadata: { name: "prod" },
      spec: { config: { secretName: "kc" }, access: [{ verbs: ["get", "use"], users: ["alice"] }] },
    });
    await post("clusters", {
      metadata: { name: "staging" },
      spec: { local: true, access: [{ verbs: ["get"], users: ["alice"] }] },
    });
    aliceKey = (await post("ownedaccesskeys", { metadata: { name: "alice-cli" }, spec: { user: "alice" } })).spec.key;
    home = await loggedInHome(server, aliceKey, { prefix: "platform-use-", reuseKey: true });
  });
  after(async () => {
    await server.stop();
    await cluster.stop();
  });

  it("list clusters shows which ones the caller may use", async () => {
    const r = await cli(home, ["list", "clusters"]);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trim().split("\n");
    assert.match(lines[0] ?? "", /^NAME\s.*\sUSE$/);
    assert.match(lines.find((l) => l.startsWith("prod")) ?? "", /\syes$/);
    assert.match(lines.find((l) => l.startsWith("staging")) ?? "", /\sno$/);
  });

  it("use cluster writes a gateway context with the user's key, and kubectl works through it", async () => {
    const r = await cli(home, ["use", "cluster", "prod"]);
    assert.equal(r.code, 0, r.stderr);
    const kubeconfig = readFileSync(join(home, "kubeconfig"), "utf8");
    const doc = parse(kubeconfig);
    const name = `platform_prod@${new URL(server.url).host}`;
    assert.equal(doc["current-context"], name);
    const entry = doc.clusters.find((c: { name: string }) => c.name === name);
    assert.equal(entry.cluster.server, `${server.url}/kubernetes/cluster/prod`);
    assert.ok(!kubeconfig.includes(cluster.token), "the cluster's own credentials never leave the server");
    const { stdout } = await promisify(execFile)("/usr/bin/kubectl", ["get", "pods", "-n", "default", "-o", "name"], {
      env: { ...process.env, KUBECONFIG: join(home, "kubeconfig") },
    });
    assert.equal(stdout.trim(), "pod/web-1");
  });

  it("refuses a cluster the caller may not use, and a virtual cluster that is not there", async () => {
    const r = await cli(home, ["use", "cluster", "staging"]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /may not use cluster staging/);
    const v = await cli(home, ["use", "vcluster", "dev", "--project", "web"]);
    assert.equal(v.code, 1);
    assert.match(v.stderr, /may not use virtual cluster dev in project web/);
  });

  it("use cluster/vcluster with a name that does not exist fails, names it, and leaves the kubeconfig alone", async () => {
    // The admin may `use` anything, so the access review alone would let a missing name through.
    const admin = await loggedInHome(server, server.adminKey, { prefix: "platform-use-admin-", reuseKey: false });
    const kubeconfig = join(admin, "kubeconfig");
    const before = "apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\ncurrent-context: mine\n";
    writeFileSync(kubeconfig, before);

    const missingCluster = await cli(admin, ["use", "cluster", "nosuch"]);
    assert.equal(missingCluster.code, 1, missingCluster.stdout);
    assert.match(missingCluster.stderr, /cluster nosuch not found/);
    const missingVcluster = await cli(admin, ["use", "vcluster", "nosuch", "--project", "web"]);
    assert.equal(missingVcluster.code, 1, missingVcluster.stdout);
    assert.match(missingVcluster.stderr, /virtual cluster nosuch not found in project web/);
    assert.equal(readFileSync(kubeconfig, "utf8"), before, "no context written, the current one kept");

    const existing = await cli(admin, ["use", "cluster", "prod", "--no-switch"]);
    assert.equal(existing.code, 0, existing.stderr);
  });

  it("use cluster --direct sends no token to an agent URL that is not https (one stored before the server checked)", async () => {
    await server.request("POST", `${GROUP_PATH}/clusters`, {
      body: {
        metadata: { name: "legacy" },
        spec: { local: true, access: [{ verbs: ["get", "use"], users: ["alice"] }] },
      },
    });
    // The API refuses http:// there now; the registry's own writes skip admission, as old data did.
    await server.registry.store("clusters").guaranteedUpdate(systemContext(), undefined, "legacy", (obj) => {
      obj.metadata.annotations = { [DIRECT_ENDPOINT_ANNOTATION]: "http://agent.example.com" };
      return obj;
    });
    const r = await cli(home, ["use", "cluster", "legacy", "--direct"]);
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stderr, /agent endpoint http:\/\/agent\.example\.com is not https: no token is sent there/);
    const kubeconfig = join(home, "kubeconfig");
    assert.ok(!existsSync(kubeconfig) || !readFileSync(kubeconfig, "utf8").includes("agent.example.com"));
  });

  it("use cluster --direct needs the agent's URL on the cluster", async () => {
    const r = await cli(home, ["use", "cluster", "prod", "--direct"]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /management\.platform\/direct-cluster-endpoint/);
  });
});
