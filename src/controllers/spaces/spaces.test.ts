// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are space template placeholders
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { waitForStatus } from "../../testing/cluster-status.js";
import { documentedYamlBlocks, manifests } from "../../testing/documented-rights.js";
import { postObject } from "../../testing/gateway-fixture.js";
import { KubectlError } from "../../testing/kube/kubectl.js";
import { type KubeAuditEvent, KubeControlPlane } from "../../testing/kube-control-plane.js";
import {
  connectAsServiceAccount,
  documentedPlatformRole,
  eventually,
  kubectlThroughGateway,
  REAL_CLUSTER_RESYNC_MS,
  refused,
} from "../../testing/platform-on-control-plane.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../../testing/test-server.js";

/**
 * Spaces end to end on a real control plane (docs/spaces.md): the platform's ServiceAccount
 * holds the ClusterRoles docs/spaces.md and docs/cluster-access.md show; teams devs (alice) and
 * ops (olga) may use cluster c1 and are members of project web; template small is the one
 * docs/spaces.md shows (a quota and a limit range; devs may use it). Cluster c2 is the same control plane reached by a ServiceAccount holding only
 * the spaces role, which shows that role is enough on its own.
 */

const SPACES = `${GROUP_PATH}/namespaces/p-web/spaceinstances`;
/** Cluster c1's platform ServiceAccount, as kube-apiserver's audit log names it. */
const PLATFORM_USER = "system:serviceaccount:platform:platform";
const WRITES = new Set(["create", "update", "patch", "delete", "deletecollection"]);

interface SpaceStatus {
  phase?: string;
  reason?: string;
  message?: string;
  namespaceUID?: string;
  conditions?: Array<{ type: string; status: string; reason?: string; message?: string }>;
  objects?: Array<{ kind: string; name: string; applied: boolean; reason?: string; message?: string }>;
}

