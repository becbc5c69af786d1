import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { postObject } from "../testing/gateway-fixture.js";
import { GROUP_PATH, startTestServer, type TestServer, userWithKey } from "../testing/test-server.js";

/**
 * Naming an instance's owner gives the owner the top role inside (docs/permissions.md, "Who may
 * name an instance's owner"): a create naming someone other than the caller, and an update
 * changing the owner at all, need the instance's ownership or `administer` on it. bob is a plain
 * member of projects web and other (update, no administer); dana a project admin of web (she
 * administers its instances); both are in team devs; carol is in no project.
 */

const API = "management.platform/v1";
const at = (project: string, resource: string) => `${GROUP_PATH}/namespaces/p-${project}/${resource}`;
const VCIS = at("web", "virtualclusterinstances");
const SPACES = at("web", "spaceinstances");
const vci = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: API,
  kind: "VirtualClusterInstance",
  metadata: { name },
  spec,
});
const space = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: API,
  kind: "SpaceInstance",
  metadata: { name },
  spec: { clusterRef: { cluster: "c1" }, ...spec },
});

describe("who may name the owner of a space or virtual cluster instance", () => {
  let server: TestServer;
  let alice: string;
  let bob: string;
  let carol: string;
  let dana: string;
  const mergePatch = (path: string, body: unknown, token: string) =>
    server.request("PATCH", path, { body, token, contentType: "application/merge-patch+json" });
  const ownerOf = async (path: string) => (await server.request("GET", path)).json.spec.owner;

  before(async () => {
    server = await startTestServer();
    alice = await userWithKey(server, "alice");
    bob = await userWithKey(server, "bob");
    carol = await userWithKey(server, "carol");
    dana = await userWithKey(server, "dana");
    await postObject(server, "teams", { metadata: { name: "devs" }, spec: { users: ["bob", "dana"] } });
    await postObject(server, "clusters", {
      metadata: { name: "c1" },
      spec: { local: true, access: [{ verbs: ["use"], users: ["*"] }] },
    });
    const members = [
      { kind: "User", name: "alice" },
      { kind: "User", name: "bob" },
      { kind: "User", name: "dana", clusterRole: "platform-management-admin" },
    ];
    await postObject(server, "projects", { metadata: { name: "web" }, spec: { members } });
    await postObject(server, "projects", {
      metadata: { name: "other" },
      spec: { members: members.map((m) => ({ kind: m.kind, name: m.name })) },
    });
  });
  after(() => server?.stop());

  it("a writer with update but no role inside cannot make themselves the space's owner (403 naming spec.owner)", async () => {
    const created = await server.request("POST", SPACES, {
      body: space("alices", {
        owner: { user: "alice" },
        access: [{ verbs: ["get", "update", "patch"], users: ["carol"], clusterRole: "view" }],
      }),
    });
    assert.equal(created.status, 201, created.text);
    const patched = await mergePatch(`${SPACES}/alices`, { spec: { owner: { user: "carol" } } }, carol);
    assert.equal(patched.status, 403, patched.text);
    assert.equal(patched.json.reason, "Forbidden");
    assert.match(patched.json.message, /User "carol" cannot change spec\.owner to user "carol"/);
    // A full update is refused alike.
    const stored = (await server.request("GET", `${SPACES}/alices`)).json;
    const put = await server.request("PUT", `${SPACES}/alices`, {
      body: { ...stored, spec: { ...stored.spec, owner: { user: "carol" } } },
      token: carol,
    });
    assert.equal(put.status, 403, put.text);
    assert.deepEqual(await ownerOf(`${SPACES}/alices`), { user: "alice" });
    // Her other fields stay writable for her.
    const described = await mergePatch(`${SPACES}/alices`, { spec: { description: "x" } }, carol);
    assert.equal(described.status, 200, described.text);
  });

  it("an access rule granting administer on the space lets its holder give it", async () => {
    const created = await server.request("POST", SPACES, {
      body: space("handed", {
        owner: { user: "alice" },
        access: [{ verbs: ["get", "update", "patch", "administer"], users: ["carol"] }],
      }),
    });
    assert.equal(created.status, 201, created.text);
    const patched = await mergePatch(`${SPACES}/handed`, { spec: { owner: { user: "carol" } } }, carol);
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(await ownerOf(`${SPACES}/handed`), { user: "carol" });
  });

  it("a plain project member cannot take, give away or clear someone else's virtual cluster instance", async () => {
    assert.equal((await server.request("POST", VCIS, { body: vci("alices"), token: alice })).status, 201);
    // (A merge patch of only a team would name a team beside the user: 422, owner-validation.test.ts.)
    for (const owner of [{ user: "bob" }, { user: null, team: "devs" }, null]) {
      const refused = await mergePatch(`${VCIS}/alices`, { spec: { owner } }, bob);
      assert.equal(refused.status, 403, `${JSON.stringify(owner)}: ${refused.text}`);
      assert.match(refused.json.message, /cannot change spec\.owner/);
      assert.match(refused.json.message, /"cluster-admin" inside the virtual cluster/);
    }
    assert.deepEqual(await ownerOf(`${VCIS}/alices`), { user: "alice" });
    // A project admin administers the instance: she may give it.
    const given = await mergePatch(`${VCIS}/alices`, { spec: { owner: { user: null, team: "devs" } } }, dana);
    assert.equal(given.status, 200, given.text);
    assert.deepEqual(await ownerOf(`${VCIS}/alices`), { team: "devs" });
  });

  it("an owner may hand their instance over", async () => {
    assert.equal((await server.request("POST", VCIS, { body: vci("bobs"), token: bob })).status, 201);
    const handed = await mergePatch(`${VCIS}/bobs`, { spec: { owner: { user: null, team: "devs" } } }, bob);
    assert.equal(handed.status, 200, handed.text);
    assert.deepEqual(await ownerOf(`${VCIS}/bobs`), { team: "devs" });
  });

  it("a create naming an owner other than the caller needs administer; naming oneself does not", async () => {
    for (const [path, body] of [
      [VCIS, vci("for-devs", { owner: { team: "devs" } })],
      [SPACES, space("for-devs", { owner: { team: "devs" } })],
    ] as const) {
      const refused = await server.request("POST", path, { body, token: bob });
      assert.equal(refused.status, 403, refused.text);
      assert.match(refused.json.message, /User "bob" cannot set spec\.owner to team "devs"/);
      assert.equal((await server.request("GET", `${path}/for-devs`)).status, 404);
    }
    const own = await server.request("POST", VCIS, { body: vci("bobs-own", { owner: { user: "bob" } }), token: bob });
    assert.equal(own.status, 201, own.text);
    const byAdmin = await server.request("POST", VCIS, {
      body: vci("for-devs", { owner: { team: "devs" } }),
      token: dana,
    });
    assert.equal(byAdmin.status, 201, byAdmin.text);
  });

  it("a move keeps the owner only for who could name it: a plain member is refused, a project admin is not", async () => {
    const created = await server.request("POST", at("other", "virtualclusterinstances"), {
      body: vci("teams", { owner: { team: "devs" } }),
    });
    assert.equal(created.status, 201, created.text);
    const move = (token: string) =>
      server.request("POST", `${GROUP_PATH}/projects/web/migratevirtualclusterinstance`, {
        body: {
          apiVersion: API,
          kind: "ProjectMigrateVirtualClusterInstance",
          sourceVirtualClusterInstance: { name: "teams", namespace: "p-other" },
        },
        token,
      });
    const refused = await move(bob);
    assert.equal(refused.status, 403, refused.text);
    assert.match(refused.json.message, /cannot set spec\.owner to team "devs"/);
    assert.equal((await server.request("GET", `${at("other", "virtualclusterinstances")}/teams`)).status, 200);
    const moved = await move(dana);
    assert.equal(moved.status, 201, moved.text);
    assert.deepEqual(await ownerOf(`${VCIS}/teams`), { team: "devs" });
  });
});
