import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createCertificateAuthority } from "../../crypto/certificates.js";
import { FakeKubeApiServer } from "../../testing/fake-kube-apiserver.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../../testing/test-server.js";

/** Polls a cluster until its status matches (bounded: the controller checks on create and every 200 ms). */
async function waitForStatus(
  server: TestServer,
  name: string,
  want: (status: Record<string, unknown>) => boolean,
): Promise<Record<string, unknown>> {
  let last: Record<string, unknown> = {};
  for (let i = 0; i < 100; i++) {
    const res = await server.request("GET", `${GROUP_PATH}/clusters/${name}`);
    last = res.json?.status ?? {};
    if (want(last)) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`cluster ${name} never reached the expected status; last: ${JSON.stringify(last)}`);
}

async function putSecret(server: TestServer, name: string, kubeconfig: string) {
  const body = {
    apiVersion: "management.platform/v1",
    kind: "SharedSecret",
    metadata: { name, namespace: "platform" },
    spec: { data: { config: Buffer.from(kubeconfig).toString("base64") } },
  };
  const existing = await server.request("GET", `${GROUP_PATH}/namespaces/platform/sharedsecrets/${name}`);
  const res =
    existing.status === 200
      ? await server.request("PUT", `${GROUP_PATH}/namespaces/platform/sharedsecrets/${name}`, {
          body: { ...body, metadata: { ...body.metadata, resourceVersion: existing.json.metadata.resourceVersion } },
        })
      : await server.request("POST", `${GROUP_PATH}/namespaces/platform/sharedsecrets`, { body });
  assert.ok(res.status === 200 || res.status === 201, res.text);
}

async function createCluster(server: TestServer, name: string, spec: Record<string, unknown>) {
  const res = await server.request("POST", `${GROUP_PATH}/clusters`, {
    body: { apiVersion: "management.platform/v1", kind: "Cluster", metadata: { name }, spec },
  });
  assert.equal(res.status, 201, res.text);
}

describe("cluster health controller against a stand-in Kubernetes API server", () => {
  let server: TestServer;
  let kube: FakeKubeApiServer;
  before(async () => {
    kube = await FakeKubeApiServer.start();
    server = await startTestServer({ clusterCheckIntervalMs: 200 });
  });
  after(async () => {
    await server.stop();
    await kube.stop();
  });

  it("a reachable cluster with good credentials is Initialized and online", async () => {
    await putSecret(server, "good", kube.kubeconfig());
    await createCluster(server, "good", { config: { secretName: "good" } });
    const status = await waitForStatus(server, "good", (s) => s.phase === "Initialized");
    assert.equal(status.online, true);
    assert.equal(status.reason, "Connected");
    assert.match(String(status.message), /v1\.32\.4/);
    assert.ok(kube.requests.includes("GET /version"));
  });

  it("a missing config secret fails with ConfigSecretNotFound, and recovers when the secret appears", async () => {
    await createCluster(server, "nosecret", { config: { secretName: "nosecret-config" } });
    const failed = await waitForStatus(server, "nosecret", (s) => s.phase === "Failed");
    assert.equal(failed.reason, "ConfigSecretNotFound");
    assert.equal(failed.online, false);
    assert.match(String(failed.message), /platform\/nosecret-config does not exist/);
    await putSecret(server, "nosecret-config", kube.kubeconfig());
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

    await putSecret(server, "garbage", "this: [is not: a kubeconfig");
    await createCluster(server, "garbage", { config: { secretName: "garbage" } });
    const garbage = await waitForStatus(server, "garbage", (s) => s.phase === "Failed");
    assert.equal(garbage.reason, "KubeConfigInvalid");
  });

  it("a kubeconfig that would run a command on the server is refused as invalid", async () => {
    const withExec = kube
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

  it("an unreachable server fails with ClusterUnreachable", async () => {
    // A port that was just free: nothing listens there.
    const closed = await FakeKubeApiServer.start();
    const url = closed.url;
    await closed.stop();
    await putSecret(server, "unreachable", kube.kubeconfig({ server: url }));
    await createCluster(server, "unreachable", { config: { secretName: "unreachable" } });
    const status = await waitForStatus(server, "unreachable", (s) => s.phase === "Failed");
    assert.equal(status.reason, "ClusterUnreachable");
    assert.match(String(status.message), /ECONNREFUSED/);
  });

  it("a server certificate the kubeconfig's CA did not sign fails with TLSVerificationFailed", async () => {
    const otherCa = await createCertificateAuthority("someone-else", 1);
    await putSecret(server, "tls", kube.kubeconfig({ caPem: otherCa.certPem }));
    await createCluster(server, "tls", { config: { secretName: "tls" } });
    const status = await waitForStatus(server, "tls", (s) => s.phase === "Failed");
    assert.equal(status.reason, "TLSVerificationFailed");
  });

  it("rejected credentials fail with Unauthorized (401); missing rights with Forbidden (403)", async () => {
    await putSecret(server, "badtoken", kube.kubeconfig({ token: "not-the-token" }));
    await createCluster(server, "badtoken", { config: { secretName: "badtoken" } });
    const unauthorized = await waitForStatus(server, "badtoken", (s) => s.phase === "Failed");
    assert.equal(unauthorized.reason, "Unauthorized");
    assert.match(String(unauthorized.message), /401/);

    kube.forbidAll = true;
    try {
      // The periodic re-check notices; "good" was Initialized before.
      const forbidden = await waitForStatus(server, "good", (s) => s.phase === "Failed");
      assert.equal(forbidden.reason, "Forbidden");
      assert.match(String(forbidden.message), /403/);
    } finally {
      kube.forbidAll = false;
    }
    await waitForStatus(server, "good", (s) => s.phase === "Initialized");
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

  it("checks at most 16 clusters at once, however many there are", async () => {
    await putSecret(server, "many", kube.kubeconfig());
    kube.responseDelayMs = 200;
    kube.maxInFlight = 0;
    try {
      const names = Array.from({ length: 24 }, (_, i) => `many-${i}`);
      await Promise.all(names.map((n) => createCluster(server, n, { config: { secretName: "many" } })));
      for (const n of names) await waitForStatus(server, n, (s) => s.online === true);
      assert.ok(kube.maxInFlight <= 16, `at most 16 checks at once, saw ${kube.maxInFlight}`);
      assert.ok(kube.maxInFlight >= 2, `checks run side by side, saw ${kube.maxInFlight}`);
    } finally {
      kube.responseDelayMs = 0;
    }
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
