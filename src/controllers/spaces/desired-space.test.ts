// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are space template placeholders
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../api/object.js";
import { desiredSpace, spaceBody } from "./desired-space.js";

const space = (spec: Record<string, unknown>): KubeObject => ({
  apiVersion: "management.platform/v1",
  kind: "SpaceInstance",
  metadata: { name: "web-dev", namespace: "p-web" },
  spec: { clusterRef: { cluster: "c1", namespace: "web-dev-ns" }, ...spec },
});
const template: KubeObject = {
  apiVersion: "management.platform/v1",
  kind: "SpaceTemplate",
  metadata: { name: "small" },
  spec: {
    parameters: [{ name: "pods", type: "number", required: true }],
    template: {
      labels: { team: "${space.project}" },
      objects: [
        {
          apiVersion: "v1",
          kind: "ResourceQuota",
          metadata: { name: "q", labels: { "app.kubernetes.io/part-of": "x" } },
          spec: { hard: { pods: "${params.pods}" } },
        },
      ],
    },
  },
};

describe("what one space is on its cluster", () => {
  it("the namespace, the owner's and the rules' bindings, the template's objects, all labelled as the space's", () => {
    const s = space({
      owner: { team: "devs" },
      templateRef: { name: "small" },
      parameters: { pods: "4" },
      access: [
        { verbs: ["get"], users: ["bob", "*"], clusterRole: "view" },
        { verbs: ["get"], users: ["carol"] },
        { verbs: ["get"], users: ["*"], clusterRole: "edit" },
      ],
    });
    const body = spaceBody(s, template);
    assert.ok(!("reason" in body));
    const desired = desiredSpace(s, body);
    const own = {
      "app.kubernetes.io/managed-by": "platform",
      "management.platform/project": "web",
      "management.platform/space": "web-dev",
    };
    assert.equal(desired.namespace, "web-dev-ns");
    assert.deepEqual(
      desired.objects.map((o) => `${o.kind}/${o.metadata.namespace ?? ""}/${o.metadata.name}`),
      [
        "Namespace//web-dev-ns",
        "RoleBinding/web-dev-ns/platform:space-owner",
        "RoleBinding/web-dev-ns/platform:space-access-0",
        "ResourceQuota/web-dev-ns/q",
      ],
      "a rule without clusterRole binds nothing, and * names nobody inside",
    );
    assert.deepEqual(desired.objects[0]!.metadata.labels, { team: "web", ...own });
    assert.deepEqual(desired.objects[1]!.subjects, [
      { kind: "Group", apiGroup: "rbac.authorization.k8s.io", name: "platform:team:devs" },
      { kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "platform:team:devs" },
    ]);
    assert.deepEqual(desired.objects[2]!.subjects, [
      { kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "bob" },
    ]);
    assert.deepEqual(desired.objects[3]!.spec, { hard: { pods: 4 } });
    assert.deepEqual(desired.objects[3]!.metadata.labels, { "app.kubernetes.io/part-of": "x", ...own });
  });

  it("a missing template or parameters that no longer fit are problems, not objects", () => {
    assert.deepEqual(spaceBody(space({ templateRef: { name: "small" } }), undefined), {
      reason: "TemplateNotFound",
      message: 'SpaceTemplate "small" does not exist',
    });
    const bad = spaceBody(space({ templateRef: { name: "small" } }), template);
    assert.equal("reason" in bad && bad.reason, "ParametersInvalid");
  });
});
