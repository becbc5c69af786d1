import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { parse } from "yaml";
import { loggedInHome, runCli } from "../testing/cli-run.js";
import { waitForStatus } from "../testing/cluster-status.js";
import { accessKey, postObject } from "../testing/gateway-fixture.js";
import { KubectlError, runKubectl } from "../testing/kube/kubectl.js";
import { KubeControlPlane } from "../testing/kube-control-plane.js";
import {
  connectAsServiceAccount,
  documentedPlatformRole,
  eventually,
  REAL_CLUSTER_RESYNC_MS,
} from "../testing/platform-on-control-plane.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";

/**
 * Importing a namespace as a space and moving a space between projects, on a real control plane
 * (docs/spaces.md, "Import" and "Move"). The platform's ServiceAccount holds the ClusterRole
 * docs/spaces.md shows; team devs (alice) may use and administer cluster c1 and is a member of
 * projects web and shop; bob is a member of both but may not use c1; carol (team users) is a member
 * of both who may use c1 but not administer it; dave (team ops) administers c1 and is a member of
 * project tools alone.
 */

const PROJECTS = `${GROUP_PATH}/projects`;

describe("importing and moving spaces on a real cluster", () => {
  let server: TestServer;
  let kube: KubeControlPlane;
  let aliceKey: string;
  let bobKey: string;
  let carolKey: string;
  let daveKey: string;
  const space = (project: string, name: string) =>
    server.request("GET", `${GROUP_PATH}/namespaces/p-${project}/spaceinstances/${name}`);
  const waitReady = (project: string, name: string) =>
    eventually(`space ${project}/${name} Ready`, async () => {
      const s = (await space(project, name)).json?.status ?? {};
      assert.equal(s.phase, "Ready", JSON.stringify(s));
      return s;
    });
  const importSpace = (project: string, sourceSpace: Record<string, unknown>, token?: string) =>
    server.request("POST", `${PROJECTS}/${project}/importspace`, {
      body: { apiVersion: "management.platform/v1", kind: "ProjectImportSpace", sourceSpace },
      token,
    });
  const namespaceOnCluster = async (name: string) => {
    try {
      return JSON.parse(await kube.kubectl("get", "namespace", name, "-o", "json"));
    } catch (err) {
      if (err instanceof KubectlError && /NotFound/.test(err.stderr)) return undefined;
      throw err;
    }
  };
  const configMaps = async (namespace: string) =>
    (await kube.kubectl("get", "configmaps", "-n", namespace, "-o", "name")).split("\n").filter(Boolean).sort();
  /** The Event `reason` about the space `name` in `project` (Events are written just after the answer). */
  const eventAbout = (project: string, name: string, reason: string) =>
    eventually(`Event ${reason} about ${project}/${name}`, async () => {
      const res = await server.request(
        "GET",
        `/kubernetes/management/api/v1/namespaces/p-${project}/events?fieldSelector=involvedObject.name=${name},reason=${reason}`,
      );
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.items.length, 1, res.text);
      return res.json.items[0];
    });
  const moveTo = (project: string, sourceSpaceInstance: { name: string; namespace: string }, token?: string) =>
    server.request("POST", `${PROJECTS}/${project}/migratespaceinstance`, {
      body: { apiVersion: "management.platform/v1", kind: "ProjectMigrateSpaceInstance", sourceSpaceInstance },
      token,
    });

  before(async () => {
    kube = await KubeControlPlane.start();
    server = await startTestServer({ clusterCheckIntervalMs: REAL_CLUSTER_RESYNC_MS, allowLocalEndpoints: true });
    await kube.kubectl("create", "namespace", "platform");
    await connectAsServiceAccount(server, kube, {
      cluster: "c1",
      account: "platform",
      // cluster-access.md's: the gateway's impersonation, for the CLI's context through the space path.
      roles: [documentedPlatformRole("docs/spaces.md"), documentedPlatformRole("docs/cluster-access.md")],
      spec: {
        access: [
          { verbs: ["use", "administer"], teams: ["devs"] },
          { verbs: ["use"], teams: ["users"] },
          { verbs: ["use", "administer"], teams: ["ops"] },
        ],
      },
    });
    for (const user of ["alice", "bob", "carol", "dave"]) {
      await postObject(server, "users", { metadata: { name: user }, spec: {} });
    }
    await postObject(server, "teams", { metadata: { name: "devs" }, spec: { users: ["alice"] } });
    await postObject(server, "teams", { metadata: { name: "others" }, spec: { users: ["bob"] } });
    await postObject(server, "teams", { metadata: { name: "users" }, spec: { users: ["carol"] } });
    await postObject(server, "teams", { metadata: { name: "ops" }, spec: { users: ["dave"] } });
    await postObject(server, "projects", {
      metadata: { name: "tools" },
      spec: { allowedClusters: [{ name: "*" }], members: [{ kind: "Team", name: "ops" }] },
    });
    for (const project of ["web", "shop"]) {
      await postObject(server, "projects", {
        metadata: { name: project },
        spec: {
          allowedClusters: [{ name: "*" }],
          members: [
            { kind: "Team", name: "devs" },
            { kind: "Team", name: "others" },
            { kind: "Team", name: "users" },
          ],
        },
      });
    }
    await waitForStatus(server, "c1", (s) => s.online === true);
    aliceKey = await accessKey(server, "alice");
    bobKey = await accessKey(server, "bob");
    carolKey = await accessKey(server, "carol");
    daveKey = await accessKey(server, "dave");
  });
  after(async () => {
    await server?.stop();
    await kube?.stop();
  });

  it("imports an existing namespace: the space takes it over, keeps its UID and contents, and refuses a second import", async () => {
    await kube.kubectl("create", "namespace", "legacy");
    await kube.kubectl("create", "configmap", "app-config", "-n", "legacy", "--from-literal=a=b");
    const uid = (await namespaceOnCluster("legacy")).metadata.uid;

    const missing = await importSpace("web", { name: "nowhere", cluster: "c1" }, aliceKey);
    assert.equal(missing.status, 404, missing.text);
    assert.equal(missing.json.kind, "Status");
    const invalid = await importSpace("web", { cluster: "c1" }, aliceKey);
    assert.equal(invalid.status, 422, invalid.text);
    assert.match(invalid.text, /sourceSpace\.name/);
    // bob may create spaces in web but not use c1: refused, nothing created.
    const refused = await importSpace("web", { name: "legacy", cluster: "c1" }, bobKey);
    assert.equal(refused.status, 403, refused.text);
    assert.equal((await space("web", "legacy")).status, 404);

    const imported = await importSpace("web", { name: "legacy", cluster: "c1" }, aliceKey);
    assert.equal(imported.status, 201, imported.text);
    const status = await waitReady("web", "legacy");
    assert.equal(status.imported, true);
    assert.equal(status.namespaceUID, uid);
    const ns = await namespaceOnCluster("legacy");
    assert.equal(ns.metadata.uid, uid);
    assert.equal(ns.metadata.labels["management.platform/project"], "web");
    assert.equal(ns.metadata.labels["management.platform/space"], "legacy");
    assert.deepEqual(await configMaps("legacy"), ["configmap/app-config", "configmap/kube-root-ca.crt"]);
    const event = await eventAbout("web", "legacy", "Imported");
    assert.equal(event.type, "Normal");
    assert.deepEqual(
      [event.involvedObject.kind, event.involvedObject.namespace, event.involvedObject.uid],
      ["SpaceInstance", "p-web", (await space("web", "legacy")).json.metadata.uid],
    );
    assert.equal(event.message, 'imported from the existing namespace "legacy" on cluster "c1"');

    const again = await importSpace("shop", { name: "legacy", cluster: "c1", importName: "other" }, aliceKey);
    assert.equal(again.status, 409, again.text);
    assert.match(again.json.message, /already belongs to space p-web\/legacy/);
    assert.equal((await space("shop", "other")).status, 404);
    // dave may not see project web's spaces: told the namespace is taken, not by which.
    const hidden = await importSpace("tools", { name: "legacy", cluster: "c1" }, daveKey);
    assert.equal(hidden.status, 409, hidden.text);
    assert.match(hidden.json.message, /already belongs to a space/);
    assert.doesNotMatch(hidden.text, /p-web/);
  });

  it("taking over a namespace needs administer on the cluster: use alone is refused, and nothing is granted there", async () => {
    // The owner of an imported space gets admin in its namespace: kube-system's would be the
    // cluster's service account tokens, another project's virtual cluster namespace its CA.
    for (const name of ["kube-system", "default"]) {
      const refused = await importSpace("web", { name, cluster: "c1" }, carolKey);
      assert.equal(refused.status, 403, refused.text);
      assert.match(refused.json.message, /User "carol" cannot administer resource "clusters"/);
      assert.match(refused.json.message, /which importing a namespace \(its owner gets admin in it\) needs/);
      assert.equal((await space("web", name)).status, 404);
      const bindings = await kube.kubectl("get", "rolebindings", "-n", name, "-o", "name");
      assert.doesNotMatch(bindings, /platform/);
    }
  });

  it("of concurrent imports of one namespace exactly one wins", async () => {
    await kube.kubectl("create", "namespace", "contested");
    const answers = await Promise.all(
      ["one", "two", "three"].map((importName) =>
        importSpace("web", { name: "contested", cluster: "c1", importName }, aliceKey),
      ),
    );
    assert.deepEqual(answers.map((a) => a.status).sort(), [201, 409, 409], answers.map((a) => a.text).join("\n"));
    const list = await server.request("GET", `${GROUP_PATH}/namespaces/p-web/spaceinstances`);
    const holding = list.json.items.filter((s: { spec: { clusterRef: { namespace: string } } }) => {
      return s.spec.clusterRef.namespace === "contested";
    });
    assert.equal(holding.length, 1);
  });

  it("moves a space to another project without touching its namespace, which the moved space then owns", async () => {
    const before = await namespaceOnCluster("legacy");
    const uidBefore = (await space("web", "legacy")).json.metadata.uid;
    const moveBody = {
      apiVersion: "management.platform/v1",
      kind: "ProjectMigrateSpaceInstance",
      sourceSpaceInstance: { name: "legacy", namespace: "p-web" },
    };
    const refused = await server.request("POST", `${PROJECTS}/shop/migratespaceinstance`, {
      body: { ...moveBody, sourceSpaceInstance: { name: "legacy", namespace: "p-nothing" } },
      token: aliceKey,
    });
    assert.equal(refused.status, 403, refused.text);
    const moved = await server.request("POST", `${PROJECTS}/shop/migratespaceinstance`, {
      body: moveBody,
      token: aliceKey,
    });
    assert.equal(moved.status, 201, moved.text);
    assert.equal((await space("web", "legacy")).status, 404);
    await eventually("the namespace re-labelled to project shop", async () => {
      const ns = await namespaceOnCluster("legacy");
      assert.equal(ns?.metadata.labels["management.platform/project"], "shop");
    });
    const status = await waitReady("shop", "legacy");
    assert.equal(status.imported, true);
    const after = await namespaceOnCluster("legacy");
    assert.equal(after.metadata.uid, before.metadata.uid);
    assert.equal(after.metadata.deletionTimestamp, undefined);
    assert.deepEqual(await configMaps("legacy"), ["configmap/app-config", "configmap/kube-root-ca.crt"]);

    // One Event on each side, naming its own project only.
    const arrived = await eventAbout("shop", "legacy", "Moved");
    assert.equal(arrived.involvedObject.uid, (await space("shop", "legacy")).json.metadata.uid);
    assert.equal(
      arrived.message,
      'moved into project "shop" from another project; its namespace "legacy" on cluster "c1" goes with it, as it is',
    );
    const left = await eventAbout("web", "legacy", "Moved");
    assert.equal(left.involvedObject.uid, uidBefore);
    assert.match(left.message, /^moved out of project "web" into another project;/);
    assert.doesNotMatch(left.message, /shop/);
  });

  it("deleting an imported space leaves its namespace and contents, and drops the platform's labels", async () => {
    const uid = (await namespaceOnCluster("legacy")).metadata.uid;
    const deleted = await server.request("DELETE", `${GROUP_PATH}/namespaces/p-shop/spaceinstances/legacy`);
    assert.equal(deleted.status, 200, deleted.text);
    await eventually("the space going", async () => assert.equal((await space("shop", "legacy")).status, 404));
    const ns = await namespaceOnCluster("legacy");
    assert.equal(ns.metadata.uid, uid);
    assert.equal(ns.metadata.deletionTimestamp, undefined);
    assert.equal(ns.metadata.labels["management.platform/space"], undefined);
    assert.deepEqual(await configMaps("legacy"), ["configmap/app-config", "configmap/kube-root-ca.crt"]);
    // Free again: it can be imported anew.
    const again = await importSpace("web", { name: "legacy", cluster: "c1" }, aliceKey);
    assert.equal(again.status, 201, again.text);
  });

  it("the CLI imports a namespace, points kubectl at the space (its namespace the default), and moves it", async () => {
    await kube.kubectl("create", "namespace", "cli-ns");
    await kube.kubectl("create", "configmap", "cli-config", "-n", "cli-ns", "--from-literal=a=b");
    const home = await loggedInHome(server, aliceKey, { prefix: "platform-spaces-", reuseKey: false });
    const cli = (...args: string[]) => runCli(home, args);
    const kubeconfig = join(home, "kubeconfig");
    const written = () => (existsSync(kubeconfig) ? readFileSync(kubeconfig, "utf8") : "");

    const imported = await cli("import", "space", "cli-ns", "--cluster", "c1", "--project", "web", "--name", "cli");
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stdout, /space cli imported into project web/);
    await waitReady("web", "cli");

    const before = written();
    const missing = await cli("use", "space", "nosuch", "--project", "web");
    assert.equal(missing.code, 1, missing.stdout);
    assert.match(missing.stderr, /space nosuch/);
    assert.equal(written(), before, "nothing written for a missing space");

    const used = await cli("use", "space", "cli", "--project", "web");
    assert.equal(used.code, 0, used.stderr);
    const config = parse(written());
    const context = config.contexts.find((c: { name: string }) => c.name === config["current-context"]);
    assert.equal(context.context.namespace, "cli-ns");
    const server_ = config.clusters.find((c: { name: string }) => c.name === context.context.cluster).cluster.server;
    assert.equal(server_, `${server.url}/kubernetes/project/web/space/cli`);
    // No -n: the context's namespace is the space's, through the gateway's space path.
    const listed = await runKubectl(kubeconfig, ["get", "configmaps", "-o", "name"]);
    assert.match(listed, /configmap\/cli-config/);

    const moved = await cli("move", "space", "cli", "--from", "web", "--to", "shop");
    assert.equal(moved.code, 0, moved.stderr);
    assert.match(moved.stdout, /space cli moved from project web to shop/);
    assert.equal((await space("web", "cli")).status, 404);
    assert.equal((await space("shop", "cli")).status, 200);
  });
  it("a moved space is its own before it is applied again: a change prunes what it dropped, a delete removes its namespace", async () => {
    // Quotas: a kind the documented role lets the platform write and list.
    const objects = (...names: string[]) =>
      names.map((name) => ({
        apiVersion: "v1",
        kind: "ResourceQuota",
        metadata: { name },
        spec: { hard: { pods: "10" } },
      }));
    const quotas = async (namespace: string) =>
      (await kube.kubectl("get", "resourcequotas", "-n", namespace, "-o", "name")).split("\n").filter(Boolean).sort();
    for (const name of ["moved-changed", "moved-deleted"]) {
      const created = await server.request("POST", `${GROUP_PATH}/namespaces/p-web/spaceinstances`, {
        body: {
          apiVersion: "management.platform/v1",
          kind: "SpaceInstance",
          metadata: { name },
          spec: { clusterRef: { cluster: "c1" }, template: { objects: objects("kept", "dropped") } },
        },
      });
      assert.equal(created.status, 201, created.text);
      await waitReady("web", name);
    }
    // With the cluster stopped, the platform cannot re-label anything: the moved spaces' namespaces
    // and objects still name project web when the controller next sees them.
    await kube.stopApiServer();
    try {
      for (const name of ["moved-changed", "moved-deleted"]) {
        const moved = await moveTo("shop", { name, namespace: "p-web" });
        assert.equal(moved.status, 201, moved.text);
      }
      const changed = await server.request("PATCH", `${GROUP_PATH}/namespaces/p-shop/spaceinstances/moved-changed`, {
        contentType: "application/merge-patch+json",
        body: { spec: { template: { objects: objects("kept") } } },
      });
      assert.equal(changed.status, 200, changed.text);
      const deleted = await server.request("DELETE", `${GROUP_PATH}/namespaces/p-shop/spaceinstances/moved-deleted`);
      assert.equal(deleted.status, 200, deleted.text);
      // The status the move kept (Ready) is replaced: what follows is the controller's after the restart.
      await eventually("the moved space pending", async () => {
        const s = (await space("shop", "moved-changed")).json?.status ?? {};
        assert.equal(s.reason, "ClusterUnreachable", JSON.stringify(s));
      });
    } finally {
      await kube.startApiServer();
    }
    await eventually("the deleted space going", async () =>
      assert.equal((await space("shop", "moved-deleted")).status, 404),
    );
    assert.equal(await namespaceOnCluster("moved-deleted"), undefined, "its namespace went with it");
    await waitReady("shop", "moved-changed");
    assert.deepEqual(await quotas("moved-changed"), ["resourcequota/kept"]);
    const ns = await namespaceOnCluster("moved-changed");
    assert.equal(ns.metadata.labels["management.platform/project"], "shop");
    const kept = JSON.parse(await kube.kubectl("get", "resourcequota", "kept", "-n", "moved-changed", "-o", "json"));
    assert.equal(kept.metadata.labels["management.platform/project"], "shop");
  });
});
