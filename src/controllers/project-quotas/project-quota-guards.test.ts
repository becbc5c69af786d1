import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { BACKUP_PATH } from "../../backup/backup-route.js";
import { PROJECT_QUOTA_GUARDS } from "../../kinds/project/project-quotas.js";
import { EtcdCluster } from "../../testing/etcd-cluster.js";
import { postObject } from "../../testing/gateway-fixture.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../../testing/test-server.js";

/** Polling bound for the controller (a hang guard; the test asserts on values, not time). */
const POLLS = 400;
const POLL_MS = 25;
/** A finalizer nobody removes but the test. */
const HOLD = "example.com/hold";

/**
 * A deleted project's quota guard key (src/admission/project-quotas.ts) goes with it
 * (docs/spaces.md#quotas): the project-quotas controller removes it once the project is gone,
 * again when a write that was in flight wrote it back, and at start for projects deleted while
 * no controller ran; a backup never carries one. On both storage backends.
 */
for (const backend of ["sqlite", "etcd"] as const) {
  describe(`project quota guards are removed with their project (${backend})`, { timeout: 120_000 }, () => {
    let etcd: EtcdCluster | undefined;
    let server: TestServer;
    const start = (dataDir?: string) =>
      startTestServer({ ...(etcd ? { storage: etcd.url } : {}), ...(dataDir ? { dataDir } : {}) });
    const guard = (project: string) => server.registry.keptKeys(PROJECT_QUOTA_GUARDS).get(project);
    /** Waits until the guard of `project` is gone; false when it never goes. */
    const goneInTime = async (project: string) => {
      for (let i = 0; i < POLLS; i++) {
        if (!(await guard(project))) return true;
        await sleep(POLL_MS);
      }
      return false;
    };

    before(async () => {
      if (backend === "etcd") etcd = await EtcdCluster.start(1);
      server = await start();
      await postObject(server, "clusters", { metadata: { name: "c1" }, spec: { local: true } });
    });
    after(async () => {
      await server?.stop();
      await etcd?.stop();
    });

    it("the guard goes once the project is deleted, and again after a late write put it back", async () => {
      await postObject(server, "projects", {
        metadata: { name: "gone" },
        spec: { quotas: { project: { virtualClusterInstances: 3 } } },
      });
      // Its finalizer keeps it (terminating) after the project's delete took it along, so that it
      // can be written to below.
      await postObject(server, "namespaces/p-gone/virtualclusterinstances", {
        metadata: { name: "left", finalizers: [HOLD] },
        spec: { clusterRef: { cluster: "c1" } },
      });
      assert.ok(await guard("gone"), "a create in a project with quotas writes its guard");
      const deleted = await server.request("DELETE", `${GROUP_PATH}/projects/gone`);
      assert.equal(deleted.status, 200, deleted.text);
      assert.equal(await goneInTime("gone"), true, "the guard of the deleted project is removed");

      // A write admitted before the delete commits after it, writing the guard back: its
      // instance's change brings the controller back to the project.
      await server.registry.keptKeys(PROJECT_QUOTA_GUARDS).create("gone", "late");
      const touched = await server.request("PATCH", `${GROUP_PATH}/namespaces/p-gone/virtualclusterinstances/left`, {
        body: { metadata: { finalizers: null } },
        contentType: "application/merge-patch+json",
      });
      assert.equal(touched.status, 200, touched.text);
      assert.equal(await goneInTime("gone"), true, "the guard written back is removed too");

      const backup = await server.request("GET", BACKUP_PATH);
      assert.equal(backup.status, 200, backup.text);
      assert.ok(backup.text.includes("/registry/"), "the backup holds the objects");
      assert.equal(backup.text.includes(PROJECT_QUOTA_GUARDS), false, "and no quota guard");
    });

    it("at start, guards of projects deleted while no controller ran are removed; a live project's stays", async () => {
      await postObject(server, "projects", {
        metadata: { name: "kept" },
        spec: { quotas: { project: { spaceInstances: 3 } } },
      });
      await postObject(server, "namespaces/p-kept/spaceinstances", {
        metadata: { name: "s" },
        spec: { clusterRef: { cluster: "c1" } },
      });
      assert.ok(await guard("kept"));
      await server.registry.keptKeys(PROJECT_QUOTA_GUARDS).create("ghost", "left by an older version");
      const dataDir = server.dataDir;
      await server.stop({ keepData: true });
      server = await start(dataDir);
      assert.equal(await goneInTime("ghost"), true, "the orphan is removed at start");
      assert.ok(await guard("kept"), "the live project's guard stays");
    });
  });
}
