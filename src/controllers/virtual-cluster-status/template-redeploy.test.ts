// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the template references under test are written ${...}
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { VirtualClusterInstanceStatus } from "../../kinds/virtual-cluster-instance/virtual-cluster-instance-status.js";
import { createCluster, putSecret } from "../../testing/cluster-status.js";
import { documentedYamlBlocks } from "../../testing/documented-rights.js";
import { postObject } from "../../testing/gateway-fixture.js";
import { KubeControlPlane } from "../../testing/kube-control-plane.js";
import { documentedPlatformRole } from "../../testing/platform-on-control-plane.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../../testing/test-server.js";
import { STAND_IN_WORKLOAD } from "../../testing/virtual-cluster-workload.js";
import { waitFor } from "../../testing/wait-for.js";

/**
 * A template change reaches the instances it concerns at once, on a real control plane
 * (docs/virtual-clusters.md, "Lifecycle"; docs/spaces.md for spaces). The resync interval is set
 * beyond the test's length, and every instance is Ready (nothing looks at it again) before the
 * template changes: only the controllers' watch of the templates can redeploy it. Which virtual
 * clusters a change concerns, case by case: template-changes.test.ts.
 */

const INSTANCES = `${GROUP_PATH}/namespaces/p-web/virtualclusterinstances`;
const TEMPLATE = `${GROUP_PATH}/virtualclustertemplates/follow`;
/** No resync while the test runs. */
const RESYNC_AFTER_THE_TEST_MS = 60 * 60 * 1000;

/** The object whose content tells which version (and which edit of it) is deployed. */
function settings(content: string) {
  return { apiVersion: "v1", kind: "Secret", metadata: { name: "settings" }, stringData: { content } };
}

describe("instances follow their template at once, on a real cluster", () => {
  let kube: KubeControlPlane;
  let server: TestServer;
  const statusOf = async (name: string): Promise<VirtualClusterInstanceStatus> =>
    (await server.request("GET", `${INSTANCES}/${name}`)).json?.status ?? {};
  const waitForStatus = (name: string, check: (s: VirtualClusterInstanceStatus) => boolean) =>
    waitFor(`status of instance ${name}`, () => statusOf(name), check);
  /** The content of the settings Secret deployed for an instance. */
  const deployedContent = async (instance: string) =>
    Buffer.from(
      await kube.kubectl("get", "secret", "settings", "-n", `p-web-v-${instance}`, "-o", "jsonpath={.data.content}"),
      "base64",
    ).toString();
  const patchTemplate = async (ops: object[]) => {
    const res = await server.request("PATCH", TEMPLATE, { contentType: "application/json-patch+json", body: ops });
    assert.equal(res.status, 200, res.text);
  };

  before(async () => {
    [kube, server] = await Promise.all([
      KubeControlPlane.start(),
      startTestServer({ clusterCheckIntervalMs: RESYNC_AFTER_THE_TEST_MS, allowLocalEndpoints: true }),
    ]);
    await kube.startKubelet();
    // The namespaces the documented rights name.
    for (const ns of ["platform", "team-a"]) await kube.kubectl("create", "namespace", ns);
    const platform = await kube.serviceAccount("platform", "platform");
    const [platformRights] = documentedYamlBlocks();
    assert.ok(platformRights, "docs/gateway.md shows the platform's rights");
    await kube.apply(platformRights);
    const [deployRights] = documentedYamlBlocks(
      "docs/gateway.md",
      "### What the platform needs to deploy virtual clusters",
    );
    assert.ok(deployRights, "docs/gateway.md shows the rights to deploy virtual clusters");
    await kube.apply(deployRights);
    await kube.grant(platform, { rules: documentedPlatformRole("docs/spaces.md") });
    await postObject(server, "projects", { metadata: { name: "web" }, spec: {} });
    await putSecret(server, "prod", platform.kubeconfig());
    await createCluster(server, "prod", { config: { secretName: "prod" } });
    await postObject(server, "virtualclustertemplates", {
      metadata: { name: "follow" },
      spec: { versions: [{ version: "1.0.0", objects: [...STAND_IN_WORKLOAD, settings("one")] }] },
    });
    for (const [name, version] of [
      ["newest", undefined],
      ["pinned", "1.0.0"],
    ]) {
      await postObject(server, "namespaces/p-web/virtualclusterinstances", {
        metadata: { name },
        spec: { clusterRef: { cluster: "prod" }, templateRef: { name: "follow", version } },
      });
    }
    for (const name of ["newest", "pinned"]) {
      const ready = await waitForStatus(name, (s) => s.phase === "Ready");
      assert.equal(ready.deployed?.version, "1.0.0");
    }
  });
  after(async () => {
    await server?.stop();
    await kube?.stop();
  });

  it("a version added: the instance following the newest deploys it at once; the pinned one keeps its version", async () => {
    await patchTemplate([
      {
        op: "add",
        path: "/spec/versions/-",
        value: { version: "2.0.0", objects: [...STAND_IN_WORKLOAD, settings("two")] },
      },
    ]);
    const upgraded = await waitForStatus("newest", (s) => s.deployed?.version === "2.0.0");
    assert.equal(upgraded.deployed?.template, "follow");
    assert.equal(await deployedContent("newest"), "two");
    assert.equal((await statusOf("pinned")).deployed?.version, "1.0.0");
    assert.equal(await deployedContent("pinned"), "one");
  });

  it("a version's objects edited: the instance pinned to it redeploys at once; the one on another version is left", async () => {
    // versions[0] is 1.0.0; its objects[2] the settings Secret.
    await patchTemplate([
      { op: "replace", path: "/spec/versions/0/objects/2/stringData/content", value: "one, edited" },
    ]);
    await waitFor(
      "the edited 1.0.0 on the cluster",
      () => deployedContent("pinned"),
      (content) => content === "one, edited",
    );
    const pinned = await waitForStatus("pinned", (s) => s.phase === "Ready");
    assert.equal(pinned.deployed?.version, "1.0.0");
    assert.equal(await deployedContent("newest"), "two");
  });

  it("a SpaceTemplate changed: the spaces made from it follow at once", async () => {
    const tierOf = () =>
      kube.kubectl("get", "namespace", "team-space", "-o", "jsonpath={.metadata.labels.tier}", "--ignore-not-found");
    await postObject(server, "spacetemplates", {
      metadata: { name: "tiered" },
      spec: { template: { labels: { tier: "bronze" } } },
    });
    await postObject(server, "namespaces/p-web/spaceinstances", {
      metadata: { name: "team-space" },
      spec: { clusterRef: { cluster: "prod" }, templateRef: { name: "tiered" } },
    });
    await waitFor(
      "space team-space Ready",
      async () => (await server.request("GET", `${GROUP_PATH}/namespaces/p-web/spaceinstances/team-space`)).json,
      (space) => space?.status?.phase === "Ready",
    );
    assert.equal(await tierOf(), "bronze");
    const res = await server.request("PATCH", `${GROUP_PATH}/spacetemplates/tiered`, {
      contentType: "application/merge-patch+json",
      body: { spec: { template: { labels: { tier: "silver" } } } },
    });
    assert.equal(res.status, 200, res.text);
    await waitFor("the namespace relabelled", tierOf, (tier) => tier === "silver");
  });
});
