import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { VIRTUAL_CLUSTER_ENDPOINT_ANNOTATION } from "../../api/endpoint-annotations.js";
import { errors } from "../../api/errors.js";
import { classifyError } from "../../clusters/cluster-connection.js";
import type { InsideBinding } from "../../kinds/virtual-cluster-instance/virtual-cluster-instance-status.js";
import { systemContext } from "../../registry/request-context.js";
import { postObject } from "../../testing/gateway-fixture.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../../testing/test-server.js";
import { VirtualClusterCaStore } from "../ca-store.js";
import { VirtualClusterAccessController } from "./virtual-cluster-access-controller.js";

/** Polling bound for the controller's pass (a hang guard; the test asserts on values, not time). */
const POLLS = 200;
const POLL_MS = 25;

/**
 * When the access controller cannot reach a virtual cluster, `status.access` says why, naming
 * what was called: the platform's own reason (no endpoint, a host cluster it could not use) is
 * kept as it is, never turned into "the cluster at <nothing> answered 503".
 */
describe("the access controller's message when a virtual cluster cannot be reached", () => {
  let server: TestServer;
  let controller: VirtualClusterAccessController | undefined;

  before(async () => {
    server = await startTestServer();
    // The server's own controllers would set the phase from the (absent) deployment; this test sets it.
    await server.controllers.stop();
    await postObject(server, "clusters", { metadata: { name: "c1" }, spec: { local: true } });
    await postObject(server, "projects", { metadata: { name: "web" }, spec: {} });
  });
  after(async () => {
    await controller?.stop();
    await server?.stop();
  });

  it("an instance without endpoint: status.access names the instance and what to set", async () => {
    const created = await server.request("POST", `${GROUP_PATH}/namespaces/p-web/virtualclusterinstances`, {
      body: {
        apiVersion: "management.platform/v1",
        kind: "VirtualClusterInstance",
        metadata: { name: "dev" },
        spec: { clusterRef: { cluster: "c1" }, owner: { user: "alice" } },
      },
    });
    assert.equal(created.status, 201, created.text);
    await server.registry.store("virtualclusterinstances").guaranteedUpdate(
      systemContext(),
      "p-web",
      "dev",
      (obj) => {
        obj.status = { ...obj.status, phase: "Ready" };
        return obj;
      },
      "status",
    );
    controller = new VirtualClusterAccessController(
      server.registry,
      server.informers,
      new VirtualClusterCaStore(server.registry),
      { allowLocal: true },
    );
    await controller.start();
    let access: InsideBinding[] | undefined;
    for (let i = 0; i < POLLS && !access?.length; i++) {
      await sleep(POLL_MS);
      const got = await server.request("GET", `${GROUP_PATH}/namespaces/p-web/virtualclusterinstances/dev`);
      access = got.json.status?.access;
    }
    assert.ok(access?.length, "status.access was written");
    const [binding] = access;
    assert.equal(binding?.applied, false);
    assert.match(
      binding?.message ?? "",
      /^virtual cluster p-web\/dev has no endpoint: set annotation management\.platform\/virtual-cluster-endpoint on it/,
    );
  });

  it("a failure of the platform's own step before the call is CertificateAuthorityUnavailable, naming the instance", async () => {
    const endpoint = "https://dev2.vc.example.test";
    const created = await server.request("POST", `${GROUP_PATH}/namespaces/p-web/virtualclusterinstances`, {
      body: {
        apiVersion: "management.platform/v1",
        kind: "VirtualClusterInstance",
        metadata: { name: "dev2", annotations: { [VIRTUAL_CLUSTER_ENDPOINT_ANNOTATION]: endpoint } },
        // Deployed from a template: the platform keeps its CA, which this controller's store
        // (without the server's key) cannot read.
        spec: { clusterRef: { cluster: "c1" }, templateRef: { name: "default" }, owner: { user: "alice" } },
      },
    });
    assert.equal(created.status, 201, created.text);
    await server.registry.store("virtualclusterinstances").guaranteedUpdate(
      systemContext(),
      "p-web",
      "dev2",
      (obj) => {
        obj.status = { ...obj.status, phase: "Ready" };
        return obj;
      },
      "status",
    );
    let access: InsideBinding[] | undefined;
    for (let i = 0; i < POLLS && !access?.length; i++) {
      await sleep(POLL_MS);
      const got = await server.request("GET", `${GROUP_PATH}/namespaces/p-web/virtualclusterinstances/dev2`);
      access = got.json.status?.access;
    }
    assert.ok(access?.length, "status.access was written");
    // Nothing was sent to the virtual cluster: not "unreachable", and what failed is said.
    assert.equal(access[0]?.reason, "CertificateAuthorityUnavailable");
    assert.equal(
      access[0]?.message,
      "virtual cluster p-web/dev2: the platform could not read its certificate authority: what is stored is not a certificate authority it can use (SyntaxError)",
    );
  });

  it("a failure without an address says 'the cluster', never an empty address", () => {
    const own = classifyError(errors.unavailable('cluster "c1" of the virtual cluster does not exist'), "");
    assert.equal(own.message, 'cluster "c1" of the virtual cluster does not exist');
    const answered = classifyError({ code: 503, body: { message: "try later" } }, "");
    assert.equal(answered.message, "the cluster answered 503: try later");
    const at = classifyError({ code: 503, body: { message: "try later" } }, "https://dev.example.com");
    assert.equal(at.message, "the cluster at https://dev.example.com answered 503: try later");
  });
});
