import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { systemContext } from "../registry/request-context.js";
import { postObject } from "../testing/gateway-fixture.js";
import { GROUP_PATH, startTestServer, type TestServer, userWithKey } from "../testing/test-server.js";

/**
 * The status fields the platform decides with are written by the platform only
 * (docs/virtual-clusters.md, docs/spaces.md): a client who holds update on the status
 * subresource (alice, a plain member of project web) changes the observation, and those fields
 * keep their stored values, present or absent, whatever the client sends.
 */

/** What the platform wrote for a deployed virtual cluster instance. */
const INSTANCE_FIELDS = {
  deployed: {
    template: "tiny",
    version: "1.0.0",
    parameters: {},
    objects: [{ apiVersion: "apps/v1", kind: "StatefulSet", name: "dev" }],
  },
  namespaceUID: "uid-of-its-namespace",
  lastActivity: "2026-12-07T01:00:00Z",
  access: [{ name: "platform:vcluster-access:view", clusterRole: "view", subjects: ["User/bob"], applied: true }],
};

/** What a client would write instead: prune another namespace's objects, take over another namespace (by UID, or another project's labels), stay awake… */
const CLIENT_FIELDS = {
  deployed: {
    template: "tiny",
    version: "1.0.0",
    parameters: {},
    objects: [{ apiVersion: "v1", kind: "Secret", name: "someone-elses" }],
  },
  namespaceUID: "uid-of-another-namespace",
  movedFromProjectUID: "uid-of-another-project",
  movedFromProject: "another-project",
  lastActivity: "2099-01-01T00:00:00Z",
  sleep: { since: "2026-12-07T01:00:00Z", reason: "Requested" },
  access: [
    { name: "platform:vcluster-access:cluster-admin", clusterRole: "cluster-admin", subjects: [], applied: true },
  ],
};

const SPACE_FIELDS = {
  namespaceUID: "uid-of-its-namespace",
  objects: [{ apiVersion: "v1", kind: "ResourceQuota", name: "quota", applied: true }],
};

const SPACE_CLIENT_FIELDS = {
  namespaceUID: "uid-of-another-namespace",
  movedFromProjectUID: "uid-of-another-project",
  movedFromProject: "another-project",
  imported: true,
  objects: [{ apiVersion: "v1", kind: "Secret", name: "someone-elses", applied: true }],
};

describe("status fields only the platform writes", () => {
  let server: TestServer;
  let alice: string;
  const path = (resource: string, name: string) => `${GROUP_PATH}/namespaces/p-web/${resource}/${name}`;
  const mergeStatus = (resource: string, name: string, status: Record<string, unknown>, token?: string) =>
    server.request("PATCH", `${path(resource, name)}/status`, {
      body: { status },
      contentType: "application/merge-patch+json",
      token,
    });
  /** As the platform's controllers write status: the server's own identity. */
  const platformWrites = (resource: string, name: string, status: Record<string, unknown>) =>
    server.registry
      .store(resource)
      .guaranteedUpdate(
        systemContext(),
        "p-web",
        name,
        (obj) => ({ ...obj, status: { ...obj.status, ...status } }),
        "status",
        "test",
      );

  before(async () => {
    server = await startTestServer();
    alice = await userWithKey(server, "alice");
    await postObject(server, "projects", {
      metadata: { name: "web" },
      spec: { members: [{ kind: "User", name: "alice" }] },
    });
    // No cluster: the controllers write their observation (ClusterNotSet, ClusterNotFound) and leave these fields alone.
    await postObject(server, "namespaces/p-web/virtualclusterinstances", { metadata: { name: "dev" }, spec: {} });
    await postObject(server, "namespaces/p-web/spaceinstances", {
      metadata: { name: "team-ns" },
      spec: { clusterRef: { cluster: "gone" } },
    });
    await platformWrites("virtualclusterinstances", "dev", INSTANCE_FIELDS);
    await platformWrites("spaceinstances", "team-ns", SPACE_FIELDS);
  });
  after(() => server?.stop());

  it("a virtual cluster instance: a member's status write changes the phase, never what was deployed, the namespace, sleep or activity", async () => {
    const written = await mergeStatus(
      "virtualclusterinstances",
      "dev",
      { ...CLIENT_FIELDS, phase: "Failed", reason: "ByHand" },
      alice,
    );
    assert.equal(written.status, 200, written.text);
    assert.equal(written.json.status.phase, "Failed");
    assert.equal(written.json.status.reason, "ByHand");
    for (const [field, value] of Object.entries(INSTANCE_FIELDS)) {
      assert.deepEqual(written.json.status[field], value, `status.${field}`);
    }
    assert.equal(written.json.status.sleep, undefined, "status.sleep: absent as stored");
    assert.equal(written.json.status.movedFromProject, undefined, "status.movedFromProject: absent as stored");
    assert.equal(written.json.status.movedFromProjectUID, undefined, "status.movedFromProjectUID: absent as stored");
    const dropped = await mergeStatus(
      "virtualclusterinstances",
      "dev",
      { deployed: null, namespaceUID: null, lastActivity: null, access: null },
      alice,
    );
    assert.equal(dropped.status, 200, dropped.text);
    const stored = (await server.request("GET", path("virtualclusterinstances", "dev"))).json;
    for (const [field, value] of Object.entries(INSTANCE_FIELDS)) {
      assert.deepEqual(stored.status[field], value, `status.${field} after a write dropping it`);
    }
  });

  it("an admin's status write is a client's too; the platform's own write changes them", async () => {
    const byAdmin = await mergeStatus("virtualclusterinstances", "dev", { namespaceUID: "uid-by-admin" });
    assert.equal(byAdmin.status, 200, byAdmin.text);
    assert.equal(byAdmin.json.status.namespaceUID, INSTANCE_FIELDS.namespaceUID);
    const byPlatform = await platformWrites("virtualclusterinstances", "dev", { namespaceUID: "uid-now" });
    assert.equal(byPlatform?.status?.namespaceUID, "uid-now");
  });

  it("a space: a member's status write never changes its namespace's UID, whether it was imported, or the objects it prunes", async () => {
    const written = await mergeStatus(
      "spaceinstances",
      "team-ns",
      { ...SPACE_CLIENT_FIELDS, message: "by hand" },
      alice,
    );
    assert.equal(written.status, 200, written.text);
    assert.equal(written.json.status.message, "by hand");
    assert.equal(written.json.status.namespaceUID, SPACE_FIELDS.namespaceUID);
    assert.deepEqual(written.json.status.objects, SPACE_FIELDS.objects);
    assert.equal(written.json.status.imported, undefined);
    assert.equal(written.json.status.movedFromProject, undefined);
    assert.equal(written.json.status.movedFromProjectUID, undefined);
  });
});
