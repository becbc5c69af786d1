import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CertificateAndKey } from "../../crypto/certificates.js";
import { documentedYamlBlocks } from "../documented-rights.js";
import type { KubeResponse } from "./admin-client.js";
import {
  type AccessReviewSpec,
  type AdminRequests,
  accessReview,
  bindingsIn,
  waitUntilBindingGrants,
} from "./authorizer-grants.js";
import { KubeUsers } from "./users.js";

const SAR_PATH = "/apis/authorization.k8s.io/v1/subjectaccessreviews";

/**
 * The administrator's client, standing in for an API server whose authorizer refuses each
 * SubjectAccessReview until `refusals` of them were answered: as kube-apiserver does while its
 * RBAC watch has not yet delivered a binding just written.
 */
function lateAuthorizer(refusals: number, roles: Record<string, unknown> = {}) {
  const reviews: AccessReviewSpec[] = [];
  const calls: string[] = [];
  const admin: AdminRequests = {
    async must(method, path, body) {
      calls.push(`${method} ${path}`);
      const answer = (status: number, json: unknown): KubeResponse => ({
        status,
        body: json,
        text: JSON.stringify(json),
      });
      if (method === "POST" && path === SAR_PATH) {
        reviews.push((body as { spec: AccessReviewSpec }).spec);
        return answer(201, { status: { allowed: reviews.length > refusals } });
      }
      if (method === "GET") {
        const role = roles[path];
        return role === undefined ? answer(404, { kind: "Status", code: 404 }) : answer(200, role);
      }
      return answer(201, body);
    },
  };
  return { admin, reviews, calls };
}

const SERVICE_ACCOUNT = { kind: "ServiceAccount", name: "platform", namespace: "platform" } as const;

describe("waiting for kube-apiserver's authorizer to grant a binding", () => {
  it("KubeUsers.grant returns only once a review of the granted rule is allowed, not when the binding is stored", async () => {
    const rules = [
      { apiGroups: [""], resources: ["services"], verbs: ["list"] },
      { apiGroups: ["apps"], resources: ["deployments"], verbs: ["get"] },
    ];
    const { admin, reviews, calls } = lateAuthorizer(2, {
      "/apis/rbac.authorization.k8s.io/v1/namespaces/platform/roles/platform-test-grant-1": { rules },
    });
    const users = new KubeUsers(admin, { url: "https://127.0.0.1:1", caPem: "", ca: {} as CertificateAndKey }, "");

    await users.grant({ subject: SERVICE_ACCOUNT }, { rules }, "platform");

    assert.equal(reviews.length, 3, calls.join("\n"));
    // One check for the grant, of its first rule, as the ServiceAccount the binding names.
    assert.deepEqual(reviews[2], {
      user: "system:serviceaccount:platform:platform",
      resourceAttributes: { namespace: "platform", verb: "list", group: "", resource: "services" },
    });
    assert.ok(
      calls.indexOf("POST /apis/rbac.authorization.k8s.io/v1/namespaces/platform/rolebindings") <
        calls.indexOf(`POST ${SAR_PATH}`),
      "the reviews follow the binding",
    );
  });

  it("a ClusterRole granted by name is checked by its first rule, and one with no rules yet is not waited for", async () => {
    const impersonate = { rules: [{ apiGroups: [""], resources: ["users", "groups"], verbs: ["impersonate"] }] };
    const { admin, reviews } = lateAuthorizer(1, {
      "/apis/rbac.authorization.k8s.io/v1/clusterroles/impersonator": impersonate,
      "/apis/rbac.authorization.k8s.io/v1/clusterroles/view": { rules: [] },
    });
    const users = new KubeUsers(admin, { url: "https://127.0.0.1:1", caPem: "", ca: {} as CertificateAndKey }, "");
    const alice = { kind: "User", name: "alice", apiGroup: "rbac.authorization.k8s.io" } as const;

    await users.grant({ subject: alice }, { clusterRole: "impersonator" });
    assert.deepEqual(reviews.at(-1), {
      user: "alice",
      resourceAttributes: { verb: "impersonate", group: "", resource: "users" },
    });
    const before = reviews.length;
    // An aggregated ClusterRole the controller manager has not filled yet grants nothing to wait for.
    await users.grant({ subject: alice }, { clusterRole: "view" });
    assert.equal(reviews.length, before);
  });

  it("a binding's check follows its subject's kind and the rule's subresource, name or non-resource URL", () => {
    assert.deepEqual(
      accessReview(
        { kind: "Group", name: "platform:team:devs" },
        { apiGroups: [""], resources: ["pods/log"], resourceNames: ["api"], verbs: ["get"] },
        "web",
      ),
      {
        groups: ["platform:team:devs"],
        resourceAttributes: {
          namespace: "web",
          verb: "get",
          group: "",
          resource: "pods",
          subresource: "log",
          name: "api",
        },
      },
    );
    assert.deepEqual(accessReview(SERVICE_ACCOUNT, { nonResourceURLs: ["/healthz"], verbs: ["get"] }), {
      user: "system:serviceaccount:platform:platform",
      nonResourceAttributes: { path: "/healthz", verb: "get" },
    });
  });

  it("the bindings of the rights docs/gateway.md grants the platform are each found, with their namespace", () => {
    const bindings = bindingsIn(documentedYamlBlocks()[0]!);
    assert.deepEqual(
      bindings.map((b) => `${b.namespace ?? "(cluster)"} ${b.name} → ${b.roleRef.kind} ${b.roleRef.name}`),
      [
        "(cluster) platform-gateway-impersonator → ClusterRole platform-gateway-impersonator",
        "platform platform-cluster-check → Role platform-cluster-check",
        "team-a platform-virtual-clusters → Role platform-virtual-clusters",
      ],
    );
    assert.deepEqual(bindings[0]!.subjects, [SERVICE_ACCOUNT]);
  });

  it("a binding in a JSON List, or a YAML one without a namespace, is found too", () => {
    const binding = {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: { name: "b" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "edit" },
      subjects: [SERVICE_ACCOUNT],
    };
    const [found] = bindingsIn(
      JSON.stringify({ apiVersion: "v1", kind: "List", items: [{ kind: "Service" }, binding] }),
    );
    assert.equal(found?.namespace, "default");
    assert.equal(found?.roleRef.name, "edit");
  });

  it("waits for each review until allowed: a RoleBinding of a ClusterRole is asked in its namespace", async () => {
    const { admin, reviews } = lateAuthorizer(3, {
      "/apis/rbac.authorization.k8s.io/v1/clusterroles/edit": {
        rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["create"] }],
      },
    });
    await waitUntilBindingGrants(admin, {
      name: "devs-edit",
      namespace: "web",
      roleRef: { kind: "ClusterRole", name: "edit" },
      subjects: [SERVICE_ACCOUNT],
    });
    assert.equal(reviews.length, 4);
    assert.equal(reviews[3]!.resourceAttributes?.namespace, "web");
  });
});
