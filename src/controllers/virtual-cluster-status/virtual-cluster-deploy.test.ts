// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the template references under test are written ${...}
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { VirtualClusterInstanceStatus } from "../../kinds/virtual-cluster-instance/virtual-cluster-instance-status.js";
import { waitForStatus as waitForCluster } from "../../testing/cluster-status.js";
import { postObject } from "../../testing/gateway-fixture.js";
import type { KubeAuditEvent, KubeControlPlane, KubeUser } from "../../testing/kube-control-plane.js";
import { documentedPlatformRole, startPlatformOnControlPlane } from "../../testing/platform-on-control-plane.js";
import { GROUP_PATH, type TestServer } from "../../testing/test-server.js";
import { STAND_IN_WORKLOAD } from "../../testing/virtual-cluster-workload.js";
import { waitFor } from "../../testing/wait-for.js";
import { WITHHELD } from "./ca-key-echo.js";

/**
 * Virtual clusters deployed from templates on a real control plane (docs/virtual-clusters.md,
 * "Lifecycle"): the platform's account holds exactly the rights docs/gateway.md lists, read
 * from the page; the StatefulSet's ready replicas come from kube-controller-manager's own
 * controller and pods the kubelet stand-in reports ready (no container runs).
 */

const INSTANCES = `${GROUP_PATH}/namespaces/p-web/virtualclusterinstances`;

function settings(version: string) {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "${instance.name}-settings" },
    stringData: { greeting: "${params.greeting}", version },
  };
}

/** 1.0.0 and 2.0.0 deploy; 3.0.0 renders but the cluster refuses its Service (a port out of range). */
const TINY = {
  metadata: { name: "tiny" },
  spec: {
    access: [{ users: ["*"], verbs: ["get", "use"] }],
    versions: [
      {
        version: "1.0.0",
        parameters: [{ name: "greeting", default: "hi" }],
        objects: [
          ...STAND_IN_WORKLOAD,
          settings("1"),
          { ...settings("1"), metadata: { name: "${instance.name}-old" } },
        ],
      },
      {
        version: "2.0.0",
        parameters: [{ name: "greeting", default: "hi" }],
        objects: [...STAND_IN_WORKLOAD, settings("2")],
      },
      {
        version: "3.0.0",
        parameters: [{ name: "greeting", default: "hi" }],
        objects: [
          {
            apiVersion: "v1",
            kind: "Service",
            metadata: { name: "${instance.name}-broken" },
            spec: { ports: [{ port: 99999 }] },
          },
          ...STAND_IN_WORKLOAD,
        ],
      },
    ],
  },
};

/** Who the platform is on the cluster: ServiceAccount platform/platform. */
const PLATFORM_USER = "system:serviceaccount:platform:platform";
const WRITES = new Set(["create", "update", "patch", "delete", "deletecollection"]);

