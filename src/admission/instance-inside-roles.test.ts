import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { postObject } from "../testing/gateway-fixture.js";
import { GROUP_PATH, startTestServer, type TestServer, userWithKey } from "../testing/test-server.js";

/**
 * Nobody gives a role inside a virtual cluster above their own (docs/virtual-clusters.md, "Rights
 * inside the virtual cluster"). alice and bob are plain members of project web: they may write
 * its instances but hold no role inside one unless an access rule gives it to them.
 */
describe("VirtualClusterInstance admission: roles inside", () => {
  let server: TestServer;
  let alice: string;
  let bob: string;
  const INSTANCES = `${GROUP_PATH}/namespaces/p-web/virtualclusterinstances`;
  const instance = (name: string, spec: Record<string, unknown>) => ({
    apiVersion: "management.platform/v1",
    kind: "VirtualClusterInstance",
    metadata: { name },
    spec,
  });
  const create = (body: unknown, token?: string) => server.request("POST", INSTANCES, { body, token });
  const setAccess = (name: string, access: unknown[], token?: string) =>
    server.request("PATCH", `${INSTANCES}/${name}`, {
      token,
      contentType: "application/merge-patch+json",
      body: { spec: { access } },
    });

  before(async () => {
    server = await startTestServer();
    alice = await userWithKey(server, "alice");
    bob = await userWithKey(server, "bob");
    await userWithKey(server, "carol");
    await postObject(server, "projects", {
      metadata: { name: "web" },
      spec: {
        members: [
          { kind: "User", name: "alice" },
          { kind: "User", name: "bob" },
        ],
      },
    });
  });
  after(() => server?.stop());

  it("a member who holds no role inside gives none: the default cluster-admin, nor view", async () => {
    assert.equal((await create(instance("plain", {}))).status, 201);
    const byDefault = await setAccess("plain", [{ verbs: ["use"], users: ["carol"] }], bob);
    assert.equal(byDefault.status, 403, byDefault.text);
    assert.match(
      byDefault.json.message,
      /cannot give clusterRole "cluster-admin" inside the virtual cluster \(the default when a rule names none\): it holds no role there/,
    );
    const view = await setAccess("plain", [{ verbs: ["use"], users: ["carol"], clusterRole: "view" }], bob);
    assert.equal(view.status, 403, view.text);
    // Naming oneself owner of someone else's instance on create gives nothing either.
    const created = await create(
      instance("others", { owner: { user: "alice" }, access: [{ verbs: ["use"], users: ["bob"] }] }),
      bob,
    );
    assert.equal(created.status, 403, created.text);
  });

  it("a member gives ranked roles up to the one an access rule gives them, nothing above or unranked", async () => {
    const edit = { verbs: ["use"], users: ["bob"], clusterRole: "edit" };
    assert.equal((await create(instance("shared", { access: [edit] }))).status, 201);
    const view = await setAccess("shared", [edit, { verbs: ["use"], users: ["carol"], clusterRole: "view" }], bob);
    assert.equal(view.status, 200, view.text);
    const admin = await setAccess("shared", [edit, { verbs: ["use"], users: ["carol"], clusterRole: "admin" }], bob);
    assert.equal(admin.status, 403, admin.text);
    assert.match(
      admin.json.message,
      /cannot give clusterRole "admin" inside the virtual cluster: it holds "edit" there/,
    );
    const custom = await setAccess("shared", [edit, { verbs: ["use"], users: ["carol"], clusterRole: "reader" }], bob);
    assert.equal(custom.status, 403, custom.text);
    // Rules already there are not the writer's to justify: other fields stay writable.
    assert.equal((await create(instance("full", { access: [{ verbs: ["use"], users: ["carol"] }] }))).status, 201);
    const relabel = await server.request("PATCH", `${INSTANCES}/full`, {
      token: bob,
      contentType: "application/merge-patch+json",
      body: { metadata: { labels: { tier: "dev" } } },
    });
    assert.equal(relabel.status, 200, relabel.text);
  });

  it("the owner and who administers the instance give any role, the default included", async () => {
    const owned = await create(
      instance("mine", { owner: { user: "alice" }, access: [{ verbs: ["use"], users: ["carol"] }] }),
      alice,
    );
    assert.equal(owned.status, 201, owned.text);
    const more = await setAccess(
      "mine",
      [
        { verbs: ["use"], users: ["carol"] },
        { verbs: ["use"], users: ["bob"], clusterRole: "platform-operator" },
      ],
      alice,
    );
    assert.equal(more.status, 200, more.text);
    // The admin administers every instance.
    const byAdmin = await setAccess("plain", [{ verbs: ["use"], users: ["carol"] }]);
    assert.equal(byAdmin.status, 200, byAdmin.text);
  });
});
