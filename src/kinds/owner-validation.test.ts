import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { stringify } from "yaml";
import { encodeObject } from "../registry/codec.js";
import { KUBECTL, postObject } from "../testing/gateway-fixture.js";
import {
  GROUP_PATH,
  startTestServer,
  type TestResponse,
  type TestServer,
  userWithKey,
} from "../testing/test-server.js";

/**
 * `spec.owner` names a user or a team, not both (docs/permissions.md, "Owner"): 422 on the
 * field, on every kind with an owner, on a create and on an update that changes the owner; an
 * object stored with both before the rule stays writable while its owner is left as it is.
 */

const run = promisify(execFile);
const BOTH = { user: "alice", team: "devs" };

/** Each kind with an owner: where its objects live and a valid spec without the owner. */
const KINDS = [
  { resource: "clusters", kind: "Cluster", path: "", spec: { local: true } },
  { resource: "projects", kind: "Project", path: "", spec: {} },
  { resource: "sharedsecrets", kind: "SharedSecret", path: "namespaces/platform/", spec: {} },
  { resource: "projectsecrets", kind: "ProjectSecret", path: "namespaces/p-web/", spec: {} },
  { resource: "virtualclusterinstances", kind: "VirtualClusterInstance", path: "namespaces/p-web/", spec: {} },
  {
    resource: "spaceinstances",
    kind: "SpaceInstance",
    path: "namespaces/p-web/",
    spec: { clusterRef: { cluster: "c1" } },
  },
] as const;

const object = (k: (typeof KINDS)[number], name: string, owner: unknown) => ({
  apiVersion: "management.platform/v1",
  kind: k.kind,
  metadata: { name },
  spec: { ...k.spec, owner },
});

