/**
 * The health check and the controllers apply the endpoint policy the gateway applies
 * (clusters/endpoint-policy.ts, `--allow-local-endpoints`): a cluster whose server the policy
 * forbids reads `EndpointNotAllowed`, not `Connected`, and is never called. On the in-process stand-in
 * (src/testing/fake-kube-apiserver.ts), which records every request that reaches it.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { clusterCannotBeUsed } from "../../clusters/cluster-connection.js";
import { createCluster, putSecret, waitForStatus } from "../../testing/cluster-status.js";
import { FakeKubeApiServer } from "../../testing/fake-kube-apiserver.js";
import { postObject } from "../../testing/gateway-fixture.js";
import { eventually } from "../../testing/platform-on-control-plane.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../../testing/test-server.js";

/** Checks every 200 ms: many checks run while the test waits for what it needs. */
const CHECK_INTERVAL_MS = 200;

describe("the cluster health check, the controllers and the endpoint policy", () => {
  let kube: FakeKubeApiServer;
  /** Started without --allow-local-endpoints: the stand-in on 127.0.0.1 is forbidden. */
  let server: TestServer;
  const byName = () => `https://localhost:${new URL(kube.url).port}`;

  before(async () => {
    kube = await FakeKubeApiServer.start();
    server = await startTestServer({ clusterCheckIntervalMs: CHECK_INTERVAL_MS });
  });
  after(async () => {
    await server?.stop();
    await kube?.stop();
  });

  it("a cluster whose server the policy forbids is EndpointNotAllowed, as the gateway says, and never called", async () => {
    await putSecret(server, "here", kube.kubeconfig());
    await createCluster(server, "here", { config: { secretName: "here" } });
    const byAddress = await waitForStatus(server, "here", (s) => s.reason === "EndpointNotAllowed");
    assert.equal(byAddress.phase, "Failed");
    assert.equal(byAddress.online, false);
    assert.match(
      String(byAddress.message),
      /^127\.0\.0\.1:\d+ is a loopback address: the platform sends no traffic there unless started with --allow-local-endpoints$/,
    );

    // A host name is checked when a connection resolves it.
    await putSecret(server, "here", kube.kubeconfig({ server: byName() }));
    const resolved = await waitForStatus(server, "here", (s) => String(s.message).startsWith("localhost"));
    assert.equal(resolved.reason, "EndpointNotAllowed");
    assert.equal(resolved.online, false);
    assert.match(String(resolved.message), /^localhost resolves to a loopback address: /);

    // Back to the address: one more check seen, with the periodic ones between.
    await putSecret(server, "here", kube.kubeconfig());
    await waitForStatus(server, "here", (s) => String(s.message).startsWith("127.0.0.1"));

    // The gateway refuses it with the same reason.
    const forwarded = await server.request("GET", "/kubernetes/cluster/here/api/v1/namespaces");
    assert.equal(forwarded.status, 503, forwarded.text);
    assert.equal(forwarded.json.message, clusterCannotBeUsed("here", "EndpointNotAllowed"));

    assert.deepEqual(kube.requests, []);
  });

  it("nor does a controller that keeps objects there call it: a space on it is Pending, saying why", async () => {
    await postObject(server, "users", { metadata: { name: "alice" }, spec: {} });
    await postObject(server, "projects", { metadata: { name: "web" }, spec: {} });
    await postObject(server, "namespaces/p-web/spaceinstances", {
      metadata: { name: "dev" },
      spec: { owner: { user: "alice" }, clusterRef: { cluster: "here", namespace: "web-dev" } },
    });
    const status = await eventually("the space's status", async () => {
      const res = await server.request("GET", `${GROUP_PATH}/namespaces/p-web/spaceinstances/dev`);
      assert.equal(res.json?.status?.reason, "EndpointNotAllowed", res.text);
      return res.json.status;
    });
    assert.equal(status.phase, "Pending");
    assert.equal(status.message, clusterCannotBeUsed("here", "EndpointNotAllowed"));
    assert.deepEqual(kube.requests, []);
  });

  it("once the policy allows it (--allow-local-endpoints), the same cluster is Connected", async () => {
    const dataDir = server.dataDir;
    await server.stop({ keepData: true });
    server = await startTestServer({ dataDir, clusterCheckIntervalMs: CHECK_INTERVAL_MS, allowLocalEndpoints: true });
    const status = await waitForStatus(server, "here", (s) => s.reason === "Connected");
    assert.equal(status.online, true);
    assert.equal(status.phase, "Initialized");
    assert.ok(
      kube.requests.some((r) => r.startsWith("GET /version")),
      kube.requests.join("\n"),
    );
  });
});