describe("spaces on a real cluster", () => {
  let server: TestServer;
  let kube: KubeControlPlane;
  let alice: (...args: string[]) => Promise<string>;
  const get = (name: string) => server.request("GET", `${SPACES}/${name}`);
  const statusOf = async (name: string): Promise<SpaceStatus> => (await get(name)).json?.status ?? {};
  const waitForSpace = (name: string, want: (s: SpaceStatus) => boolean) =>
    eventually(`space ${name} reaching the expected status`, async () => {
      const s = await statusOf(name);
      assert.ok(want(s), JSON.stringify(s));
      return s;
    });
  /**
   * The platform's writes in `namespace` ("verb resource/name", those `counted`), waiting first for
   * a pass begun after this call and then three more (a pass lists `passResource`): `quiet` is
   * what those three passes wrote, `all` every write there since the control plane started.
   */
  const writesOverThreePasses = async (
    namespace: string,
    passResource: string,
    counted: (e: KubeAuditEvent) => boolean = () => true,
  ) => {
    const inSpace = (events: KubeAuditEvent[]) =>
      events.filter((e) => e.user.username === PLATFORM_USER && e.objectRef?.namespace === namespace);
    const passes = (events: KubeAuditEvent[]) =>
      inSpace(events).filter((e) => e.verb === "list" && e.objectRef?.resource === passResource).length;
    const writes = (events: KubeAuditEvent[]) =>
      inSpace(events)
        .filter((e) => WRITES.has(e.verb) && counted(e))
        .map((e) => `${e.verb} ${e.objectRef?.resource}/${e.objectRef?.name}`);
    const since = async (from: number) => (await kube.auditEvents()).slice(from);
    let from = (await kube.auditEvents()).length;
    await eventually("a pass", async () => assert.ok(passes(await since(from)) >= 1));
    from = (await kube.auditEvents()).length;
    const quiet = await eventually("three passes", async () => {
      const events = await since(from);
      assert.ok(passes(events) >= 3);
      return events;
    });
    return { quiet: writes(quiet), all: writes(await kube.auditEvents()) };
  };
  const createSpace = (name: string, spec: Record<string, unknown>) =>
    postObject(server, "namespaces/p-web/spaceinstances", { metadata: { name }, spec });
  const onCluster = async (...args: string[]) =>
    kube.kubectl("get", ...args, "-o", "name").then(
      (out) => out.trim(),
      (err) => {
        if (err instanceof KubectlError && /NotFound/.test(err.stderr)) return "";
        throw err;
      },
    );
  const names = async (...args: string[]) =>
    (await kube.kubectl("get", ...args, "-o", "name")).split("\n").filter(Boolean).sort();

  before(async () => {
    kube = await KubeControlPlane.start({ audit: true });
    server = await startTestServer({ clusterCheckIntervalMs: REAL_CLUSTER_RESYNC_MS, allowLocalEndpoints: true });
    await kube.kubectl("create", "namespace", "platform");
    const spacesRole = documentedPlatformRole("docs/spaces.md");
    const spec = { access: [{ verbs: ["use"], teams: ["devs", "ops"] }] };
    const clusterAccessRole = documentedPlatformRole("docs/cluster-access.md");
    await connectAsServiceAccount(server, kube, {
      cluster: "c1",
      account: "platform",
      roles: [spacesRole, clusterAccessRole],
      spec,
    });
    await connectAsServiceAccount(server, kube, { cluster: "c2", account: "spaces-only", roles: [spacesRole], spec });
    for (const user of ["alice", "olga"]) await postObject(server, "users", { metadata: { name: user }, spec: {} });
    await postObject(server, "teams", { metadata: { name: "devs" }, spec: { users: ["alice"] } });
    await postObject(server, "teams", { metadata: { name: "ops" }, spec: { users: ["olga"] } });
    await postObject(server, "projects", {
      metadata: { name: "web" },
      spec: {
        allowedClusters: [{ name: "*" }],
        members: [
          { kind: "Team", name: "devs" },
          { kind: "Team", name: "ops" },
        ],
      },
    });
    // The template docs/spaces.md shows (a quota and a limit range), as written.
    const [documented] = manifests(documentedYamlBlocks("docs/spaces.md", "## Templates")[0] ?? "");
    assert.equal(documented?.metadata?.name, "small");
    await postObject(server, "spacetemplates", documented);
    await waitForStatus(server, "c1", (s) => s.online === true);
    alice = await kubectlThroughGateway(server, "c1", "alice");
  });
  after(async () => {
    await server?.stop();
    await kube?.stop();
  });

  it("a space is Ready with its namespace, quota, limit range and owner binding on the cluster, all the platform's", async () => {
    await createSpace("devs-space", {
      owner: { team: "devs" },
      clusterRef: { cluster: "c1" },
      templateRef: { name: "small" },
      parameters: { pods: "7" },
    });
    const status = await waitForSpace("devs-space", (s) => s.phase === "Ready");
    const ns = JSON.parse(await kube.kubectl("get", "namespace", "devs-space", "-o", "json"));
    assert.equal(status.namespaceUID, ns.metadata.uid);
    assert.equal(ns.metadata.labels.tier, "bronze");
    assert.equal(ns.metadata.annotations["owner-project"], "web");
    assert.equal(ns.metadata.labels["app.kubernetes.io/managed-by"], "platform");
    assert.equal(ns.metadata.labels["management.platform/project"], "web");
    assert.equal(ns.metadata.labels["management.platform/space"], "devs-space");
    const quota = JSON.parse(
      await kube.kubectl("get", "resourcequota", "quota", "-n", "devs-space", "-o", "json", "--show-managed-fields"),
    );
    assert.equal(quota.spec.hard.pods, "7");
    assert.ok(
      quota.metadata.managedFields.some(
        (f: { manager: string; operation: string }) => f.manager === "platform-spaces" && f.operation === "Apply",
      ),
    );
    assert.equal(await onCluster("limitrange", "limits", "-n", "devs-space"), "limitrange/limits");
    // As docs/clusters.md shows it ("What the platform writes to a cluster").
    assert.equal(
      await kube.kubectl("get", "limitrange", "limits", "-n", "devs-space", "-o", "jsonpath={.spec.limits[0].default}"),
      '{"memory":"256Mi"}',
    );
    const owner = JSON.parse(
      await kube.kubectl("get", "rolebinding", "platform:space-owner", "-n", "devs-space", "-o", "json"),
    );
    assert.equal(owner.roleRef.name, "admin");
    assert.deepEqual(
      owner.subjects.map((s: { kind: string; name: string }) => `${s.kind}:${s.name}`),
      ["Group:platform:team:devs", "User:platform:team:devs"],
    );
    assert.deepEqual(
      status.conditions?.map((c) => `${c.type}=${c.status}`),
      ["Ready=True"],
    );
    assert.deepEqual(
      status.objects?.map((o) => `${o.kind}/${o.name}:${o.applied}`),
      [
        "Namespace/devs-space:true",
        "RoleBinding/platform:space-owner:true",
        "ResourceQuota/quota:true",
        "LimitRange/limits:true",
      ],
    );
  });

  it("a pass over a space that is as desired reads its namespace once: its own apply answers the rest", async () => {
    const byPlatform = (e: KubeAuditEvent) => e.user.username === PLATFORM_USER;
    // Each pass lists the space's quotas (what it keeps), and reads its namespace first.
    const isPass = (e: KubeAuditEvent) =>
      byPlatform(e) &&
      e.verb === "list" &&
      e.objectRef?.resource === "resourcequotas" &&
      e.objectRef.namespace === "devs-space";
    const isRead = (e: KubeAuditEvent) =>
      byPlatform(e) && e.verb === "get" && e.objectRef?.resource === "namespaces" && e.objectRef.name === "devs-space";
    const from = (await kube.auditEvents()).length;
    const events = await eventually("four passes over the space", async () => {
      const since = (await kube.auditEvents()).slice(from);
      assert.ok(since.filter(isPass).length >= 4);
      return since;
    });
    const marks = events.filter((e) => isPass(e) || isRead(e)).map((e) => (isPass(e) ? "list" : "get"));
    // From one pass's list to the next's: the next pass's read, and no read again after the apply.
    const between = marks.slice(marks.indexOf("list"), marks.lastIndexOf("list") + 1);
    const alternating = between.map((_, i) => (i % 2 === 0 ? "list" : "get"));
    assert.deepEqual(between, alternating, marks.join(" "));
  });

  it("a team member's kubectl through the gateway creates a Deployment in the team's space, and is refused in another team's", async () => {
    await createSpace("ops-space", {
      owner: { team: "ops" },
      clusterRef: { cluster: "c1" },
      templateRef: { name: "small" },
    });
    await waitForSpace("ops-space", (s) => s.phase === "Ready");
    await eventually("alice creating a Deployment", () =>
      alice("create", "deployment", "web", "--image=nginx", "-n", "devs-space"),
    );
    assert.match(await alice("get", "deployments", "-n", "devs-space", "-o", "name"), /deployment.apps\/web/);
    assert.match(
      await refused(alice("get", "pods", "-n", "ops-space")),
      /User "alice" cannot list resource "pods" in API group "" in the namespace "ops-space"/,
    );
    assert.match(await refused(alice("get", "secrets", "-n", "ops-space")), /cannot list resource "secrets"/);
    assert.match(
      await refused(alice("create", "deployment", "x", "--image=nginx", "-n", "ops-space")),
      /cannot create resource "deployments"/,
    );
  });

  it("an access rule's clusterRole binds that role for its team in the namespace", async () => {
    const patch = await server.request("PATCH", `${SPACES}/ops-space`, {
      contentType: "application/merge-patch+json",
      body: { spec: { access: [{ verbs: ["get"], teams: ["devs"], clusterRole: "view" }] } },
    });
    assert.equal(patch.status, 200, patch.text);
    await eventually("alice reading pods in ops-space", () => alice("get", "pods", "-n", "ops-space"));
    assert.match(await refused(alice("get", "secrets", "-n", "ops-space")), /cannot list resource "secrets"/);
    assert.match(
      await refused(alice("create", "configmap", "x", "-n", "ops-space")),
      /cannot create resource "configmaps"/,
    );
  });

  it("a quota or binding deleted by hand is back within one resync; an object the template drops is removed", async () => {
    await kube.kubectl("delete", "resourcequota", "quota", "-n", "devs-space");
    await kube.kubectl("delete", "rolebinding", "platform:space-owner", "-n", "devs-space");
    await eventually("the quota and the binding coming back", async () => {
      assert.equal(await onCluster("resourcequota", "quota", "-n", "devs-space"), "resourcequota/quota");
      assert.equal(
        await onCluster("rolebinding", "platform:space-owner", "-n", "devs-space"),
        "rolebinding.rbac.authorization.k8s.io/platform:space-owner",
      );
    });
    await kube.kubectl("create", "configmap", "hand-made", "-n", "devs-space");
    const template = await server.request("PATCH", `${GROUP_PATH}/spacetemplates/small`, {
      contentType: "application/json-patch+json",
      body: [{ op: "remove", path: "/spec/template/objects/1" }],
    });
    assert.equal(template.status, 200, template.text);
    await eventually("the limit range going", async () => {
      assert.equal(await onCluster("limitrange", "limits", "-n", "devs-space"), "");
    });
    assert.equal(
      await onCluster("configmap", "hand-made", "-n", "devs-space"),
      "configmap/hand-made",
      "what the platform did not make stays",
    );
    assert.equal(await onCluster("resourcequota", "quota", "-n", "devs-space"), "resourcequota/quota");
  });

  it('a space whose quantities the cluster keeps in another form ("1000m" as "1") is applied once, then left alone', async () => {
    await createSpace("quantities", {
      owner: { team: "devs" },
      clusterRef: { cluster: "c1" },
      template: {
        objects: [
          {
            apiVersion: "v1",
            kind: "ResourceQuota",
            metadata: { name: "quota" },
            spec: { hard: { "limits.cpu": "1000m", "limits.memory": "1024Mi" } },
          },
          {
            apiVersion: "v1",
            kind: "LimitRange",
            metadata: { name: "limits" },
            spec: { limits: [{ type: "Container", max: { cpu: "1000m", memory: "1024Mi" } }] },
          },
        ],
      },
    });
    await waitForSpace("quantities", (s) => s.phase === "Ready");
    const quota = JSON.parse(await kube.kubectl("get", "resourcequota", "quota", "-n", "quantities", "-o", "json"));
    assert.deepEqual(quota.spec.hard, { "limits.cpu": "1", "limits.memory": "1Gi" }, "kept in the cluster's form");

    // A pass of the space lists its quotas.
    const { quiet, all } = await writesOverThreePasses("quantities", "resourcequotas");
    assert.deepEqual(quiet, []);
    const applied = all.filter((w) => /quota|limits/.test(w));
    assert.deepEqual(applied.sort(), ["patch limitranges/limits", "patch resourcequotas/quota"], "each applied once");
    assert.equal((await server.request("DELETE", `${SPACES}/quantities`)).status, 200);
    await eventually("the space going", async () => assert.equal((await get("quantities")).status, 404));
  });

  it("a LimitRange's default and a NetworkPolicy's from and to are on the cluster as written, each applied once", async () => {
    // Field names the client library's typed models rename (`default`, `from`): written and read
    // back as plain JSON, they reach the cluster and compare equal on later passes.
    const limits = {
      type: "Container",
      default: { cpu: "500m", memory: "256Mi" },
      defaultRequest: { cpu: "250m", memory: "128Mi" },
    };
    const policy = {
      podSelector: { matchLabels: { app: "api" } },
      policyTypes: ["Ingress", "Egress"],
      ingress: [
        {
          from: [
            { podSelector: { matchLabels: { role: "frontend" } } },
            { namespaceSelector: { matchLabels: { team: "web" } } },
          ],
          ports: [{ protocol: "TCP", port: 8080 }],
        },
      ],
      egress: [
        {
          to: [
            { namespaceSelector: { matchLabels: { team: "db" } }, podSelector: { matchLabels: { role: "postgres" } } },
          ],
          ports: [{ protocol: "TCP", port: 5432 }],
        },
      ],
    };
    await createSpace("fenced", {
      owner: { team: "devs" },
      clusterRef: { cluster: "c1" },
      template: {
        objects: [
          { apiVersion: "v1", kind: "LimitRange", metadata: { name: "defaults" }, spec: { limits: [limits] } },
          { apiVersion: "networking.k8s.io/v1", kind: "NetworkPolicy", metadata: { name: "api" }, spec: policy },
        ],
      },
    });
    await waitForSpace("fenced", (s) => s.phase === "Ready");
    const onKube = async (kind: string, name: string) =>
      JSON.parse(await kube.kubectl("get", kind, name, "-n", "fenced", "-o", "json"));
    assert.deepEqual((await onKube("limitrange", "defaults")).spec.limits, [limits]);
    assert.deepEqual((await onKube("networkpolicy", "api")).spec, policy);

    // A pass of the space lists its limit ranges; its namespace's own writes are not counted.
    const { quiet, all } = await writesOverThreePasses(
      "fenced",
      "limitranges",
      (e) => e.objectRef?.resource !== "namespaces",
    );
    assert.deepEqual(quiet, []);
    const applied = all.filter((w) => !w.startsWith("patch rolebindings/"));
    assert.deepEqual(applied.sort(), ["patch limitranges/defaults", "patch networkpolicies/api"], "each applied once");
    assert.equal((await server.request("DELETE", `${SPACES}/fenced`)).status, 200);
    await eventually("the space going", async () => assert.equal((await get("fenced")).status, 404));
  });

  it("a namespace that exists and is not the platform's is refused, never adopted, and kept when the space goes", async () => {
    await kube.kubectl("create", "namespace", "taken");
    await createSpace("grab", { clusterRef: { cluster: "c1", namespace: "taken" }, templateRef: { name: "small" } });
    const status = await waitForSpace("grab", (s) => s.phase === "Failed");
    assert.equal(status.reason, "NamespaceNotOwned");
    assert.match(
      String(status.message),
      /namespace "taken" already exists on the cluster and was not made by this space/,
    );
    assert.equal(await onCluster("resourcequota", "-n", "taken"), "");
    const ns = JSON.parse(await kube.kubectl("get", "namespace", "taken", "-o", "json"));
    assert.equal(ns.metadata.labels["app.kubernetes.io/managed-by"], undefined);
    assert.equal((await server.request("DELETE", `${SPACES}/grab`)).status, 200);
    await eventually("the space going", async () => assert.equal((await get("grab")).status, 404));
    assert.equal(await onCluster("namespace", "taken"), "namespace/taken");
  });

  it("a deleted space waits for its namespace to be gone from the cluster, then goes", async () => {
    const del = await server.request("DELETE", `${SPACES}/ops-space`);
    assert.equal(del.status, 200, del.text);
    // Its first pass deletes the namespace and reports that it waits.
    const deleting = await waitForSpace("ops-space", (s) => s.phase === "Deleting");
    assert.equal(deleting.reason, "NamespaceTerminating");
    await eventually("the space going", async () => assert.equal((await get("ops-space")).status, 404));
    assert.equal(await onCluster("namespace", "ops-space"), "", "the instance went only after the namespace");
  });

  it("an object of a cluster-scoped kind or of a kind the cluster does not serve is refused, never written cluster-wide", async () => {
    await createSpace("sneaky", {
      clusterRef: { cluster: "c1" },
      template: {
        objects: [
          {
            apiVersion: "rbac.authorization.k8s.io/v1",
            kind: "ClusterRoleBinding",
            metadata: { name: "sneaky" },
            roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "cluster-admin" },
            subjects: [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "alice" }],
          },
          { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w" } },
          // Not a group version: in a URL it would walk to another API's path.
          {
            apiVersion: "../../api/v1",
            kind: "ResourceQuota",
            metadata: { name: "dotted" },
            spec: { hard: { pods: "1" } },
          },
          { apiVersion: "v1", kind: "ResourceQuota", metadata: { name: "fine" }, spec: { hard: { pods: "1" } } },
          // The platform's documented rights do not cover ConfigMaps: the cluster's refusal shows.
          { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "unlisted" } },
        ],
      },
    });
    const status = await waitForSpace("sneaky", (s) => s.phase === "Failed");
    const byName = Object.fromEntries((status.objects ?? []).map((o) => [`${o.kind}/${o.name}`, o]));
    assert.equal(byName["ClusterRoleBinding/sneaky"]?.applied, false);
    assert.equal(byName["ClusterRoleBinding/sneaky"]?.reason, "NotNamespaced");
    assert.equal(byName["Widget/w"]?.reason, "KindNotFound");
    assert.equal(byName["ResourceQuota/dotted"]?.reason, "KindNotFound");
    assert.equal(byName["ResourceQuota/fine"]?.applied, true);
    assert.equal(byName["ConfigMap/unlisted"]?.reason, "Forbidden");
    assert.match(
      String(byName["ConfigMap/unlisted"]?.message),
      /on the cluster at "c1" \(403 Forbidden\): configmaps "unlisted" is forbidden/,
    );
    assert.doesNotMatch(JSON.stringify(status), /https:|127\.0\.0\.1/, "no cluster address in a space's status");
    assert.equal(await onCluster("clusterrolebinding", "sneaky"), "");
    assert.equal(await onCluster("resourcequota", "fine", "-n", "sneaky"), "resourcequota/fine");
    assert.equal((await server.request("DELETE", `${SPACES}/sneaky`)).status, 200);
    await eventually("the space going", async () => assert.equal((await get("sneaky")).status, 404));
  });

  it("the ServiceAccount holding only the documented spaces role makes a space", async () => {
    await createSpace("on-c2", {
      owner: { user: "olga" },
      clusterRef: { cluster: "c2" },
      templateRef: { name: "small" },
      access: [{ verbs: ["get"], users: ["alice"], clusterRole: "edit" }],
    });
    const status = await waitForSpace("on-c2", (s) => s.phase === "Ready" || s.phase === "Failed");
    assert.equal(status.phase, "Ready", JSON.stringify(status));
  });

  it("with the cluster stopped, spaces created and deleted are applied once it is back: nothing lost, nothing doubled", async () => {
    await createSpace("before-stop", { clusterRef: { cluster: "c1" }, templateRef: { name: "small" } });
    await waitForSpace("before-stop", (s) => s.phase === "Ready");
    await kube.stopApiServer();
    try {
      for (const name of ["while-down-1", "while-down-2"]) {
        await createSpace(name, {
          owner: { team: "devs" },
          clusterRef: { cluster: "c1" },
          templateRef: { name: "small" },
        });
      }
      assert.equal((await server.request("DELETE", `${SPACES}/before-stop`)).status, 200);
      const pending = await waitForSpace("while-down-1", (s) => s.phase === "Pending");
      assert.equal(pending.reason, "ClusterUnreachable");
      // The reason only: the Cluster's address and the client's words are for the Cluster's readers.
      const cannotUse = `cluster "c1" cannot be used (ClusterUnreachable); the Cluster's status says why`;
      assert.equal(pending.message, cannotUse);
      assert.deepEqual(
        pending.conditions?.map((c) => `${c.type}=${c.status}:${c.reason}`),
        ["Ready=False:ClusterUnreachable"],
      );
      const deleting = await waitForSpace("before-stop", (s) => s.phase === "Deleting");
      assert.equal(deleting.reason, "ClusterUnreachable");
      assert.equal(deleting.message, cannotUse);
    } finally {
      await kube.startApiServer();
    }
    for (const name of ["while-down-1", "while-down-2"]) await waitForSpace(name, (s) => s.phase === "Ready");
    await eventually("the deleted space going", async () => assert.equal((await get("before-stop")).status, 404));
    assert.equal(await onCluster("namespace", "before-stop"), "");
    assert.deepEqual(await names("namespaces", "-l", "management.platform/project=web"), [
      "namespace/devs-space",
      "namespace/on-c2",
      "namespace/while-down-1",
      "namespace/while-down-2",
    ]);
    for (const ns of ["while-down-1", "while-down-2"]) {
      assert.deepEqual(await names("resourcequotas", "-n", ns), ["resourcequota/quota"]);
      assert.deepEqual(await names("rolebindings", "-n", ns), [
        "rolebinding.rbac.authorization.k8s.io/platform:space-owner",
      ]);
    }
  });
});
