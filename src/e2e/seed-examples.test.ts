import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";
import { waitFor } from "../testing/wait-for.js";

/** The seed's examples, as curl would send them: YAML create, PUT of the object as retrieved, JSON patch, get, list, delete. */
const kinds = [
  { plural: "teams", kind: "Team", spec: { displayName: "Team A", groups: ["eng"] } },
  { plural: "users", kind: "User", spec: { displayName: "Alice", email: "alice@example.com", username: "alice" } },
  {
    plural: "clusters",
    kind: "Cluster",
    spec: { displayName: "Prod", config: { secretName: "prod-kubeconfig", secretNamespace: "platform" } },
  },
  { plural: "ownedaccesskeys", kind: "OwnedAccessKey", spec: { displayName: "CI", user: "admin" } },
  { plural: "projects", kind: "Project", spec: { displayName: "Web" } },
  {
    plural: "namespaces/platform/sharedsecrets",
    kind: "SharedSecret",
    spec: { displayName: "DB", data: { password: "c2VjcmV0" } },
  },
  { plural: "namespaces/p-web/virtualclusterinstances", kind: "VirtualClusterInstance", spec: { displayName: "dev" } },
];

describe("seed examples over HTTPS", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
    // Instances live in a project's namespace, which exists only with its Project.
    const web = await server.request("POST", `${GROUP_PATH}/projects`, { body: { metadata: { name: "web" } } });
    assert.equal(web.status, 201, web.text);
  });
  after(async () => {
    await server.stop();
  });

  for (const k of kinds) {
    it(`${k.kind}: create (YAML), get, list, replace, json patch, delete`, async () => {
      const name = `example-${k.kind.toLowerCase()}`;
      const yaml = `apiVersion: management.platform/v1\nkind: ${k.kind}\nmetadata:\n  name: ${name}\n  creationTimestamp: null\nspec: ${JSON.stringify(k.spec)}\n`;
      const created = await server.request("POST", `${GROUP_PATH}/${k.plural}`, {
        raw: yaml,
        contentType: "application/yaml",
      });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.json.metadata.name, name);
      assert.match(created.json.metadata.uid, /^[0-9a-f-]{36}$/);
      assert.equal(created.json.metadata.generation, 1);

      const read = () => server.request("GET", `${GROUP_PATH}/${k.plural}/${name}`);
      // The cluster health controller writes a Cluster's status right after creation, the
      // virtual cluster status controller an instance's (a new resourceVersion): wait for that,
      // as a client editing one would.
      const statusWritten = k.kind === "Cluster" || k.kind === "VirtualClusterInstance";
      const got = statusWritten
        ? await waitFor(`${k.kind} ${name}'s status written`, read, (r) => Boolean(r.json.status?.phase))
        : await read();
      assert.equal(got.status, 200);
      if (!statusWritten) assert.equal(got.json.metadata.resourceVersion, created.json.metadata.resourceVersion);

      const list = await server.request("GET", `${GROUP_PATH}/${k.plural}`);
      assert.equal(list.status, 200);
      assert.equal(list.json.kind, `${k.kind}List`);
      assert.ok(list.json.items.some((i: { metadata: { name: string } }) => i.metadata.name === name));

      const changed = { ...got.json, spec: { ...got.json.spec, description: "changed" } };
      const replaced = await server.request("PUT", `${GROUP_PATH}/${k.plural}/${name}`, {
        body: changed,
        contentType: "application/yaml",
      });
      assert.equal(replaced.status, 200, replaced.text);
      assert.equal(replaced.json.spec.description, "changed");
      assert.equal(replaced.json.metadata.uid, created.json.metadata.uid);
      assert.equal(replaced.json.metadata.generation, 2);

      const patched = await server.request("PATCH", `${GROUP_PATH}/${k.plural}/${name}`, {
        body: [{ op: "add", path: "/metadata/annotations", value: { "example.com/note": "hello" } }],
        contentType: "application/json-patch+json",
      });
      assert.equal(patched.status, 200, patched.text);
      assert.equal(patched.json.metadata.annotations["example.com/note"], "hello");

      const deleted = await server.request("DELETE", `${GROUP_PATH}/${k.plural}/${name}`);
      assert.equal(deleted.status, 200, deleted.text);
      assert.equal(deleted.json.metadata.name, name);
      const gone = await server.request("GET", `${GROUP_PATH}/${k.plural}/${name}`);
      assert.equal(gone.status, 404);
      assert.equal(gone.json.reason, "NotFound");
    });
  }
});
