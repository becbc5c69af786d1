// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the template references under test are written ${...}
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { VirtualClusterInstanceStatus } from "../../kinds/virtual-cluster-instance/virtual-cluster-instance-status.js";
import { postObject } from "../../testing/gateway-fixture.js";
import type { KubeControlPlane } from "../../testing/kube-control-plane.js";
import { startPlatformOnControlPlane } from "../../testing/platform-on-control-plane.js";
import { storeSecondHolder } from "../../testing/second-holder.js";
import { moveStoredBeforeNamespaceUID } from "../../testing/stored-before-namespace-uid.js";
import { GROUP_PATH, type TestServer } from "../../testing/test-server.js";
import { STAND_IN_WORKLOAD } from "../../testing/virtual-cluster-workload.js";
import { waitFor } from "../../testing/wait-for.js";

/**
 * Virtual cluster instances moved to another project, on a real control plane
 * (docs/virtual-clusters.md, "Move"): what runs on the cluster still carries the old project's
 * labels until the moved instance is deployed again, and an instance of the same name may be
 * made in the old project meanwhile, whose default namespace is the moved one's.
 */

const PROJECT_LABEL = "management.platform/project";

const settings = (suffix: string) => ({
  apiVersion: "v1",
  kind: "Secret",
  metadata: { name: `\${instance.name}-${suffix}` },
  stringData: { greeting: "hi" },
});

/** 1.0.0 has one Secret more than 2.0.0: a move to 2.0.0 must remove it. */
const VERSIONS = [
  { version: "1.0.0", objects: [...STAND_IN_WORKLOAD, settings("settings"), settings("old")] },
  { version: "2.0.0", objects: [...STAND_IN_WORKLOAD, settings("settings")] },
];

const template = (name: string) => ({
  metadata: { name },
  spec: { access: [{ users: ["*"], verbs: ["get", "use"] }], versions: VERSIONS },
});

