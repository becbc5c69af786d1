import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, before, describe, it } from "node:test";
import { API_PREFIX } from "../api/object.js";
import { GROUP_PATH, startTestServer, type TestServer, userWithKey } from "../testing/test-server.js";
import { WatchClient } from "../testing/watch-client.js";

/**
 * The core group's Namespaces (`kubectl get ns`, kubens): `platform` and each project's
 * `p-<project>`, read-only, each caller seeing those it can read something in.
 */
describe("namespaces", () => {
  let server: TestServer;
  const namespaces = `${API_PREFIX}/api/v1/namespaces`;
  const keys: Record<string, string> = {};
  const names = async (token?: string) => {
    const res = await server.request("GET", namespaces, { token });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.kind, "NamespaceList");
    return res.json.items.map((n: { metadata: { name: string } }) => n.metadata.name);
  };

  before(async () => {
    server = await startTestServer();
    for (const name of ["nobody", "member", "reader", "viewer"]) keys[name] = await userWithKey(server, name);
    const viewer = await server.request("PATCH", `${GROUP_PATH}/users/viewer`, {
      body: { spec: { clusterRoles: [{ name: "platform-management-view" }] } },
      contentType: "application/merge-patch+json",
    });
    assert.equal(viewer.status, 200, viewer.text);
    for (const [project, members] of [
      ["web", [{ kind: "User", name: "member" }]],
      ["api", []],
    ] as const) {
      const res = await server.request("POST", `${GROUP_PATH}/projects`, {
        body: { metadata: { name: project }, spec: { members } },
      });
      assert.equal(res.status, 201, res.text);
    }
    // One shared secret in `platform` that `reader` may get through its access rules.
    const secret = await server.request("POST", `${GROUP_PATH}/namespaces/platform/sharedsecrets`, {
      body: { metadata: { name: "for-reader" }, spec: { access: [{ users: ["reader"], verbs: ["get"] }] } },
    });
    assert.equal(secret.status, 201, secret.text);
  });
  after(async () => {
    await server.stop();
  });

  it("lists platform and every project's namespace to an admin, as Namespaces", async () => {
    assert.deepEqual(await names(), ["platform", "p-api", "p-web"]);
    const web = await server.request("GET", `${namespaces}/p-web`);
    assert.equal(web.status, 200, web.text);
    assert.equal(web.json.kind, "Namespace");
    assert.equal(web.json.apiVersion, "v1");
    assert.equal(web.json.status.phase, "Active");
    assert.equal(web.json.metadata.labels["kubernetes.io/metadata.name"], "p-web");
    assert.equal((await server.request("GET", `${namespaces}/p-missing`)).status, 404);
    const selected = await server.request("GET", `${namespaces}?fieldSelector=metadata.name%3Dp-web`);
    assert.deepEqual(
      selected.json.items.map((n: { metadata: { name: string } }) => n.metadata.name),
      ["p-web"],
    );
  });

  it("each caller sees the namespaces it can read something in", async () => {
    assert.deepEqual(await names(keys.nobody), []);
    assert.deepEqual(await names(keys.member), ["p-web"], "a project member: its project's namespace");
    assert.deepEqual(await names(keys.reader), ["platform"], "an access rule on one object there");
    assert.deepEqual(await names(keys.viewer), ["platform", "p-api", "p-web"], "the view role reads everything");
    const hidden = await server.request("GET", `${namespaces}/platform`, { token: keys.nobody });
    assert.equal(hidden.status, 404, "one the caller cannot read in is not there for it");
    assert.equal((await server.request("GET", `${namespaces}/p-web`, { token: keys.member })).status, 200);
  });

  it("is read-only: every write is 403, an admin's too", async () => {
    for (const [method, path] of [
      ["POST", namespaces],
      ["DELETE", `${namespaces}/p-web`],
      ["PUT", `${namespaces}/p-web`],
      ["PATCH", `${namespaces}/p-web`],
    ] as const) {
      const res = await server.request(method, path, { body: { metadata: { name: "x" } } });
      assert.equal(res.status, 403, `${method} ${path}: ${res.text}`);
      assert.match(res.json.message, /cannot \w+ resource "namespaces" in API group ""/);
    }
    assert.deepEqual(await names(), ["platform", "p-api", "p-web"]);
  });

  it("a watch follows the projects; the /watch/ path too", async () => {
    const rv = (await server.request("GET", namespaces)).json.metadata.resourceVersion;
    const all = new WatchClient(server, `${namespaces}?watch=true&resourceVersion=${rv}`, server.adminKey);
    const one = new WatchClient(
      server,
      `${API_PREFIX}/api/v1/watch/namespaces/p-ops?resourceVersion=${rv}`,
      keys.member,
    );
    const initial = new WatchClient(server, `${namespaces}?watch=true`, keys.member);
    try {
      await server.request("POST", `${GROUP_PATH}/projects`, {
        body: { metadata: { name: "ops" }, spec: { members: [{ kind: "User", name: "member" }] } },
      });
      await server.request("DELETE", `${GROUP_PATH}/projects/ops`);
      await all.until((events) => events.some((e) => e.type === "DELETED"));
      const seen = all.events.map((e) => `${e.type} ${e.object.kind} ${e.object.metadata.name}`);
      assert.equal(seen[0], "ADDED Namespace p-ops");
      assert.equal(seen.at(-1), "DELETED Namespace p-ops");
      await one.until((events) => events.some((e) => e.type === "DELETED"));
      assert.ok(one.events.every((e) => e.object.metadata.name === "p-ops"));
      // From now: the current namespaces first, only those the caller sees.
      await initial.until((events) => events.some((e) => e.object.metadata.name === "p-web"));
      assert.ok(
        initial.events.every((e) => e.object.metadata.name !== "platform" && e.object.metadata.name !== "p-api"),
      );
    } finally {
      all.close();
      one.close();
      initial.close();
    }
  });

  it("discovery names the resource, so kubectl get ns works", async () => {
    const core = await server.request("GET", `${API_PREFIX}/api/v1`);
    const resource = core.json.resources.find((r: { name: string }) => r.name === "namespaces");
    assert.deepEqual(resource?.shortNames, ["ns"]);
    assert.deepEqual(resource?.verbs, ["get", "list", "watch"]);
    const out = await new Promise<string>((resolve, reject) =>
      execFile(
        "/usr/bin/kubectl",
        ["--kubeconfig", server.kubeconfig(keys.member), "get", "ns", "-o", "name"],
        { env: { PATH: process.env.PATH, HOME: server.dataDir } },
        (err, stdout, stderr) => (err ? reject(new Error(stderr)) : resolve(stdout)),
      ),
    );
    assert.equal(out.trim(), "namespace/p-web");
  });
});