describe("spec.owner names at most one of user, team", () => {
  let server: TestServer;
  const at = (k: (typeof KINDS)[number], name = "") => `${GROUP_PATH}/${k.path}${k.resource}${name && `/${name}`}`;
  const mergePatch = (path: string, body: unknown) =>
    server.request("PATCH", path, { body, contentType: "application/merge-patch+json" });
  const assertOwnerRefused = (res: TestResponse) => {
    assert.equal(res.status, 422, res.text);
    assert.equal(res.json.reason, "Invalid");
    assert.match(res.json.message ?? "", /spec\.owner: Invalid value: .*may name at most one of user, team/);
    const causes: { field: string; reason: string; message: string }[] = res.json.details?.causes ?? [];
    assert.deepEqual(
      causes.map((c) => [c.field, c.reason]),
      [["spec.owner", "FieldValueInvalid"]],
    );
    // The field is the cause's `field`, not repeated in its message (kubectl prints both).
    assert.match(causes[0]?.message ?? "", /^Invalid value: \{.*\}: may name at most one of user, team$/);
  };

  before(async () => {
    server = await startTestServer();
    await userWithKey(server, "alice");
    await postObject(server, "teams", { metadata: { name: "devs" }, spec: { users: ["alice"] } });
    await postObject(server, "clusters", {
      metadata: { name: "c1" },
      spec: { local: true, access: [{ verbs: ["use"], users: ["*"] }] },
    });
    await postObject(server, "projects", { metadata: { name: "web" }, spec: {} });
  });
  after(() => server?.stop());

  it("covers every kind that has an owner", () => {
    const owned = server.registry
      .resourceTypes()
      .filter((rt) => rt.owner)
      .map((rt) => rt.plural)
      .sort();
    assert.deepEqual(owned, KINDS.map((k) => k.resource).sort());
  });

  it("a create naming both is 422 on spec.owner and stores nothing, on every kind", async () => {
    for (const k of KINDS) {
      const refused = await server.request("POST", at(k), { body: object(k, "both", BOTH) });
      assertOwnerRefused(refused);
      assert.equal((await server.request("GET", at(k, "both"))).status, 404, k.resource);
      // The same object with one owner is valid: the owner is what was refused.
      const created = await server.request("POST", at(k), { body: object(k, "one", { user: "alice" }) });
      assert.equal(created.status, 201, `${k.resource}: ${created.text}`);
    }
  });

  it("an update adding a team beside the user is 422, by merge patch and by PUT, on every kind", async () => {
    for (const k of KINDS) {
      // A merge patch merges into the stored owner: a team alone now names both.
      assertOwnerRefused(await mergePatch(at(k, "one"), { spec: { owner: { team: "devs" } } }));
      const stored = (await server.request("GET", at(k, "one"))).json;
      const put = await server.request("PUT", at(k, "one"), {
        body: { ...stored, spec: { ...stored.spec, owner: BOTH } },
      });
      assertOwnerRefused(put);
      assert.deepEqual((await server.request("GET", at(k, "one"))).json.spec.owner, { user: "alice" }, k.resource);
      // Handing it to the team alone is a valid change.
      const handed = await mergePatch(at(k, "one"), { spec: { owner: { user: null, team: "devs" } } });
      assert.equal(handed.status, 200, `${k.resource}: ${handed.text}`);
      assert.deepEqual(handed.json.spec.owner, { team: "devs" });
    }
  });

  it("an object stored with both stays updatable while its owner is unchanged (ratchet)", async () => {
    const project = KINDS[1];
    await postObject(server, "projects", { metadata: { name: "older" }, spec: { owner: { user: "alice" } } });
    // Written below the API, as a server before the rule stored it.
    const store = server.registry.store("projects");
    const key = store.key(undefined, "older");
    const kv = await store.storage.get(key);
    assert.ok(kv);
    const stored = JSON.parse(kv.value.toString("utf8"));
    stored.spec.owner = BOTH;
    await store.storage.update(key, encodeObject(stored), kv.modRevision);

    const described = await mergePatch(at(project, "older"), { spec: { description: "kept owner" } });
    assert.equal(described.status, 200, described.text);
    assert.deepEqual(described.json.spec.owner, BOTH);
    assert.equal(described.json.spec.description, "kept owner");
    // Changing the owner must end with a valid one.
    assertOwnerRefused(await mergePatch(at(project, "older"), { spec: { owner: { user: "bob" } } }));
    const fixed = await mergePatch(at(project, "older"), { spec: { owner: { user: null } } });
    assert.equal(fixed.status, 200, fixed.text);
    assert.deepEqual(fixed.json.spec.owner, { team: "devs" });
  });

  it("kubectl create and server-side apply print the field error", async () => {
    const kubeconfig = server.kubeconfig();
    const manifest = stringify(object(KINDS[4], "by-kubectl", BOTH));
    const kubectl = (args: string[], input: string) =>
      new Promise<{ code: number; stderr: string }>((resolve) => {
        const child = execFile(
          KUBECTL,
          [`--kubeconfig=${kubeconfig}`, ...args],
          { timeout: 30_000 },
          (err, _out, stderr) => resolve({ code: err ? 1 : 0, stderr }),
        );
        child.stdin?.end(input);
      });
    for (const args of [
      ["create", "-n", "p-web", "-f", "-"],
      ["apply", "--server-side", "-n", "p-web", "-f", "-"],
    ]) {
      const refused = await kubectl(args, manifest);
      assert.equal(refused.code, 1, refused.stderr);
      // kubectl prints `<field>: <cause message>`: the field once.
      assert.match(
        refused.stderr,
        /The VirtualClusterInstance "by-kubectl" is invalid: spec\.owner: Invalid value: .*may name at most one of user, team/,
      );
      assert.equal(refused.stderr.split("spec.owner").length - 1, 1, refused.stderr);
    }
    const { stdout } = await run(KUBECTL, [
      `--kubeconfig=${kubeconfig}`,
      "get",
      "virtualclusterinstances",
      "-n",
      "p-web",
      "-o",
      "name",
    ]);
    assert.doesNotMatch(stdout, /by-kubectl/);
  });
});
