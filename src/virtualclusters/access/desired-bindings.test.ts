import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../api/object.js";
import { desiredBindings } from "./desired-bindings.js";

const instance = (spec: Record<string, unknown>): KubeObject => ({
  apiVersion: "management.platform/v1",
  kind: "VirtualClusterInstance",
  metadata: { name: "vc", namespace: "p-a" },
  spec,
});
const names = (objects: ReturnType<typeof desiredBindings>) =>
  objects.map((o) => [
    o.metadata.name,
    (o.roleRef as { name: string }).name,
    (o.subjects as Array<{ kind: string; name: string }>).map((s) => `${s.kind}/${s.name}`),
  ]);

describe("the bindings inside a virtual cluster", () => {
  it("the owner and a `use` rule without a role get cluster-admin; a named role gets its own binding", () => {
    const objects = desiredBindings(
      instance({
        owner: { user: "olga" },
        access: [
          { verbs: ["use"], users: ["ann"] },
          { verbs: ["get", "use"], teams: ["ops"], clusterRole: "view" },
        ],
      }),
    );
    assert.deepEqual(names(objects), [
      ["platform:vcluster-access:cluster-admin", "cluster-admin", ["User/olga", "User/ann"]],
      ["platform:vcluster-access:view", "view", ["Group/platform:team:ops", "User/platform:team:ops"]],
    ]);
    assert.deepEqual(objects[0]!.metadata.labels, {
      "app.kubernetes.io/managed-by": "platform",
      "management.platform/virtual-cluster-access": "true",
    });
  });

  it("a rule without `use` (or `*`) binds nobody, and `*` users are never bound", () => {
    const objects = desiredBindings(
      instance({
        access: [
          { verbs: ["get", "list"], users: ["reader"] },
          { verbs: ["*"], users: ["*", "root"] },
        ],
      }),
    );
    assert.deepEqual(names(objects), [["platform:vcluster-access:cluster-admin", "cluster-admin", ["User/root"]]]);
  });

  it("nobody with `use`: no binding at all", () => {
    assert.deepEqual(desiredBindings(instance({ access: [{ verbs: ["get"], users: ["x"] }] })), []);
  });
});
