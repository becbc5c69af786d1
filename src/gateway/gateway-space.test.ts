import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { FakeClusterApiServer } from "../testing/fake-cluster-apiserver.js";
import { accessKey, connectCluster, kubectlAt, postObject } from "../testing/gateway-fixture.js";
import { startTestServer, type TestServer } from "../testing/test-server.js";

const BASE = "/kubernetes/project/alpha/space/dev";

/**
 * A space's gateway path end to end with kubectl: forwarded to the space's cluster as the caller,
 * inside the space's namespace only, for whoever holds `use` on the SpaceInstance (not on the
 * cluster), within the key's scope. The cluster is a stand-in that records what reached it; the
 * fence's full table of paths is space-fence.test.ts.
 */
describe("cluster gateway: a space's path", () => {
  let server: TestServer;
  let cluster: FakeClusterApiServer;
  const key: Record<string, string> = {};
  const kubectl = (token: string, base: string, ...args: string[]) =>
    kubectlAt({ url: `${server.url}${base}`, caPem: server.caPem ?? "", dir: server.dataDir }, token, args);
  const reached = (path: string) => cluster.seen.filter((s) => s.path.startsWith(path));

  before(async () => {
    [server, cluster] = await Promise.all([
      startTestServer({ allowLocalEndpoints: true }),
      FakeClusterApiServer.start(),
    ]);
    cluster.add("configmaps", "kube-system", "secret-ish");
    // No access rule on the cluster: the space alone lets its owner in.
    await connectCluster(server, "east", cluster);
    for (const name of ["alice", "bob"]) await postObject(server, "users", { metadata: { name }, spec: {} });
    await postObject(server, "projects", { metadata: { name: "alpha" }, spec: {} });
    for (const name of ["dev", "prod"]) {
      await postObject(server, "namespaces/p-alpha/spaceinstances", {
        metadata: { name },
        spec: { clusterRef: { cluster: "east", namespace: `team-${name}` }, owner: { user: "alice" } },
      });
    }
    key.alice = await accessKey(server, "alice");
    key.bob = await accessKey(server, "bob");
    key.dev = await accessKey(server, "alice", { spaces: [{ project: "alpha", space: "dev" }] });
    key.prod = await accessKey(server, "alice", { spaces: [{ project: "alpha", space: "prod" }] });
  });
  after(async () => {
    await server?.stop();
    await cluster?.stop();
  });

  it("kubectl creates and reads a ConfigMap in the space's namespace, as the caller", async () => {
    const ns = "--namespace=team-dev";
    // From a file: kubectl sends it as JSON (its generators send protobuf, which the stand-in does
    // not read); unvalidated, as the stand-in serves no OpenAPI document.
    const file = join(server.dataDir, "settings.json");
    writeFileSync(file, JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "settings" } }));
    await kubectl(key.alice, BASE, "create", "--validate=false", "-f", file, ns);
    const { stdout } = await kubectl(key.alice, BASE, "get", "configmaps", ns, "-o", "name");
    assert.equal(stdout.trim(), "configmap/settings");
    const seen = reached("/api/v1/namespaces/team-dev/configmaps");
    assert.ok(seen.length >= 2);
    for (const s of seen) assert.equal(s.impersonateUser, "alice");
  });

  it("refuses, with a Status naming the space's namespace, anything outside it", async () => {
    const before = cluster.seen.length;
    await assert.rejects(
      kubectl(key.alice, BASE, "get", "configmaps", "--namespace=kube-system"),
      /forbidden: the space's gateway path reaches only its namespace "team-dev"/,
    );
    const all = await server.request("GET", `${BASE}/api/v1/configmaps`, { token: key.alice });
    assert.equal(all.status, 403);
    assert.equal(all.json.kind, "Status");
    assert.match(all.json.message, /cluster-wide requests \(configmaps\)/);
    const del = await server.request("DELETE", `${BASE}/api/v1/namespaces/team-dev`, { token: key.alice });
    assert.equal(del.status, 403);
    // Exec upgrades pass the same fence.
    await assert.rejects(
      kubectl(key.alice, BASE, "exec", "p", "--namespace=kube-system", "--", "ls"),
      /not the space's namespace/,
    );
    assert.equal(reached("/api/v1/namespaces/kube-system").length, 0);
    assert.equal(
      cluster.seen.slice(before).filter((s) => !s.path.startsWith("/api") && s.path !== "/version").length,
      0,
    );
  });

  it("needs use on the SpaceInstance: neither the cluster path nor a stranger gets in", async () => {
    const bob = await server.request("GET", `${BASE}/api/v1/namespaces/team-dev/configmaps`, { token: key.bob });
    assert.equal(bob.status, 403);
    assert.match(bob.json.message, /User "bob" cannot use resource "spaceinstances"/);
    const direct = await server.request("GET", "/kubernetes/cluster/east/api/v1/namespaces/team-dev/configmaps", {
      token: key.alice,
    });
    assert.equal(direct.status, 403, "the space's owner holds no use on its cluster");
    const missing = await server.request("GET", "/kubernetes/project/alpha/space/none/version", { token: key.bob });
    assert.equal(missing.status, 403, "a stranger does not learn whether a space exists");
    const adminMissing = await server.request("GET", "/kubernetes/project/alpha/space/none/version");
    assert.equal(adminMissing.status, 404);
  });

  it("a key scoped to a space reaches that space only", async () => {
    const ok = await kubectl(key.dev, BASE, "get", "configmaps", "--namespace=team-dev", "-o", "name");
    assert.equal(ok.stdout.trim(), "configmap/settings");
    const other = await server.request("GET", `${BASE}/api/v1/namespaces/team-dev/configmaps`, { token: key.prod });
    assert.equal(other.status, 403);
    assert.match(other.json.message, /the access key's scope does not allow this request/);
    const prod = await server.request("GET", "/kubernetes/project/alpha/space/prod/api/v1/namespaces/team-prod/pods", {
      token: key.dev,
    });
    assert.equal(prod.status, 403);
    const hostile = await server.request("GET", `${BASE}/api%2Fv1/namespaces/kube-system/configmaps`, {
      token: key.dev,
    });
    assert.equal(hostile.status, 400);
  });
});
