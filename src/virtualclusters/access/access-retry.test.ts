import assert from "node:assert/strict";
import { createServer, type Server } from "node:net";
import { after, before, describe, it } from "node:test";
import { INGRESS_SUFFIX_ANNOTATION, VIRTUAL_CLUSTER_ENDPOINT_ANNOTATION } from "../../api/endpoint-annotations.js";
import type { KubeObject } from "../../api/object.js";
import { loadKeys } from "../../app/keys.js";
import type { CertificateAndKey } from "../../crypto/certificates.js";
import type { InsideBinding } from "../../kinds/virtual-cluster-instance/virtual-cluster-instance-status.js";
import type { Registry } from "../../registry/registry.js";
import { systemContext } from "../../registry/request-context.js";
import { postObject } from "../../testing/gateway-fixture.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../../testing/test-server.js";
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
  let server: TestServer;
  let endpoint: Server;
  let connections = 0;
  let cas: CaReadableLater;
  let controller: VirtualClusterAccessController | undefined;

  const accessOf = async (name: string): Promise<InsideBinding[]> =>
    (await server.request("GET", `${GROUP_PATH}/namespaces/p-web/virtualclusterinstances/${name}`)).json.status
      ?.access ?? [];
  const reasonOf = (name: string, reason: string) =>
    waitFor(
      `status.access of ${name} saying ${reason}`,
      () => accessOf(name),
      (access) => access[0]?.reason === reason,
    );
  const ready = (name: string) =>
    server.registry.store("virtualclusterinstances").guaranteedUpdate(
      systemContext(),
      "p-web",
      name,
      (obj) => {
        obj.status = { ...obj.status, phase: "Ready" };
        return obj;
      },
      "status",
    );

  before(async () => {
    // The virtual cluster's API server stand-in: counts the connections (each pass that gets as
    // far as calling it), and drops them.
    endpoint = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => endpoint.listen(0, "127.0.0.1", resolve));
    server = await startTestServer({ allowLocalEndpoints: true });
    // The server's own controllers would set the phase from the (absent) deployment; this test sets it.
    await server.controllers.stop();
    await postObject(server, "clusters", { metadata: { name: "c1" }, spec: { local: true } });
    await postObject(server, "projects", { metadata: { name: "web" }, spec: {} });
    const { cipher } = await loadKeys({ host: "127.0.0.1", port: 0, dataDir: server.dataDir }, server.dataDir);
    cas = new CaReadableLater(server.registry, new VirtualClusterCaStore(server.registry, cipher));
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
    await server?.stop();
    endpoint?.close();
  });

  it("a CA that cannot be read is retried with backoff, and used once it can be", async () => {
    const port = (endpoint.address() as { port: number }).port;
    await postObject(server, "namespaces/p-web/virtualclusterinstances", {
      metadata: { name: "dev", annotations: { [VIRTUAL_CLUSTER_ENDPOINT_ANNOTATION]: `https://127.0.0.1:${port}` } },
      // Deployed from a template: the platform keeps its CA.
      spec: { clusterRef: { cluster: "c1" }, templateRef: { name: "default" }, owner: { user: "alice" } },
    });
    await ready("dev");
    await reasonOf("dev", "CertificateAuthorityUnavailable");
    assert.equal(connections, 0, "nothing is sent to the virtual cluster without its CA");

    cas.readable = true;
    // Read with the key now: the pass gets as far as calling the virtual cluster.
    const [binding] = await reasonOf("dev", "ClusterUnreachable");
    assert.match(binding?.message ?? "", new RegExp(`^cannot reach the cluster at https://127\\.0\\.0\\.1:${port}`));
    assert.ok(connections > 0);
  });

  it("an instance without endpoint says EndpointNotSet, and its cluster's ingress suffix is used once set", async () => {
    await postObject(server, "namespaces/p-web/virtualclusterinstances", {
      metadata: { name: "bare" },
      spec: { clusterRef: { cluster: "c1" }, templateRef: { name: "default" }, owner: { user: "alice" } },
    });
    await ready("bare");
    const [binding] = await reasonOf("bare", "EndpointNotSet");
    assert.equal(binding?.applied, false);
    // Which is missing, and how to set it.
    assert.equal(
      binding?.message,
      `virtual cluster p-web/bare has no endpoint: set annotation ${VIRTUAL_CLUSTER_ENDPOINT_ANNOTATION} on it to the URL of its API server, or ${INGRESS_SUFFIX_ANNOTATION} on cluster "c1" (its endpoint is then https://bare-web.<suffix>); neither is set`,
    );

    // The suffix on the cluster queues its instances: the endpoint is https://bare-web.<suffix>
    // now, whose name does not resolve here.
    const cluster = await server.request("PATCH", `${GROUP_PATH}/clusters/c1`, {
      contentType: "application/merge-patch+json",
      body: { metadata: { annotations: { [INGRESS_SUFFIX_ANNOTATION]: "vc.invalid" } } },
    });
    assert.equal(cluster.status, 200, cluster.text);
    const [after] = await waitFor(
      "status.access of bare calling its endpoint",
      () => accessOf("bare"),
      (access) => access[0]?.reason !== undefined && access[0].reason !== "EndpointNotSet",
    );
    assert.match(after?.message ?? "", /https:\/\/bare-web\.vc\.invalid/);
  });
});
