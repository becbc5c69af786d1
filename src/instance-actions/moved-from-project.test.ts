import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { postObject } from "../testing/gateway-fixture.js";
import { GROUP_PATH, startTestServer, type TestServer, userWithKey } from "../testing/test-server.js";

/** A project name found nowhere else in the objects, so that finding it anywhere is a leak. */
const OLD_PROJECT = "confidential-merger";

/**
 * An instance moved before the platform recorded its namespace's UID (its cluster never answered:
 * `local: true` outside a pod) records which project's labels its namespace still carries, so
 * that its controller keeps it as its own (namespace-claim.ts). It records that project's UID:
 * a member of the project it moved into, who may not see the one it left, reads no name of it in
 * the object (docs/spaces.md, "Move"; docs/virtual-clusters.md, "Lifecycle").
 */
describe("a moved instance does not name the project it left to the readers of its new one", () => {
  let server: TestServer;
  let reader: string;
  let oldProjectUID: string;

  /** The VirtualClusterInstance and the SpaceInstance, placed where their names carry no project. */
  const kinds = [
    {
      resource: "virtualclusterinstances",
      action: "migratevirtualclusterinstance",
      requestKind: "ProjectMigrateVirtualClusterInstance",
      sourceField: "sourceVirtualClusterInstance",
      spec: { templateRef: { name: "default" }, clusterRef: { cluster: "c1", namespace: "team-dev" } },
    },
    {
      resource: "spaceinstances",
      action: "migratespaceinstance",
      requestKind: "ProjectMigrateSpaceInstance",
      sourceField: "sourceSpaceInstance",
      spec: { clusterRef: { cluster: "c1" } },
    },
  ];

  before(async () => {
    server = await startTestServer();
    reader = await userWithKey(server, "reader");
    await postObject(server, "clusters", { metadata: { name: "c1" }, spec: { local: true } });
    oldProjectUID = (await postObject(server, "projects", { metadata: { name: OLD_PROJECT }, spec: {} })).metadata.uid;
    await postObject(server, "projects", {
      metadata: { name: "shop" },
      spec: { members: [{ kind: "User", name: "reader" }] },
    });
    for (const { resource, action, requestKind, sourceField, spec } of kinds) {
      const created = await postObject(server, `namespaces/p-${OLD_PROJECT}/${resource}`, {
        metadata: { name: "dev" },
        spec,
      });
      assert.ok((created.metadata.finalizers ?? []).length > 0, `${resource}: the platform keeps its cleanup`);
      const moved = await server.request("POST", `${GROUP_PATH}/projects/shop/${action}`, {
        body: {
          apiVersion: "management.platform/v1",
          kind: requestKind,
          metadata: { name: "shop" },
          [sourceField]: { name: "dev", namespace: `p-${OLD_PROJECT}` },
        },
      });
      assert.equal(moved.status, 201, moved.text);
    }
  });
  after(() => server?.stop());

  for (const { resource } of kinds) {
    it(`${resource}: the status records the old project's UID, and a reader of the new one finds its name nowhere`, async () => {
      const asAdmin = await server.request("GET", `${GROUP_PATH}/namespaces/p-shop/${resource}/dev`);
      assert.equal(asAdmin.status, 200, asAdmin.text);
      assert.equal(asAdmin.json.status.namespaceUID, undefined, "moved before a namespace UID was recorded");
      assert.equal(asAdmin.json.status.movedFromProjectUID, oldProjectUID);

      const got = await server.request("GET", `${GROUP_PATH}/namespaces/p-shop/${resource}/dev`, { token: reader });
      assert.equal(got.status, 200, got.text);
      const listed = await server.request("GET", `${GROUP_PATH}/namespaces/p-shop/${resource}`, { token: reader });
      assert.equal(listed.status, 200, listed.text);
      const table = await server.request("GET", `${GROUP_PATH}/namespaces/p-shop/${resource}/dev`, {
        token: reader,
        headers: { accept: "application/json;as=Table;v=v1;g=meta.k8s.io" },
      });
      assert.equal(table.status, 200, table.text);
      for (const answer of [got, listed, table]) assert.ok(!answer.text.includes(OLD_PROJECT), answer.text);
      // The project it left is not the reader's to see at all.
      const old = await server.request("GET", `${GROUP_PATH}/projects/${OLD_PROJECT}`, { token: reader });
      assert.equal(old.status, 403, old.text);
    });
  }
});
