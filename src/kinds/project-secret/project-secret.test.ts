import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { GROUP_PATH, startTestServer, type TestServer } from "../../testing/test-server.js";
import { SOURCE_SET_BY_ANNOTATION } from "./source-setter.js";

// ProjectSecret through the API of a real server: where it may live, who reads its data, how it
// is stored, and who may point it at a SharedSecret (docs/project-secrets.md).

const G = GROUP_PATH;
const PS = `${G}/namespaces/p-web/projectsecrets`;
const b64 = (s: string) => Buffer.from(s).toString("base64");
const projectSecret = (name: string, spec: Record<string, unknown>, metadata: Record<string, unknown> = {}) => ({
  apiVersion: "management.platform/v1",
  kind: "ProjectSecret",
  metadata: { name, ...metadata },
  spec,
});

describe("ProjectSecret", () => {
  let s: TestServer;
  const key: Record<string, string> = {};
  const create = async (path: string, body: Record<string, unknown>, token?: string) => {
    const r = await s.request("POST", `${G}/${path}`, { body, token });
    assert.equal(r.status, 201, `${path}: ${r.text}`);
    return r.json;
  };

  before(async () => {
    s = await startTestServer({ maxFailedAuthPerMinute: 1000 });
    for (const name of ["alice", "bob", "viewer", "mallory"]) {
      await create("users", { metadata: { name }, spec: {} });
      key[name] = (
        await create("ownedaccesskeys", { metadata: { name: `${name}-key` }, spec: { user: name } })
      ).spec.key;
    }
    await create("projects", {
      metadata: { name: "web" },
      spec: {
        members: [
          { kind: "User", name: "alice" },
          { kind: "User", name: "bob" },
          { kind: "User", name: "viewer", clusterRole: "platform-management-view" },
        ],
      },
    });
    await create("namespaces/platform/sharedsecrets", {
      metadata: { name: "db" },
      spec: { data: { password: b64("pw-1"), user: b64("app") }, access: [{ verbs: ["get"], users: ["alice"] }] },
    });
  });
  after(() => s.stop());

  it("is encrypted at rest", async () => {
    await create("namespaces/p-web/projectsecrets", projectSecret("stored", { data: { token: b64("tok-at-rest") } }));
    const kv = await s.storage.get(s.registry.store("projectsecrets").key("p-web", "stored"));
    const raw = kv?.value.toString("utf8") ?? "";
    assert.match(raw, /enc:v1:/);
    assert.doesNotMatch(raw, new RegExp(`tok-at-rest|${b64("tok-at-rest")}`));
  });

  it("lives only in the namespace of a project that exists, and is owned by it", async () => {
    const elsewhere = await s.request("POST", `${G}/namespaces/platform/projectsecrets`, {
      body: projectSecret("x", {}),
    });
    assert.equal(elsewhere.status, 422, elsewhere.text);
    assert.match(elsewhere.json.message, /project namespace/);
    const missing = await s.request("POST", `${G}/namespaces/p-nope/projectsecrets`, { body: projectSecret("x", {}) });
    assert.equal(missing.status, 404, missing.text);
    const made = await create("namespaces/p-web/projectsecrets", projectSecret("owned", {}));
    assert.deepEqual(
      made.metadata.ownerReferences.map((r: { kind: string; name: string }) => [r.kind, r.name]),
      [["Project", "web"]],
    );
  });

  it("shows its data to project members, not to viewers, and nothing to others", async () => {
    await create("namespaces/p-web/projectsecrets", projectSecret("api", { data: { token: b64("t0k") } }), key.alice);
    const byBob = await s.request("GET", `${PS}/api`, { token: key.bob });
    assert.equal(byBob.status, 200, byBob.text);
    assert.equal(byBob.json.spec.data.token, b64("t0k"));

    const byViewer = await s.request("GET", `${PS}/api`, { token: key.viewer });
    assert.equal(byViewer.status, 200, byViewer.text);
    assert.equal(byViewer.json.spec.data, undefined);
    const viewerList = await s.request("GET", PS, { token: key.viewer });
    assert.doesNotMatch(viewerList.text, new RegExp(b64("t0k")));
    const viewerWrite = await s.request("PATCH", `${PS}/api`, {
      token: key.viewer,
      contentType: "application/merge-patch+json",
      body: { spec: { data: { token: b64("mine") } } },
    });
    assert.equal(viewerWrite.status, 403, viewerWrite.text);

    const byMallory = await s.request("GET", `${PS}/api`, { token: key.mallory });
    assert.equal(byMallory.status, 403, byMallory.text);
    const malloryList = await s.request("GET", `${G}/projectsecrets`, { token: key.mallory });
    assert.equal(malloryList.status, 200, malloryList.text);
    assert.deepEqual(malloryList.json.items, []);
    const malloryCreate = await s.request("POST", PS, { token: key.mallory, body: projectSecret("m", {}) });
    assert.equal(malloryCreate.status, 403, malloryCreate.text);
  });

  it("a key scoped to a project reaches that project's secrets only", async () => {
    const scoped = async (project: string) =>
      (
        await create("ownedaccesskeys", {
          metadata: { name: `alice-${project}` },
          spec: { user: "alice", scope: { projects: [{ project }] } },
        })
      ).spec.key;
    const inWeb = await s.request("GET", `${PS}/api`, { token: await scoped("web") });
    assert.equal(inWeb.status, 200, inWeb.text);
    const elsewhere = await s.request("GET", `${PS}/api`, { token: await scoped("shop") });
    assert.equal(elsewhere.status, 403, elsewhere.text);
  });

  it("an access rule on it lets a non-member read it", async () => {
    await create(
      "namespaces/p-web/projectsecrets",
      projectSecret("shared-with-mallory", { data: { k: b64("v") }, access: [{ verbs: ["get"], users: ["mallory"] }] }),
    );
    const got = await s.request("GET", `${PS}/shared-with-mallory`, { token: key.mallory });
    assert.equal(got.status, 200, got.text);
    assert.equal(got.json.spec.data.k, b64("v"));
  });

  it("a source needs the right to read the shared secret's data, missing or not", async () => {
    for (const name of ["db", "no-such-secret"]) {
      const res = await s.request("POST", PS, {
        token: key.bob,
        body: projectSecret(`by-bob-${name}`, { source: { sharedSecret: { name } } }),
      });
      assert.equal(res.status, 403, res.text);
      assert.match(res.json.message, new RegExp(`cannot read the data of shared secret "platform/${name}"`));
    }
    // Nor by changing the source of a secret someone else pointed.
    await create(
      "namespaces/p-web/projectsecrets",
      projectSecret("pointed", { source: { sharedSecret: { name: "db" }, keys: ["password"] } }),
      key.alice,
    );
    const widen = await s.request("PATCH", `${PS}/pointed`, {
      token: key.bob,
      contentType: "application/merge-patch+json",
      body: { spec: { source: { keys: ["password", "user"] } } },
    });
    assert.equal(widen.status, 403, widen.text);
    // A change of its other fields stays open to bob.
    const describe = await s.request("PATCH", `${PS}/pointed`, {
      token: key.bob,
      contentType: "application/merge-patch+json",
      body: { spec: { description: "the app's database" } },
    });
    assert.equal(describe.status, 200, describe.text);
  });

  it("records who set the source, whatever the body says", async () => {
    const made = await create(
      "namespaces/p-web/projectsecrets",
      projectSecret(
        "recorded",
        { source: { sharedSecret: { name: "db" } } },
        { annotations: { [SOURCE_SET_BY_ANNOTATION]: "User:admin" } },
      ),
      key.alice,
    );
    assert.equal(made.metadata.annotations[SOURCE_SET_BY_ANNOTATION], "User:alice");
    const forged = await s.request("PATCH", `${PS}/recorded`, {
      token: key.bob,
      contentType: "application/merge-patch+json",
      body: { metadata: { annotations: { [SOURCE_SET_BY_ANNOTATION]: "User:admin" } } },
    });
    assert.equal(forged.status, 200, forged.text);
    assert.equal(forged.json.metadata.annotations[SOURCE_SET_BY_ANNOTATION], "User:alice");
    const dropped = await s.request("PATCH", `${PS}/recorded`, {
      token: key.bob,
      contentType: "application/merge-patch+json",
      body: { spec: { source: null, data: { own: b64("mine") } } },
    });
    assert.equal(dropped.status, 200, dropped.text);
    assert.equal(dropped.json.metadata.annotations?.[SOURCE_SET_BY_ANNOTATION], undefined);
    assert.equal(dropped.json.spec.data.own, b64("mine"));
  });

  it("with a source, its data belongs to the platform", async () => {
    const withData = await s.request("POST", PS, {
      token: key.alice,
      body: projectSecret("both", { source: { sharedSecret: { name: "db" } }, data: { x: b64("y") } }),
    });
    assert.equal(withData.status, 422, withData.text);
    assert.match(withData.json.message, /spec\.data/);
    await create(
      "namespaces/p-web/projectsecrets",
      projectSecret("kept", { source: { sharedSecret: { name: "db" } } }),
      key.alice,
    );
    const write = await s.request("PATCH", `${PS}/kept`, {
      token: key.alice,
      contentType: "application/merge-patch+json",
      body: { spec: { data: { password: b64("overwritten") } } },
    });
    assert.equal(write.status, 422, write.text);
  });
});
