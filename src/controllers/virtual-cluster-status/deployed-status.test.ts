// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the template references under test are written ${...}
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../api/object.js";
import { desiredInstance } from "./desired-instance.js";
import { nextStatus } from "./instance-status.js";
import type { Observation } from "./observation.js";

/** The deploy's part of a deployed instance's status, and what is deployed (pure). */

const where = { cluster: "prod", namespace: "p-web-v-dev", name: "dev" };
const T1 = "2026-12-07T01:00:00Z";
const deployed = { template: "tiny", version: "1.0.0", parameters: { size: "2" }, objects: [] };

function running(readyReplicas: number, replicas = 2): Observation {
  return {
    found: "Workload",
    where,
    workload: { kind: "StatefulSet", name: "dev", replicas, readyReplicas },
    current: true,
  };
}

describe("a deployed instance's phase", () => {
  it("applied and not all replicas ready is Deploying; all ready is Ready; status.deployed says what", () => {
    const s = nextStatus({}, running(1), T1, { ok: true, deployed });
    assert.equal(s.phase, "Deploying");
    assert.equal(s.reason, "WorkloadNotReady");
    assert.deepEqual(s.deployed, deployed);
    assert.equal(nextStatus(s, running(2), T1, { ok: true, deployed }).phase, "Ready");
  });

  it("a failed deploy is Failed with its reason, and status.deployed still names what ran before", () => {
    const before = nextStatus({}, running(2), T1, { ok: true, deployed });
    const s = nextStatus(before, running(2), T1, { ok: false, reason: "Invalid", message: "StatefulSet dev: bad" });
    assert.equal(s.phase, "Failed");
    assert.equal(s.reason, "Invalid");
    assert.equal(s.message, "StatefulSet dev: bad");
    assert.deepEqual(s.deployed, deployed);
  });

  it("an instance that is not deployed stays Pending while its workload is not ready", () => {
    assert.equal(nextStatus({}, running(1), T1).phase, "Pending");
  });
});

describe("what is deployed for an instance", () => {
  const template = {
    apiVersion: "management.platform/v1",
    kind: "VirtualClusterTemplate",
    metadata: { name: "tiny" },
    spec: {
      versions: [
        {
          version: "1.0.0",
          parameters: [{ name: "size", type: "number", default: "1" }],
          objects: [
            {
              apiVersion: "apps/v1",
              kind: "StatefulSet",
              metadata: { name: "${instance.name}" },
              spec: { replicas: "${params.size}" },
            },
          ],
        },
      ],
    },
  } as unknown as KubeObject;
  const instance = (status: Record<string, unknown> = {}): KubeObject => ({
    apiVersion: "management.platform/v1",
    kind: "VirtualClusterInstance",
    metadata: { name: "dev", namespace: "p-web" },
    spec: {
      clusterRef: { cluster: "prod", namespace: "p-web-v-dev" },
      templateRef: { name: "tiny" },
      parameters: { size: "2" },
    },
    status,
  });
  const ca = { certPem: "CERT", keyPem: "KEY" };

  it("its namespace first, every object labelled with the instance; replicas from the parameters", () => {
    const d = desiredInstance(instance(), template, ca);
    assert.ok(!("reason" in d));
    assert.deepEqual(
      d.objects.map((o) => `${o.kind}/${o.metadata.namespace ?? ""}/${o.metadata.name}`),
      ["Namespace//p-web-v-dev", "StatefulSet/p-web-v-dev/dev"],
    );
    for (const o of d.objects) assert.equal(o.metadata.labels?.["management.platform/virtual-cluster"], "dev");
    assert.equal((d.objects[1]!.spec as { replicas?: unknown }).replicas, 2);
    assert.deepEqual(d.deployed, { template: "tiny", version: "1.0.0", parameters: { size: "2" } });
  });

  it("while it sleeps the workload's replicas are left out: the deploy must not wake it", () => {
    const d = desiredInstance(instance({ sleep: { since: T1, reason: "Requested" } }), template, ca);
    assert.ok(!("reason" in d));
    assert.equal("replicas" in (d.objects[1]!.spec as object), false);
  });

  it("a version that does not exist is a reason, not an exception", () => {
    const i = instance();
    (i.spec as { templateRef: { version?: string } }).templateRef.version = "9.0.0";
    const d = desiredInstance(i, template, ca);
    assert.equal("reason" in d && d.reason, "TemplateVersionNotFound");
  });
});
