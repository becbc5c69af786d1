import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { INGRESS_SUFFIX_ANNOTATION, VIRTUAL_CLUSTER_ENDPOINT_ANNOTATION } from "../../api/endpoint-annotations.js";
import type { KubeObject } from "../../api/object.js";
import type { CertificateAndKey } from "../../crypto/certificates.js";
import type { Registry } from "../../registry/registry.js";
import { GROUP_PATH, type TestServer } from "../../testing/test-server.js";
import {
  type AccessControllerFixture,
  startAccessControllerFixture,
} from "../../testing/virtual-cluster-access-fixture.js";
import { waitFor } from "../../testing/wait-for.js";
import { VirtualClusterCaStore } from "../ca-store.js";
import { VirtualClusterAccessController } from "./virtual-cluster-access-controller.js";

/**
 * The kept CAs, read without the server's key (the copy does not decrypt) until `readable`, then
 * with it: a CA that becomes readable while the controller runs.
 */
class CaReadableLater extends VirtualClusterCaStore {
  readable = false;

  constructor(
    registry: Registry,
    private readonly withKey: VirtualClusterCaStore,
  ) {
    super(registry);
  }

  override forInstance(instance: KubeObject): Promise<CertificateAndKey | undefined> {
    return this.readable ? this.withKey.forInstance(instance) : super.forInstance(instance);
  }
}

/**
 * When a pass of the access controller fails, what is retried with the queue's backoff and what
 * waits for a change. Its resync never comes during the test (an hour), so only a retry or an
 * event brings the next pass; the backoff is short, so a retry comes at once.
 */
describe("the access controller's next pass after a failure", () => {
  let fixture: AccessControllerFixture;
  let server: TestServer;
  let cas: CaReadableLater;
  let controller: VirtualClusterAccessController | undefined;

  const reasonOf = (name: string, reason: string) =>
    waitFor(
      `status.access of ${name} saying ${reason}`,
      () => fixture.accessOf(name),
      (access) => access[0]?.reason === reason,
    );

  before(async () => {
    // With the virtual cluster's API server stand-in, which counts the connections (each pass
    // that gets as far as calling it) and drops them.
    fixture = await startAccessControllerFixture({ allowLocalEndpoints: true });
    server = fixture.server;
    cas = new CaReadableLater(server.registry, await fixture.keptCas());
    controller = new VirtualClusterAccessController(
      server.registry,
      server.informers,
      cas,
      { allowLocal: true },
      { resyncMs: 3_600_000, retryMaxMs: 50 },
    );
    await controller.start();
  });
  after(async () => {
    await controller?.stop();
    await fixture?.stop();
  });

  it("a CA that cannot be read is retried with backoff, and used once it can be", async () => {
    // From a template: the platform keeps its CA.
    await fixture.readyInstance("dev", { endpoint: fixture.endpoint.url, fromTemplate: true });
    await reasonOf("dev", "CertificateAuthorityUnavailable");
    assert.equal(fixture.connections(), 0, "nothing is sent to the virtual cluster without its CA");

    cas.readable = true;
    // Read with the key now: the pass gets as far as calling the virtual cluster.
    const [binding] = await reasonOf("dev", "ClusterUnreachable");
    assert.match(
      binding?.message ?? "",
      new RegExp(`^cannot reach the cluster at https://127\\.0\\.0\\.1:${fixture.endpoint.port}`),
    );
    assert.ok(fixture.connections() > 0);
  });

  it("an instance without endpoint says EndpointNotSet, and its cluster's ingress suffix is used once set", async () => {
    await fixture.readyInstance("bare", { fromTemplate: true });
    const [binding] = await reasonOf("bare", "EndpointNotSet");
    assert.equal(binding?.applied, false);
    // Which is missing, and how to set it.
    assert.equal(
      binding?.message,
      `virtual cluster p-web/bare has no endpoint: set annotation ${VIRTUAL_CLUSTER_ENDPOINT_ANNOTATION} on it to the URL of its API server, or ${INGRESS_SUFFIX_ANNOTATION} on cluster "c1" (its endpoint is then https://bare.web.<suffix>); neither is set`,
    );

    // The suffix on the cluster queues its instances: the endpoint is https://bare.web.<suffix>
    // now, whose name does not resolve here.
    const cluster = await server.request("PATCH", `${GROUP_PATH}/clusters/c1`, {
      contentType: "application/merge-patch+json",
      body: { metadata: { annotations: { [INGRESS_SUFFIX_ANNOTATION]: "vc.invalid" } } },
    });
    assert.equal(cluster.status, 200, cluster.text);
    const [after] = await waitFor(
      "status.access of bare calling its endpoint",
      () => fixture.accessOf("bare"),
      (access) => access[0]?.reason !== undefined && access[0].reason !== "EndpointNotSet",
    );
    assert.match(after?.message ?? "", /https:\/\/bare\.web\.vc\.invalid/);
  });
});
