import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { GROUP_PATH, startTestServer, type TestServer, userWithKey } from "../testing/test-server.js";

// One server for every case below: each is a request refused or answered, none changes what the
// next one sees (the admin's writes are malformed or not served).
let s: TestServer;
/** A user holding no right. */
let nobody: string;

before(async () => {
  s = await startTestServer();
  nobody = await userWithKey(s, "nobody");
  const cluster = await s.request("POST", `${GROUP_PATH}/clusters`, {
    body: { metadata: { name: "c1" }, spec: { local: true } },
  });
  assert.equal(cluster.status, 201, cluster.text);
});
after(() => s.stop());

// Every verb authorizes before it decodes a body: a caller without the right gets 403 whatever
// it sends, and learns nothing from how its body would have been read.
describe("authorization comes before the body", () => {
  const malformed = { raw: "{ not json", contentType: "application/json" };
  const cases: Array<[string, string, string]> = [
    ["POST", "clusters", "application/json"],
    ["PUT", "clusters/c1", "application/json"],
    ["PATCH", "clusters/c1", "application/merge-patch+json"],
    ["DELETE", "clusters/c1", "application/json"],
    ["DELETE", "clusters", "application/json"],
  ];

  for (const [method, path, contentType] of cases) {
    it(`${method} ${path} with a malformed body: 403 without the right, 400 with it`, async () => {
      const refused = await s.request(method, `${GROUP_PATH}/${path}`, { ...malformed, contentType, token: nobody });
      assert.equal(refused.status, 403, refused.text);
      const admin = await s.request(method, `${GROUP_PATH}/${path}`, { ...malformed, contentType });
      assert.equal(admin.status, 400, admin.text);
    });
  }
});

// kube-apiserver's authorization filter runs before any handler: a verb the kind does not serve is
// 403 for a caller not allowed it (who learns nothing of the kind's verbs), 405 for one allowed.
describe("authorization comes before a verb the kind does not serve", () => {
  // Selves are create-only: no role but the admin's grants another verb on them.
  const cases: Array<[string, string, string]> = [
    ["GET", "selves/someone", "get"],
    ["PUT", "selves/someone", "update"],
    ["PATCH", "selves/someone", "patch"],
    ["DELETE", "selves/someone", "delete"],
    ["DELETE", "selves", "deletecollection"],
    ["GET", "directclusterendpointtokens/t1", "get"],
  ];
  for (const [method, path, verb] of cases) {
    it(`${method} ${path}: 403 without the right to ${verb}, 405 for an admin`, async () => {
      const options = {
        body: method === "PUT" || method === "PATCH" ? {} : undefined,
        contentType: method === "PATCH" ? "application/merge-patch+json" : undefined,
      };
      const resource = path.split("/")[0];
      const name = path.split("/")[1];
      const refused = await s.request(method, `${GROUP_PATH}/${path}`, { ...options, token: nobody });
      assert.equal(refused.status, 403, refused.text);
      assert.equal(
        refused.json.message,
        `${resource}.management.platform${name ? ` "${name}"` : ""} is forbidden: User "nobody" cannot ${verb} resource "${resource}" in API group "management.platform"`,
      );
      const admin = await s.request(method, `${GROUP_PATH}/${path}`, options);
      assert.equal(admin.status, 405, admin.text);
      assert.equal(admin.json.reason, "MethodNotAllowed");
    });
  }
});

// A method no handler serves on a path (POST on a name, PUT or PATCH on a collection, DELETE of a
// status, a write of a custom subresource): the verb kube-apiserver's request info reads from the
// method is authorized first, then 405.
describe("authorization comes before a method the path does not serve", () => {
  const cases: Array<[string, string, string]> = [
    [
      "POST",
      "clusters/c1",
      'clusters.management.platform "c1" is forbidden: User "nobody" cannot create resource "clusters"',
    ],
    ["PUT", "clusters", 'clusters.management.platform is forbidden: User "nobody" cannot update resource "clusters"'],
    ["PATCH", "teams", 'teams.management.platform is forbidden: User "nobody" cannot patch resource "teams"'],
    [
      "DELETE",
      "clusters/c1/status",
      'clusters.management.platform "c1" is forbidden: User "nobody" cannot delete resource "clusters/status"',
    ],
    [
      "POST",
      "users/admin/accesskeys",
      'users.management.platform "admin" is forbidden: User "nobody" cannot create resource "users/accesskeys"',
    ],
  ];
  for (const [method, path, message] of cases) {
    it(`${method} ${path}: 403 without the right, 405 for an admin`, async () => {
      const options = {
        body: {},
        contentType: method === "PATCH" ? "application/merge-patch+json" : undefined,
      };
      const refused = await s.request(method, `${GROUP_PATH}/${path}`, { ...options, token: nobody });
      assert.equal(refused.status, 403, refused.text);
      assert.equal(refused.json.message, `${message} in API group "management.platform"`);
      const admin = await s.request(method, `${GROUP_PATH}/${path}`, options);
      assert.equal(admin.status, 405, admin.text);
      assert.equal(admin.json.reason, "MethodNotAllowed");
    });
  }
});
