import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { stringify } from "yaml";
import { VIRTUAL_CLUSTER_ENDPOINT_ANNOTATION } from "../api/endpoint-annotations.js";
import { FakeClusterApiServer } from "../testing/fake-cluster-apiserver.js";
import { FakeKubeApiServer } from "../testing/fake-kube-apiserver.js";
import { connectCluster, kubectlAt, postObject } from "../testing/gateway-fixture.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";

/**
 * The gateway's two other kinds of target: a second platform server as the connected cluster
 * (a real Kubernetes-style API server that honours impersonation), and a virtual cluster reached
 * with a client certificate its CA signed.
 *
 * The virtual cluster is a stand-in (testing/fake-cluster-apiserver.ts): its API server runs in
 * a pod, and no pod runs on a test machine (no kubelet).
 */
describe("cluster gateway targets", () => {
  let server: TestServer;
  let downstream: TestServer;
  let host: FakeKubeApiServer;
  let vcluster: FakeClusterApiServer;
  let aliceKey: string;
  let bobKey: string;

  const post = (target: TestServer, path: string, body: unknown) => postObject(target, path, body);
  const kubectl = (token: string, base: string, ...args: string[]) =>
    kubectlAt({ url: `${server.url}${base}`, caPem: server.caPem ?? "", dir: server.dataDir }, token, args);

  before(async () => {
    [server, downstream, host] = await Promise.all([
      startTestServer({ allowLocalEndpoints: true }),
      startTestServer(),
      FakeKubeApiServer.start(),
    ]);
    // The downstream platform: its own users and rules decide what the impersonated name sees.
    for (const name of ["alice", "carol"]) await post(downstream, "users", { metadata: { name }, spec: {} });
    await post(downstream, "clusters", {
      metadata: { name: "visible-to-alice" },
      spec: { local: true, access: [{ verbs: ["get"], users: ["alice"] }] },
    });
    await post(downstream, "clusters", { metadata: { name: "hidden" }, spec: { local: true } });
    const downstreamKubeconfig = stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [
        {
          name: "d",
          cluster: {
            server: `${downstream.url}/kubernetes/management`,
            "certificate-authority-data": Buffer.from(downstream.caPem ?? "").toString("base64"),
          },
        },
      ],
      users: [{ name: "d", user: { token: downstream.adminKey } }],
      contexts: [{ name: "d", context: { cluster: "d", user: "d" } }],
      "current-context": "d",
    });
    // The host cluster of the virtual cluster, and the virtual cluster's own API server (its CA).
    const vc = await host.addVirtualCluster("team-a", "vc1");
    vcluster = await FakeClusterApiServer.start({ ca: vc.ca, clientCa: vc.ca });
    vcluster.add("pods", "default", "inside-vc");

    const access = { access: [{ verbs: ["use"], users: ["alice"] }] };
    await connectCluster(server, "downstream", { kubeconfig: () => downstreamKubeconfig }, access);
    await connectCluster(server, "host", host, access);
    for (const name of ["alice", "bob"]) await post(server, "users", { metadata: { name }, spec: {} });
    await post(server, "projects", { metadata: { name: "alpha" }, spec: {} });
    await post(server, "projects/alpha/importvirtualcluster", {
      sourceVirtualCluster: { name: "vc1", namespace: "team-a", cluster: "host" },
    });
    const patched = await server.request("PATCH", `${GROUP_PATH}/namespaces/p-alpha/virtualclusterinstances/vc1`, {
      body: {
        metadata: { annotations: { [VIRTUAL_CLUSTER_ENDPOINT_ANNOTATION]: vcluster.url } },
        spec: { access: [{ verbs: ["use"], users: ["alice"] }] },
      },
      contentType: "application/merge-patch+json",
    });
    assert.equal(patched.status, 200, patched.text);
    aliceKey = (await post(server, "ownedaccesskeys", { metadata: { name: "alice-key" }, spec: { user: "alice" } }))
      .spec.key;
    bobKey = (await post(server, "ownedaccesskeys", { metadata: { name: "bob-key" }, spec: { user: "bob" } })).spec.key;
  });
  after(async () => {
    await server.stop();
    await downstream.stop();
    await host.stop();
    await vcluster.stop();
  });

  it("a second platform server as the cluster: the user sees exactly what its rules allow the impersonated name", async () => {
    const users = await kubectl(aliceKey, "/kubernetes/cluster/downstream", "get", "users", "-o", "name");
    // Its own user only (the self rule), not carol or the admin.
    assert.equal(users.stdout.trim(), "user.management.platform/alice");
    const clusters = await kubectl(aliceKey, "/kubernetes/cluster/downstream", "get", "clusters", "-o", "name");
    assert.equal(clusters.stdout.trim(), "cluster.management.platform/visible-to-alice");
    await assert.rejects(
      kubectl(aliceKey, "/kubernetes/cluster/downstream", "get", "cluster", "hidden"),
      /forbidden|Forbidden/,
    );
    // The admin, impersonated as itself there, sees everything.
    const all = await kubectl(server.adminKey, "/kubernetes/cluster/downstream", "get", "users", "-o", "name");
    assert.match(all.stdout, /alice/);
    assert.match(all.stdout, /carol/);
  });

  it("a virtual cluster: reached with a client certificate for the caller signed by its CA", async () => {
    const base = "/kubernetes/project/alpha/virtualcluster/vc1";
    const { stdout } = await kubectl(aliceKey, base, "get", "pods", "-o", "name");
    assert.equal(stdout.trim(), "pod/inside-vc");
    const seen = vcluster.seen.filter((s) => s.path.startsWith("/api/v1/namespaces/default/pods"));
    assert.ok(seen.length > 0);
    for (const s of seen) {
      assert.equal(s.certUser, "alice");
      assert.equal(s.authorization, undefined, "no bearer token reaches the virtual cluster");
      assert.equal(s.impersonateUser, undefined);
    }
    const exec = await kubectl(aliceKey, base, "exec", "inside-vc", "--", "whoami");
    assert.equal(exec.stdout, "alice\n");
    await assert.rejects(kubectl(bobKey, base, "get", "pods"), /forbidden/i);
    const missing = await server.request("GET", "/kubernetes/project/alpha/virtualcluster/none/version");
    assert.equal(missing.status, 404);
  });

  it("a key scoped to the project's virtual clusters reaches them and no cluster", async () => {
    const scoped = (
      await post(server, "ownedaccesskeys", {
        metadata: { name: "alice-vc" },
        spec: { user: "alice", scope: { virtualClusters: [{ project: "alpha", virtualCluster: "vc1" }] } },
      })
    ).spec.key;
    const { stdout } = await kubectl(
      scoped,
      "/kubernetes/project/alpha/virtualcluster/vc1",
      "get",
      "pods",
      "-o",
      "name",
    );
    assert.equal(stdout.trim(), "pod/inside-vc");
    await assert.rejects(kubectl(scoped, "/kubernetes/cluster/downstream", "get", "users"), /forbidden/i);
  });
});
