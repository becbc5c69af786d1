import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createCertificateAuthority } from "../../crypto/certificates.js";
import { createCluster, putSecret, waitForStatus } from "../../testing/cluster-status.js";
import { KubeControlPlane, type KubeUser, type PolicyRule } from "../../testing/kube-control-plane.js";
import { REAL_CLUSTER_RESYNC_MS } from "../../testing/platform-on-control-plane.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../../testing/test-server.js";

/** The rights docs/clusters.md lists for a cluster check: listing the services of the management namespace. */
const CHECK_RIGHTS: PolicyRule[] = [{ apiGroups: [""], resources: ["services"], verbs: ["list"] }];

describe("cluster health controller against a real Kubernetes API server", () => {
  let server: TestServer;
  let kube: KubeControlPlane;
  /** A ServiceAccount with exactly the rights a check needs. */
  let reader: KubeUser;
  before(async () => {
    kube = await KubeControlPlane.start();
    server = await startTestServer({ clusterCheckIntervalMs: REAL_CLUSTER_RESYNC_MS, allowLocalEndpoints: true });
    await kube.kubectl("create", "namespace", "platform");
    reader = await kube.serviceAccount("platform", "reader");
    await kube.grant(reader, { rules: CHECK_RIGHTS }, "platform");
  });
  after(async () => {
    await server?.stop();
    await kube?.stop();
  });

  it("a reachable cluster with credentials holding the documented rights is Initialized and online", async () => {
    await putSecret(server, "good", reader.kubeconfig());
    await createCluster(server, "good", { config: { secretName: "good" } });
    const status = await waitForStatus(server, "good", (s) => s.phase === "Initialized");
    assert.equal(status.online, true);
    assert.equal(status.reason, "Connected");
    assert.equal(status.message, `connected to Kubernetes ${kube.version} at ${kube.url}`);
  });

  it("a missing config secret fails with ConfigSecretNotFound, and recovers when the secret appears", async () => {
    await createCluster(server, "nosecret", { config: { secretName: "nosecret-config" } });
    const failed = await waitForStatus(server, "nosecret", (s) => s.phase === "Failed");
    assert.equal(failed.reason, "ConfigSecretNotFound");
    assert.equal(failed.online, false);
    // Which Cluster and which SharedSecret, as its readers see them in its spec.
    assert.equal(
      failed.message,
      'the config SharedSecret platform/nosecret-config of cluster "nosecret" does not exist (sharedsecrets.management.platform)',
    );
    await putSecret(server, "nosecret-config", reader.kubeconfig());
    await waitForStatus(server, "nosecret", (s) => s.phase === "Initialized" && s.online === true);
    // Each readiness change is an Event on the cluster, with the reason.
    await server.events.recorder.flush();
    const events = await server.request(
      "GET",
      "/kubernetes/management/api/v1/events?fieldSelector=involvedObject.kind%3DCluster,involvedObject.name%3Dnosecret",
    );
    assert.equal(events.status, 200, events.text);
    const seen = (events.json.items as Array<{ reason: string; type: string; message: string }>).map(
      (e) => `${e.type}/${e.reason}: ${e.message}`,
    );
    assert.ok(
      seen.some((e) => /^Warning\/NotReady: .*ConfigSecretNotFound/.test(e)),
      seen.join("\n"),
    );
    assert.ok(
      seen.some((e) => /^Normal\/Ready: /.test(e)),
      seen.join("\n"),
    );
  });

  it("a secret without the config key, or with an unreadable kubeconfig, fails with KubeConfigInvalid", async () => {
    const res = await server.request("POST", `${GROUP_PATH}/namespaces/platform/sharedsecrets`, {
      body: { metadata: { name: "nokey" }, spec: { data: { other: "eA==" } } },
    });
    assert.equal(res.status, 201, res.text);
    await createCluster(server, "nokey", { config: { secretName: "nokey" } });
    const noKey = await waitForStatus(server, "nokey", (s) => s.phase === "Failed");
    assert.equal(noKey.reason, "KubeConfigInvalid");
    assert.match(String(noKey.message), /no data key "config"/);

    // The parser's own message quotes the lines around the fault: a token among them never
    // reaches the Cluster's status.
    await putSecret(server, "garbage", "users:\n- name: u\n  user:\n    token: garbage-secret-token\n   bad: [");
    await createCluster(server, "garbage", { config: { secretName: "garbage" } });
    const garbage = await waitForStatus(server, "garbage", (s) => s.phase === "Failed");
    assert.equal(garbage.reason, "KubeConfigInvalid");
    assert.equal(
      garbage.message,
      'the kubeconfig in SharedSecret platform/garbage of cluster "garbage" cannot be read: bad indentation of a mapping entry at line 5, column 4',
    );
    assert.doesNotMatch(JSON.stringify(garbage), /garbage-secret-token/);
  });

  it("a kubeconfig that would run a command on the server is refused as invalid", async () => {
    const withExec = reader
      .kubeconfig()
      .replace(
        /user:\n(\s+)token: \S+/,
        "user:\n$1exec:\n$1  apiVersion: client.authentication.k8s.io/v1\n$1  command: /bin/true",
      );
    assert.match(withExec, /command: \/bin\/true/);
    await putSecret(server, "exec", withExec);
    await createCluster(server, "exec", { config: { secretName: "exec" } });
    const status = await waitForStatus(server, "exec", (s) => s.phase === "Failed");
    assert.equal(status.reason, "KubeConfigInvalid");
    assert.match(String(status.message), /exec/);
  });

  it("a server certificate the kubeconfig's CA did not sign fails with TLSVerificationFailed", async () => {
    const otherCa = await createCertificateAuthority("someone-else", 1);
    await putSecret(server, "tls", reader.kubeconfig({ caPem: otherCa.certPem }));
    await createCluster(server, "tls", { config: { secretName: "tls" } });
    const status = await waitForStatus(server, "tls", (s) => s.phase === "Failed");
    assert.equal(status.reason, "TLSVerificationFailed");
    assert.match(String(status.message), new RegExp(`cannot verify the TLS certificate of ${kube.url}`));
  });

  it("a ServiceAccount without the documented rights is Forbidden (403), and Connected once granted them", async () => {
    const bare = await kube.serviceAccount("platform", "bare");
    await putSecret(server, "forbidden", bare.kubeconfig());
    await createCluster(server, "forbidden", { config: { secretName: "forbidden" } });
    const forbidden = await waitForStatus(server, "forbidden", (s) => s.phase === "Failed");
    assert.equal(forbidden.reason, "Forbidden");
    assert.match(String(forbidden.message), /403 Forbidden/);
    assert.match(
      String(forbidden.message),
      /User "system:serviceaccount:platform:bare" cannot list resource "services" in API group "" in the namespace "platform"/,
    );
    // The periodic re-check notices the new rights.
    await kube.grant(bare, { rules: CHECK_RIGHTS }, "platform");
    await waitForStatus(server, "forbidden", (s) => s.phase === "Initialized" && s.reason === "Connected");
  });

  it("a token of a deleted ServiceAccount is Unauthorized (401): revoking it takes the cluster offline", async () => {
    const doomed = await kube.serviceAccount("platform", "doomed");
    await kube.grant(doomed, { rules: CHECK_RIGHTS }, "platform");
    await putSecret(server, "revoked", doomed.kubeconfig());
    await createCluster(server, "revoked", { config: { secretName: "revoked" } });
    await waitForStatus(server, "revoked", (s) => s.phase === "Initialized");

    await kube.kubectl("delete", "serviceaccount", "doomed", "-n", "platform");
    const unauthorized = await waitForStatus(server, "revoked", (s) => s.phase === "Failed");
    assert.equal(unauthorized.reason, "Unauthorized");
    assert.equal(unauthorized.online, false);
    assert.match(String(unauthorized.message), /rejected the kubeconfig's credentials \(401 Unauthorized\)/);
  });

  it("a spec change triggers a check: pointing a failing cluster at a good secret heals it", async () => {
    await createCluster(server, "respec", { config: { secretName: "does-not-exist" } });
    await waitForStatus(server, "respec", (s) => s.reason === "ConfigSecretNotFound");
    const res = await server.request("PATCH", `${GROUP_PATH}/clusters/respec`, {
      body: { spec: { config: { secretName: "good" } } },
      contentType: "application/merge-patch+json",
    });
    assert.equal(res.status, 200, res.text);
    await waitForStatus(server, "respec", (s) => s.phase === "Initialized");
  });

  it("a stopped API server is ClusterUnreachable, and Connected again once it is back", async () => {
    await waitForStatus(server, "good", (s) => s.reason === "Connected");
    await kube.stopApiServer();
    try {
      const down = await waitForStatus(server, "good", (s) => s.phase === "Failed");
      assert.equal(down.reason, "ClusterUnreachable");
      assert.equal(down.online, false);
      // A check under way when the server died reports ECONNRESET; the next ones find the port closed.
      const refused = `cannot reach the cluster at ${kube.url}: ECONNREFUSED`;
      const closed = await waitForStatus(server, "good", (s) => s.message === refused);
      assert.equal(closed.reason, "ClusterUnreachable");
    } finally {
      await kube.startApiServer();
    }
    const back = await waitForStatus(server, "good", (s) => s.phase === "Initialized");
    assert.equal(back.reason, "Connected");
  });

  it("local: true outside a Kubernetes cluster is Failed with InClusterConfigNotFound, not an API error", async () => {
    const saved = process.env.KUBERNETES_SERVICE_HOST;
    delete process.env.KUBERNETES_SERVICE_HOST;
    try {
      await createCluster(server, "local", { local: true });
      const status = await waitForStatus(server, "local", (s) => s.phase === "Failed");
      assert.equal(status.reason, "InClusterConfigNotFound");
      assert.match(String(status.message), /not running inside a Kubernetes cluster/);
    } finally {
      if (saved !== undefined) process.env.KUBERNETES_SERVICE_HOST = saved;
    }
  });
});
