import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { errors } from "../../api/errors.js";
import { classifyError } from "../../clusters/cluster-connection.js";
import type { InsideBinding } from "../../kinds/virtual-cluster-instance/virtual-cluster-instance-status.js";
import type { TestServer } from "../../testing/test-server.js";
import {
  type AccessControllerFixture,
  startAccessControllerFixture,
} from "../../testing/virtual-cluster-access-fixture.js";
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
  let fixture: AccessControllerFixture;
  let server: TestServer;
  let controller: VirtualClusterAccessController | undefined;

  before(async () => {
    fixture = await startAccessControllerFixture();
    server = fixture.server;
  });
  after(async () => {
    await controller?.stop();
    await fixture?.stop();
  });

  it("an instance without endpoint: status.access names the instance and what to set", async () => {
    await fixture.readyInstance("dev", { fromTemplate: false });
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
      access = await fixture.accessOf("dev");
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
    // From a template: the platform keeps its CA, which this controller's store (without the
    // server's key) cannot read.
    await fixture.readyInstance("dev2", { endpoint: "https://dev2.vc.example.test", fromTemplate: true });
    let access: InsideBinding[] | undefined;
    for (let i = 0; i < POLLS && !access?.length; i++) {
      await sleep(POLL_MS);
      access = await fixture.accessOf("dev2");
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
