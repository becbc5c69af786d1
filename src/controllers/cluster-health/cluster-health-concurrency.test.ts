/**
 * How many cluster checks run at once. This one stays on the in-process stand-in
 * (src/testing/fake-kube-apiserver.ts): seeing the checks overlap needs a cluster that holds
 * each answer back and counts the requests it is answering, which a real kube-apiserver does not
 * do. What a real cluster answers is tested in cluster-health.test.ts.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createCluster, putSecret, waitForStatus } from "../../testing/cluster-status.js";
import { FakeKubeApiServer } from "../../testing/fake-kube-apiserver.js";
import { startTestServer, type TestServer } from "../../testing/test-server.js";

describe("cluster health controller concurrency", () => {
  let server: TestServer;
  let kube: FakeKubeApiServer;
  before(async () => {
    kube = await FakeKubeApiServer.start();
    server = await startTestServer({ clusterCheckIntervalMs: 200, allowLocalEndpoints: true });
  });
  after(async () => {
    await server.stop();
    await kube.stop();
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
});
