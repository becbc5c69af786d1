import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../api/object.js";
import { desiredRbac } from "./desired-rbac.js";

const template = (name: string, spec: Record<string, unknown>, deleting = false): KubeObject => ({
  apiVersion: "management.platform/v1",
  kind: "ClusterRoleTemplate",
  metadata: { name, ...(deleting ? { deletionTimestamp: "2026-01-01T00:00:00Z" } : {}) },
  spec,
});
const access = (name: string, spec: Record<string, unknown>): KubeObject => ({
  apiVersion: "management.platform/v1",
  kind: "ClusterAccess",
  metadata: { name },
  spec,
});
const READ = [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get"] }];

describe("what the platform keeps on one cluster", () => {
  it('a template reaches the clusters it names or "*"; others get nothing', () => {
    const templates = [
      template("a", { clusters: ["c1"], rules: READ }),
      template("b", { clusters: ["*"], rules: READ }),
    ];
    assert.deepEqual(
      desiredRbac("c1", templates, []).map((d) => d.name),
      ["platform:a", "platform:b"],
    );
    assert.deepEqual(
      desiredRbac("c2", templates, []).map((d) => d.name),
      ["platform:b"],
    );
  });

  it("an aggregated template is written without rules, so the cluster's controller owns them", () => {
    const aggregationRule = { clusterRoleSelectors: [{ matchLabels: { x: "y" } }] };
    const [role] = desiredRbac("c1", [template("agg", { clusters: ["c1"], aggregationRule })], []);
    assert.deepEqual(role!.manifest, {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: {
        name: "platform:agg",
        labels: { "app.kubernetes.io/managed-by": "platform", "management.platform/cluster-role-template": "agg" },
      },
      aggregationRule,
    });
  });

  it("a grant is one binding per template and namespace, to the users and the teams' identities", () => {
    const objects = desiredRbac(
      "c1",
      [template("edit", { clusters: ["c1"], rules: READ }), template("view", { clusters: ["c1"], rules: READ })],
      [
        access("g", {
          clusters: ["c1"],
          users: ["ann"],
          teams: ["ops"],
          clusterRoleTemplates: ["edit", "view"],
          namespaces: ["x", "y"],
        }),
      ],
    );
    const bindings = objects.filter((o) => o.kind === "RoleBinding");
    assert.deepEqual(
      bindings.map((b) => `${b.namespace}/${b.name}`),
      ["x/platform:g:edit", "y/platform:g:edit", "x/platform:g:view", "y/platform:g:view"],
    );
    assert.deepEqual(bindings[0]!.manifest!.subjects, [
      { kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "ann" },
      { kind: "Group", apiGroup: "rbac.authorization.k8s.io", name: "platform:team:ops" },
      { kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "platform:team:ops" },
    ]);
    assert.deepEqual(bindings[0]!.manifest!.roleRef, {
      apiGroup: "rbac.authorization.k8s.io",
      kind: "ClusterRole",
      name: "platform:edit",
    });
  });

  it("without namespaces a grant is cluster-wide; a template that does not reach the cluster (or is going) is a problem, not a binding", () => {
    const objects = desiredRbac(
      "c1",
      [
        template("elsewhere", { clusters: ["c2"], rules: READ }),
        template("going", { clusters: ["c1"], rules: READ }, true),
      ],
      [access("g", { clusters: ["*"], users: ["ann"], clusterRoleTemplates: ["elsewhere", "going", "missing"] })],
    );
    assert.deepEqual(
      objects.map((o) => [o.kind, o.name, o.manifest === undefined, o.problem?.reason]),
      [
        ["ClusterRoleBinding", "platform:g:elsewhere", true, "TemplateNotOnCluster"],
        ["ClusterRoleBinding", "platform:g:going", true, "TemplateNotOnCluster"],
        ["ClusterRoleBinding", "platform:g:missing", true, "TemplateNotOnCluster"],
      ],
    );
  });
});