describe("virtual clusters deployed from templates, on a real cluster", () => {
  let kube: KubeControlPlane;
  let server: TestServer;
  let platform: KubeUser;
  const statusOf = async (name: string): Promise<VirtualClusterInstanceStatus> =>
    (await server.request("GET", `${INSTANCES}/${name}`)).json?.status ?? {};
  const waitForStatus = (name: string, check: (s: VirtualClusterInstanceStatus) => boolean) =>
    waitFor(`status of instance ${name}`, () => statusOf(name), check);
  /** The names of a kind in a namespace on the cluster (empty when the namespace is gone). */
  const namesOn = async (kind: string, namespace: string) =>
    (await kube.kubectl("get", kind, "-n", namespace, "-o", "jsonpath={.items[*].metadata.name}", "--ignore-not-found"))
      .split(" ")
      .filter(Boolean)
      .sort();

  before(async () => {
    // No kubelet stand-in yet: the first test sees a deploy whose workload cannot be ready.
    ({ kube, server, platform } = await startPlatformOnControlPlane({
      cluster: "prod",
      kubelet: false,
      audit: true,
    }));
    for (const project of ["web", "shop"])
      await postObject(server, "projects", { metadata: { name: project }, spec: {} });
    await postObject(server, "virtualclustertemplates", TINY);
  });
  after(async () => {
    await server?.stop();
    await kube?.stop();
  });

  it("created from the default template: its namespace, workload, Services and certs Secret appear; Deploying, then Ready", async () => {
    await postObject(server, "namespaces/p-web/virtualclusterinstances", {
      metadata: { name: "dev" },
      spec: { clusterRef: { cluster: "prod" }, templateRef: { name: "default" } },
    });
    const created = (await server.request("GET", `${INSTANCES}/dev`)).json;
    assert.deepEqual(created.metadata.finalizers, ["management.platform/virtual-cluster-cleanup"]);

    // No node runs pods yet: deployed, the workload cannot be ready, and the instance says so.
    const deploying = await waitForStatus("dev", (s) => s.phase !== undefined && s.phase !== "Pending");
    assert.equal(deploying.phase, "Deploying", JSON.stringify(deploying));
    assert.match(deploying.message ?? "", /^StatefulSet p-web-v-dev\/dev on cluster "prod": /);
    await kube.startKubelet();
    const ready = await waitForStatus("dev", (s) => s.phase === "Ready");
    assert.equal(ready.reason, "WorkloadReady");
    assert.equal(ready.deployed?.template, "default");
    assert.equal(ready.deployed?.version, "1.0.0");
    assert.deepEqual(ready.deployed?.parameters, {});

    const ns = "p-web-v-dev";
    assert.equal(
      await kube.kubectl(
        "get",
        "namespace",
        ns,
        "-o",
        "jsonpath={.metadata.labels.management\\.platform/virtual-cluster}",
      ),
      "dev",
    );
    assert.deepEqual(await namesOn("statefulset", ns), ["dev"]);
    assert.deepEqual(await namesOn("service", ns), ["dev", "dev-headless"].sort());
    assert.ok((await namesOn("secret", ns)).includes("dev-certs"));
    // The certs Secret holds the CA the platform keeps for the instance; never its status.
    assert.doesNotMatch(JSON.stringify(ready), /BEGIN/);
  });

  it("deleted: everything the platform made is gone from the cluster before the instance is; a namespace made by hand stays", async () => {
    await kube.kubectl("create", "namespace", "p-web-v-dev-notes");
    const res = await server.request("DELETE", `${INSTANCES}/dev`);
    assert.equal(res.status, 200, res.text);
    await waitFor(
      "the instance to go",
      async () => (await server.request("GET", `${INSTANCES}/dev`)).status,
      (status) => status === 404,
    );
    // Gone from the platform only once its namespace was gone from the cluster.
    assert.equal(
      (await kube.kubectl("get", "namespace", "p-web-v-dev", "--ignore-not-found", "-o", "name")).trim(),
      "",
    );
    assert.equal(
      (await kube.kubectl("get", "namespace", "p-web-v-dev-notes", "-o", "name")).trim(),
      "namespace/p-web-v-dev-notes",
    );
  });

  it("refuses a namespace it did not make: Failed NamespaceNotOwned, and the namespace is left as it was", async () => {
    await postObject(server, "namespaces/p-web/virtualclusterinstances", {
      metadata: { name: "other" },
      spec: { clusterRef: { cluster: "prod", namespace: "team-a" }, templateRef: { name: "default" } },
    });
    const failed = await waitForStatus("other", (s) => s.phase === "Failed");
    assert.equal(failed.reason, "NamespaceNotOwned");
    assert.deepEqual(await namesOn("statefulset", "team-a"), []);
    const res = await server.request("DELETE", `${INSTANCES}/other`);
    assert.equal(res.status, 200, res.text);
    await waitFor(
      "the instance to go",
      async () => (await server.request("GET", `${INSTANCES}/other`)).status,
      (status) => status === 404,
    );
    assert.equal((await kube.kubectl("get", "namespace", "team-a", "-o", "name")).trim(), "namespace/team-a");
  });

  it("moved to another project: stays Ready in its namespace (same UID, same objects), which it deletes as its own even before it is re-labelled", async () => {
    await postObject(server, "namespaces/p-web/virtualclusterinstances", {
      metadata: { name: "mover" },
      spec: { clusterRef: { cluster: "prod" }, templateRef: { name: "tiny", version: "2.0.0" } },
    });
    const before = await waitForStatus("mover", (s) => s.phase === "Ready");
    const ns = "p-web-v-mover";
    const namespaceField = (path: string) => kube.kubectl("get", "namespace", ns, "-o", `jsonpath={${path}}`);
    const uid = await namespaceField(".metadata.uid");
    assert.equal(before.namespaceUID, uid);

    const move = (from: string, to: string) =>
      server.request("POST", `${GROUP_PATH}/projects/${to}/migratevirtualclusterinstance`, {
        body: {
          apiVersion: "management.platform/v1",
          kind: "ProjectMigrateVirtualClusterInstance",
          sourceVirtualClusterInstance: { name: "mover", namespace: `p-${from}` },
        },
      });
    const moved = await move("web", "shop");
    assert.equal(moved.status, 201, moved.text);
    const MOVED = `${GROUP_PATH}/namespaces/p-shop/virtualclusterinstances/mover`;
    const movedStatus = async (): Promise<VirtualClusterInstanceStatus> =>
      (await server.request("GET", MOVED)).json?.status ?? {};
    // Deployed again for its new project: the namespace's labels name it (or the deploy failed).
    const after = await waitFor(
      "the moved instance deployed again",
      async () => ({
        project: await namespaceField(".metadata.labels.management\\.platform/project"),
        status: await movedStatus(),
      }),
      (v) => v.project === "shop" || v.status.phase === "Failed",
    );
    assert.equal(after.project, "shop", JSON.stringify(after.status));
    const ready = await waitFor(
      "the moved instance Ready",
      movedStatus,
      (s) => s.phase === "Ready" || s.phase === "Failed",
    );
    assert.equal(ready.phase, "Ready", JSON.stringify(ready));
    assert.deepEqual(ready.deployed, before.deployed);
    assert.equal(await namespaceField(".metadata.uid"), uid);
    assert.deepEqual(await namesOn("deployment", ns), ["mover"]);
    assert.deepEqual(await namesOn("secret", ns), ["mover-settings"]);
    assert.equal(
      await kube.kubectl(
        "get",
        "deployment",
        "mover",
        "-n",
        ns,
        "-o",
        "jsonpath={.metadata.labels.management\\.platform/project}",
      ),
      "shop",
    );

    // Moved back and deleted while the cluster cannot be reached: its namespace still names
    // project shop when the platform comes to remove it, and goes by its UID.
    const BACK = `${INSTANCES}/mover`;
    await kube.stopApiServer();
    try {
      const back = await move("shop", "web");
      assert.equal(back.status, 201, back.text);
      const res = await server.request("DELETE", BACK);
      assert.equal(res.status, 200, res.text);
    } finally {
      await kube.startApiServer();
    }
    await waitFor(
      "the instance to go",
      async () => (await server.request("GET", BACK)).status,
      (status) => status === 404,
    );
    assert.equal((await kube.kubectl("get", "namespace", ns, "--ignore-not-found", "-o", "name")).trim(), "");
  });

  it("upgraded to a new version with a changed parameter, its objects change; a version the cluster refuses leaves Failed and the old objects", async () => {
    const settingsOf = async () =>
      JSON.parse(
        await kube.kubectl("get", "secret", "up-settings", "-n", "p-web-v-up", "-o", "jsonpath={.data}"),
      ) as Record<string, string>;
    const decoded = (data: Record<string, string>) =>
      Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v, "base64").toString()]));
    await postObject(server, "namespaces/p-web/virtualclusterinstances", {
      metadata: { name: "up" },
      spec: { clusterRef: { cluster: "prod" }, templateRef: { name: "tiny", version: "1.0.0" } },
    });
    await waitForStatus("up", (s) => s.phase === "Ready");
    assert.deepEqual(decoded(await settingsOf()), { greeting: "hi", version: "1" });
    assert.deepEqual(await namesOn("secret", "p-web-v-up"), ["up-old", "up-settings"]);

    const patch = (body: object) =>
      server.request("PATCH", `${INSTANCES}/up`, { contentType: "application/merge-patch+json", body });
    let res = await patch({ spec: { templateRef: { version: "2.0.0" }, parameters: { greeting: "hello" } } });
    assert.equal(res.status, 200, res.text);
    const upgraded = await waitForStatus("up", (s) => s.deployed?.version === "2.0.0" && s.phase === "Ready");
    assert.deepEqual(upgraded.deployed?.parameters, { greeting: "hello" });
    assert.deepEqual(decoded(await settingsOf()), { greeting: "hello", version: "2" });
    // What 2.0.0 no longer has is removed.
    assert.deepEqual(await namesOn("secret", "p-web-v-up"), ["up-settings"]);

    res = await patch({ spec: { templateRef: { version: "3.0.0" }, parameters: { greeting: "bye" } } });
    assert.equal(res.status, 200, res.text);
    const failed = await waitForStatus("up", (s) => s.phase === "Failed");
    assert.equal(failed.reason, "ClusterError", JSON.stringify(failed));
    // The cluster's own words, naming the cluster by its name on the platform.
    assert.match(failed.message ?? "", /^Service up-broken: the cluster at "prod" answered 422: .*99999/);
    assert.equal(failed.deployed?.version, "2.0.0");
    // Nothing after the refused object applied, nothing pruned: 2.0.0's objects stay as they were.
    assert.deepEqual(decoded(await settingsOf()), { greeting: "hello", version: "2" });
    assert.deepEqual(await namesOn("deployment", "p-web-v-up"), ["up"]);
  });

  it("a refusal quoting the CA key is reported without it: in the status and the Event, which the project's viewers read", async () => {
    // The cluster quotes a label value it refuses; this one is the instance's CA key.
    const leaky = {
      apiVersion: "management.platform/v1",
      kind: "VirtualClusterTemplate",
      metadata: { name: "leaky" },
      spec: {
        versions: [
          {
            version: "1.0.0",
            objects: [
              {
                apiVersion: "v1",
                kind: "Secret",
                metadata: { name: "${instance.name}-ca", labels: { ca: "${ca.key}" } },
              },
            ],
          },
        ],
      },
    };
    await postObject(server, "virtualclustertemplates", leaky);
    await postObject(server, "namespaces/p-web/virtualclusterinstances", {
      metadata: { name: "leak" },
      spec: { clusterRef: { cluster: "prod" }, templateRef: { name: "leaky" } },
    });
    const failed = await waitForStatus("leak", (s) => s.phase === "Failed");
    assert.equal(failed.message, `Secret leak-ca: ${WITHHELD}`, JSON.stringify(failed));
    // The Event is recorded after the status write: waited for, not read at once.
    const events = await waitFor(
      "the instance's Event",
      () =>
        server.request(
          "GET",
          "/kubernetes/management/api/v1/namespaces/p-web/events?fieldSelector=involvedObject.name=leak",
        ),
      (answer) => answer.status === 200 && answer.json.items.length > 0,
    );
    for (const text of [JSON.stringify(failed), events.text]) assert.doesNotMatch(text, /PRIVATE KEY|MIG/);
  });

  it("the cluster stopped during create and during delete: the instance reports it, retries, and ends right", async () => {
    await kube.stopApiServer();
    try {
      await postObject(server, "namespaces/p-web/virtualclusterinstances", {
        metadata: { name: "late" },
        spec: { clusterRef: { cluster: "prod" }, templateRef: { name: "tiny", version: "2.0.0" } },
      });
      const waiting = await waitForStatus("late", (s) => s.reason === "ClusterUnreachable");
      assert.equal(waiting.phase, "Pending");
      assert.equal(
        waiting.message,
        'cluster "prod" cannot be used (ClusterUnreachable); the Cluster\'s status says why',
      );
    } finally {
      await kube.startApiServer();
    }
    const ready = await waitForStatus("late", (s) => s.phase === "Ready");
    assert.equal(ready.deployed?.version, "2.0.0");
    assert.deepEqual(await namesOn("deployment", "p-web-v-late"), ["late"]);

    await kube.stopApiServer();
    try {
      const res = await server.request("DELETE", `${INSTANCES}/late`);
      assert.equal(res.status, 200, res.text);
      const deleting = await waitForStatus("late", (s) => s.phase === "Deleting");
      assert.equal(deleting.reason, "ClusterUnreachable");
      assert.equal(
        deleting.message,
        'cluster "prod" cannot be used (ClusterUnreachable); the Cluster\'s status says why',
      );
      // Kept while its objects cannot be removed.
      assert.equal((await server.request("GET", `${INSTANCES}/late`)).status, 200);
    } finally {
      await kube.startApiServer();
    }
    await waitFor(
      "the instance to go",
      async () => (await server.request("GET", `${INSTANCES}/late`)).status,
      (status) => status === 404,
    );
    assert.equal(
      (await kube.kubectl("get", "namespace", "p-web-v-late", "--ignore-not-found", "-o", "name")).trim(),
      "",
    );
  });

  it("a template's NetworkPolicy is deployed as written: its ingress `from` is kept, never widened to allow-all", async () => {
    // `from` is a field the client library's typed models rename: sent through them, it was dropped.
    await kube.grant(platform, {
      rules: [
        {
          apiGroups: ["networking.k8s.io"],
          resources: ["networkpolicies"],
          verbs: ["list", "create", "patch", "delete"],
        },
      ],
    });
    const policy = {
      podSelector: { matchLabels: { app: "vc-fenced" } },
      policyTypes: ["Ingress"],
      ingress: [
        {
          from: [
            { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "ingress" } } },
            { podSelector: { matchLabels: { role: "gateway" } } },
          ],
          ports: [{ protocol: "TCP", port: 8443 }],
        },
      ],
    };
    await postObject(server, "virtualclustertemplates", {
      metadata: { name: "fenced" },
      spec: {
        versions: [
          {
            version: "1.0.0",
            objects: [
              ...STAND_IN_WORKLOAD,
              { apiVersion: "networking.k8s.io/v1", kind: "NetworkPolicy", metadata: { name: "api" }, spec: policy },
            ],
          },
        ],
      },
    });
    await postObject(server, "namespaces/p-web/virtualclusterinstances", {
      metadata: { name: "fenced" },
      spec: { clusterRef: { cluster: "prod" }, templateRef: { name: "fenced" } },
    });
    const deployed = await waitForStatus("fenced", (s) => s.deployed?.template === "fenced" || s.phase === "Failed");
    assert.notEqual(deployed.phase, "Failed", JSON.stringify(deployed));
    const onKube = JSON.parse(await kube.kubectl("get", "networkpolicy", "api", "-n", "p-web-v-fenced", "-o", "json"));
    assert.deepEqual(onKube.spec, policy);
    const res = await server.request("DELETE", `${INSTANCES}/fenced`);
    assert.equal(res.status, 200, res.text);
    await waitFor(
      "the instance to go",
      async () => (await server.request("GET", `${INSTANCES}/fenced`)).status,
      (status) => status === 404,
    );
  });

  it("with spaces, instances and cluster access in place, resyncs write nothing; drift and a removed field are still applied", async () => {
    // Spaces and cluster access too: the platform holds the roles their docs show.
    await kube.grant(platform, { rules: documentedPlatformRole("docs/spaces.md") });
    await kube.grant(platform, { rules: documentedPlatformRole("docs/cluster-access.md") });
    await postObject(server, "projects", { metadata: { name: "calm" }, spec: { allowedClusters: [{ name: "prod" }] } });
    const space = {
      labels: { tier: "bronze" },
      annotations: { note: "kept", extra: "dropped later" },
      objects: [
        {
          apiVersion: "v1",
          kind: "ResourceQuota",
          metadata: { name: "quota" },
          spec: { hard: { pods: "10", "requests.cpu": "2" } },
        },
      ],
    };
    await postObject(server, "namespaces/p-calm/spaceinstances", {
      metadata: { name: "quiet" },
      spec: { clusterRef: { cluster: "prod" }, template: space },
    });
    await postObject(server, "users", { metadata: { name: "reader" }, spec: {} });
    await postObject(server, "clusterroletemplates", {
      metadata: { name: "lister" },
      spec: { clusters: ["prod"], rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["list"] }] },
    });
    await postObject(server, "clusteraccesses", {
      metadata: { name: "readers" },
      spec: { clusters: ["prod"], users: ["reader"], clusterRoleTemplates: ["lister"] },
    });
    for (const [name, template] of [
      ["calm", { name: "default" }],
      ["tidy", { name: "tiny", version: "2.0.0" }],
    ] as const) {
      await postObject(server, "namespaces/p-calm/virtualclusterinstances", {
        metadata: { name },
        spec: { clusterRef: { cluster: "prod" }, templateRef: template },
      });
    }
    const spaceStatus = () => server.request("GET", `${GROUP_PATH}/namespaces/p-calm/spaceinstances/quiet`);
    await waitFor("space quiet Ready", spaceStatus, (r) => r.json?.status?.phase === "Ready");
    await waitForCluster(server, "prod", (s) => {
      const grants = (s.grants ?? []) as Array<{ applied: boolean }>;
      return grants.length === 2 && grants.every((g) => g.applied);
    });
    for (const name of ["calm", "tidy"]) {
      await waitFor(
        `instance ${name} Ready`,
        async () =>
          (await server.request("GET", `${GROUP_PATH}/namespaces/p-calm/virtualclusterinstances/${name}`)).json,
        (i) => i?.status?.phase === "Ready",
      );
    }

    // A pass of each controller lists what it keeps: the space's quotas, the access's
    // ClusterRoles, each instance's workloads.
    const passes = (events: KubeAuditEvent[], resource: string, namespace?: string) =>
      events.filter(
        (e) =>
          e.verb === "list" &&
          e.user.username === PLATFORM_USER &&
          e.objectRef?.resource === resource &&
          e.objectRef.namespace === namespace,
      ).length;
    const eachPassed = (events: KubeAuditEvent[], times: number) =>
      passes(events, "resourcequotas", "quiet") >= times &&
      passes(events, "clusterroles") >= times &&
      passes(events, "statefulsets", "p-calm-v-calm") >= times &&
      passes(events, "deployments", "p-calm-v-tidy") >= times;
    const since = async (from: number) => (await kube.auditEvents()).slice(from);
    // Passes that began once all was in place, then several more: none of them writes.
    let from = (await kube.auditEvents()).length;
    await waitFor(
      "a pass of each controller",
      () => since(from),
      (events) => eachPassed(events, 1),
    );
    from = (await kube.auditEvents()).length;
    const quiet = await waitFor(
      "three passes of each controller",
      () => since(from),
      (e) => eachPassed(e, 3),
    );
    // Instances up and leak stay Failed on an object the cluster refuses (a Service, a certs
    // Secret with a label it will not take): each is tried again at each pass, on purpose.
    const retriedOnPurpose = new Set(["p-web-v-up", "p-web-v-leak"]);
    const writes = quiet.filter(
      (e) =>
        e.user.username === PLATFORM_USER && WRITES.has(e.verb) && !retriedOnPurpose.has(e.objectRef?.namespace ?? ""),
    );
    assert.deepEqual(
      writes.map(
        (e) => `${e.verb} ${e.objectRef?.resource} ${e.objectRef?.namespace ?? ""}/${e.objectRef?.name ?? ""}`,
      ),
      [],
    );

    // Drift: fields edited by hand and an object deleted, in a space, an instance and the access.
    await kube.kubectl(
      "patch",
      "resourcequota",
      "quota",
      "-n",
      "quiet",
      "--type=merge",
      "-p",
      '{"spec":{"hard":{"pods":"99"}}}',
    );
    await kube.kubectl("label", "namespace", "quiet", "tier-");
    await kube.kubectl(
      "patch",
      "role",
      "vc-calm",
      "-n",
      "p-calm-v-calm",
      "--type=json",
      "-p",
      '[{"op":"add","path":"/rules/-","value":{"apiGroups":[""],"resources":["nodes"],"verbs":["get"]}}]',
    );
    await kube.kubectl("delete", "service", "tidy", "-n", "p-calm-v-tidy");
    await kube.kubectl("delete", "clusterrolebinding", "platform:readers:lister");
    const json = async (...args: string[]) => JSON.parse(await kube.kubectl("get", ...args, "-o", "json"));
    await waitFor(
      "the edited fields and the deleted objects back",
      async () => ({
        pods: (await json("resourcequota", "quota", "-n", "quiet")).spec.hard.pods,
        tier: (await json("namespace", "quiet")).metadata.labels.tier,
        rules: (await json("role", "vc-calm", "-n", "p-calm-v-calm")).rules.length,
        service: (await namesOn("service", "p-calm-v-tidy")).includes("tidy"),
        binding: (await json("clusterrolebindings", "-l", "management.platform/cluster-access=readers")).items.length,
      }),
      (v) => v.pods === "10" && v.tier === "bronze" && v.rules === 4 && v.service && v.binding === 1,
    );

    // A desired change that drops fields: the cluster loses them.
    const patched = await server.request("PATCH", `${GROUP_PATH}/namespaces/p-calm/spaceinstances/quiet`, {
      contentType: "application/json-patch+json",
      body: [
        { op: "remove", path: "/spec/template/annotations/extra" },
        { op: "remove", path: "/spec/template/objects/0/spec/hard/requests.cpu" },
      ],
    });
    assert.equal(patched.status, 200, patched.text);
    await waitFor(
      "the dropped annotation and quota key gone",
      async () => ({
        annotations: (await json("namespace", "quiet")).metadata.annotations ?? {},
        hard: (await json("resourcequota", "quota", "-n", "quiet")).spec.hard,
      }),
      (v) =>
        v.annotations.extra === undefined &&
        v.annotations.note === "kept" &&
        v.hard["requests.cpu"] === undefined &&
        v.hard.pods === "10",
    );
  });
});