describe("virtual cluster instances moved to another project, on a real cluster", () => {
  let kube: KubeControlPlane;
  let server: TestServer;
  const path = (project: string, name: string) =>
    `${GROUP_PATH}/namespaces/p-${project}/virtualclusterinstances/${name}`;
  const statusOf = async (project: string, name: string): Promise<VirtualClusterInstanceStatus> =>
    (await server.request("GET", path(project, name))).json?.status ?? {};
  const waitForStatus = (project: string, name: string, check: (s: VirtualClusterInstanceStatus) => boolean) =>
    waitFor(`status of instance ${project}/${name}`, () => statusOf(project, name), check);
  const settled = (s: VirtualClusterInstanceStatus) => s.phase === "Ready" || s.phase === "Failed";
  /**
   * Whether the namespace was judged: refused, or deployed into. Not any Failed: just after the
   * control plane restarts, its authorizer may refuse the platform for a moment (Forbidden).
   */
  const judged = (s: VirtualClusterInstanceStatus) =>
    s.reason === "NamespaceNotOwned" || s.phase === "Ready" || s.phase === "Deploying";
  const create = (project: string, name: string, spec: Record<string, unknown>) =>
    postObject(server, `namespaces/p-${project}/virtualclusterinstances`, { metadata: { name }, spec });
  const move = async (name: string, from: string, to: string) => {
    const res = await server.request("POST", `${GROUP_PATH}/projects/${to}/migratevirtualclusterinstance`, {
      body: {
        apiVersion: "management.platform/v1",
        kind: "ProjectMigrateVirtualClusterInstance",
        sourceVirtualClusterInstance: { name, namespace: `p-${from}` },
      },
    });
    assert.equal(res.status, 201, res.text);
  };
  const remove = async (project: string, name: string) => {
    const res = await server.request("DELETE", path(project, name));
    assert.equal(res.status, 200, res.text);
    await waitFor(
      `instance ${project}/${name} to go`,
      async () => (await server.request("GET", path(project, name))).status,
      (status) => status === 404,
    );
  };
  /** The names of a kind in a namespace on the cluster (empty when the namespace is gone). */
  const namesOn = async (kind: string, namespace: string) =>
    (await kube.kubectl("get", kind, "-n", namespace, "-o", "jsonpath={.items[*].metadata.name}", "--ignore-not-found"))
      .split(" ")
      .filter(Boolean)
      .sort();
  const namespaceOn = async (name: string) =>
    JSON.parse(await kube.kubectl("get", "namespace", name, "-o", "json")) as {
      metadata: { uid: string; labels?: Record<string, string> };
    };
  /**
   * What runs for an instance in its namespace: its workload, Services and Secrets, each by name
   * and UID (the controller's next deploy would make a removed one again, under another UID).
   */
  const contents = async (namespace: string) =>
    (
      await kube.kubectl(
        "get",
        "deployments,services,secrets",
        "-n",
        namespace,
        "-o",
        "jsonpath={range .items[*]}{.kind}/{.metadata.name}={.metadata.uid} {end}",
      )
    )
      .split(" ")
      .filter(Boolean)
      .sort();

  before(async () => {
    ({ kube, server } = await startPlatformOnControlPlane({
      cluster: "prod",
      kubelet: true,
    }));
    for (const project of ["web", "shop"])
      await postObject(server, "projects", { metadata: { name: project }, spec: {} });
    await postObject(server, "virtualclustertemplates", template("tiny"));
  });
  after(async () => {
    await server?.stop();
    await kube?.stop();
  });

  it("moved, then deployed with one object fewer: the object deployed under the old project's labels goes, and an instance of the same name made in the old project never touches what runs", async () => {
    await create("web", "mover", { clusterRef: { cluster: "prod" }, templateRef: { name: "tiny", version: "1.0.0" } });
    const before = await waitForStatus("web", "mover", settled);
    assert.equal(before.phase, "Ready", JSON.stringify(before));
    const ns = "p-web-v-mover";
    assert.deepEqual(await namesOn("secret", ns), ["mover-old", "mover-settings"]);

    // With the cluster stopped, the first deploy after the move is the one of 2.0.0: nothing was
    // re-labelled for project shop before it.
    await kube.stopApiServer();
    try {
      await move("mover", "web", "shop");
      const res = await server.request("PATCH", path("shop", "mover"), {
        contentType: "application/merge-patch+json",
        body: { spec: { templateRef: { version: "2.0.0" } } },
      });
      assert.equal(res.status, 200, res.text);
    } finally {
      await kube.startApiServer();
    }
    const upgraded = await waitForStatus("shop", "mover", (s) => s.deployed?.version === "2.0.0" && settled(s));
    assert.equal(upgraded.phase, "Ready", JSON.stringify(upgraded));
    assert.deepEqual(await namesOn("secret", ns), ["mover-settings"], "what 2.0.0 no longer has is removed");
    const namespace = await namespaceOn(ns);
    assert.equal(namespace.metadata.uid, before.namespaceUID);
    assert.equal(namespace.metadata.labels?.[PROJECT_LABEL], "shop");
    const running = await contents(ns);

    // Made in the old project after the move, its default namespace is the moved instance's: the
    // API refuses it today (409); one stored by an older version is still judged by the controller.
    await storeSecondHolder(
      server,
      "virtualclusterinstances",
      "web",
      { metadata: { name: "mover" }, spec: { templateRef: { name: "tiny", version: "1.0.0" } } },
      { cluster: "prod", namespace: ns },
    );
    const twin = await waitForStatus("web", "mover", judged);
    assert.equal(twin.reason, "NamespaceNotOwned", JSON.stringify(twin));
    await remove("web", "mover");
    assert.deepEqual(await contents(ns), running, "its delete removes nothing of the moved instance");
    assert.equal((await namespaceOn(ns)).metadata.uid, before.namespaceUID);
    assert.equal((await statusOf("shop", "mover")).phase, "Ready");
    await remove("shop", "mover");
  });

  it("an instance of the same name made in the old project before the moved one is deployed again never takes its namespace", async () => {
    // The moved instance's template goes while it is away: its next deploy fails before it
    // reaches the cluster, so the namespace still carries the old project's labels when the
    // instance of the same name made in the old project is deployed.
    await postObject(server, "virtualclustertemplates", template("fragile"));
    await create("web", "twin", {
      clusterRef: { cluster: "prod" },
      templateRef: { name: "fragile", version: "2.0.0" },
    });
    const before = await waitForStatus("web", "twin", settled);
    assert.equal(before.phase, "Ready", JSON.stringify(before));
    const ns = "p-web-v-twin";
    await kube.stopApiServer();
    try {
      await move("twin", "web", "shop");
      const gone = await server.request("DELETE", `${GROUP_PATH}/virtualclustertemplates/fragile`);
      assert.equal(gone.status, 200, gone.text);
      // The API refuses it today (409: the moved instance holds the namespace); one stored by an
      // older version is still judged by the controller.
      await storeSecondHolder(
        server,
        "virtualclusterinstances",
        "web",
        { metadata: { name: "twin" }, spec: { templateRef: { name: "tiny", version: "1.0.0" } } },
        { cluster: "prod", namespace: ns },
      );
    } finally {
      await kube.startApiServer();
    }
    const moved = await waitForStatus("shop", "twin", (s) => s.reason === "TemplateNotFound");
    assert.equal(moved.namespaceUID, before.namespaceUID);
    const newcomer = await waitForStatus("web", "twin", judged);
    assert.equal(newcomer.reason, "NamespaceNotOwned", JSON.stringify(newcomer));
    assert.equal(newcomer.namespaceUID, undefined);
    const namespace = await namespaceOn(ns);
    assert.equal(namespace.metadata.labels?.[PROJECT_LABEL], "web", "nobody re-labelled it");
    assert.deepEqual(await namesOn("secret", ns), ["twin-settings"], "nothing of 1.0.0 was applied in it");

    await postObject(server, "virtualclustertemplates", template("fragile"));
    const back = await waitForStatus("shop", "twin", (s) => s.phase === "Ready");
    assert.equal(back.namespaceUID, before.namespaceUID);
    assert.equal((await namespaceOn(ns)).metadata.labels?.[PROJECT_LABEL], "shop");
    const running = await contents(ns);
    await remove("web", "twin");
    assert.deepEqual(await contents(ns), running, "its delete removes nothing of the moved instance");
    assert.equal((await namespaceOn(ns)).metadata.uid, before.namespaceUID);
    await remove("shop", "twin");
  });

  it("stored before namespaceUID was recorded, then moved: stays Ready in its namespace; a namespace made by hand is still never taken", async () => {
    await create("web", "legacy", { clusterRef: { cluster: "prod" }, templateRef: { name: "tiny", version: "2.0.0" } });
    await create("web", "handmade", {
      clusterRef: { cluster: "prod", namespace: "team-a" },
      templateRef: { name: "tiny", version: "2.0.0" },
    });
    const ready = await waitForStatus("web", "legacy", settled);
    assert.equal(ready.phase, "Ready", JSON.stringify(ready));
    assert.equal((await waitForStatus("web", "handmade", settled)).reason, "NamespaceNotOwned");
    const ns = "p-web-v-legacy";
    const running = await contents(ns);

    // As an older version stored it (no namespaceUID), the cluster down while the platform restarts.
    const instances = { statusOf, waitForStatus: waitForStatus, move };
    const moves = {
      plural: "virtualclusterinstances",
      names: ["legacy", "handmade"],
      from: "web",
      to: "shop",
    } as const;
    await moveStoredBeforeNamespaceUID(server, kube, moves, instances, (restarted) => {
      server = restarted;
    });
    const lookedAt = (s: VirtualClusterInstanceStatus) => s.reason !== "ClusterUnreachable" && judged(s);
    const moved = await waitForStatus("shop", "legacy", lookedAt);
    assert.notEqual(moved.reason, "NamespaceNotOwned", JSON.stringify(moved));
    const again = await waitForStatus("shop", "legacy", (s) => s.namespaceUID !== undefined && settled(s));
    assert.equal(again.phase, "Ready", JSON.stringify(again));
    assert.equal(again.namespaceUID, ready.namespaceUID);
    assert.equal(again.movedFromProject, undefined, "the UID recorded, the project left is no longer needed");
    const namespace = await namespaceOn(ns);
    assert.equal(namespace.metadata.uid, ready.namespaceUID);
    assert.equal(namespace.metadata.labels?.[PROJECT_LABEL], "shop");
    assert.deepEqual(await contents(ns), running);

    const handmade = await waitForStatus("shop", "handmade", lookedAt);
    assert.equal(handmade.reason, "NamespaceNotOwned", JSON.stringify(handmade));
    assert.equal(handmade.phase, "Failed");
    assert.equal((await namespaceOn("team-a")).metadata.labels?.[PROJECT_LABEL], undefined, "never labelled");
    assert.deepEqual(await namesOn("deployment", "team-a"), []);
  });
});
