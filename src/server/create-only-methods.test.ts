import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, before, describe, it } from "node:test";
import type { ApiError } from "../api/errors.js";
import type { Authorizer, RequestAttributes } from "../authz/contract.js";
import type { RequestContext } from "../registry/request-context.js";
import type { ResourceType } from "../registry/resource-type.js";
import { scopedKey, startTestServer, type TestServer, userWithKey } from "../testing/test-server.js";
import { authorizeCreateOnly } from "./create-only-methods.js";

const P = "/kubernetes/management";
const KUBECTL = process.env.KUBECTL ?? "/usr/bin/kubectl";
/** The create-only review collections, with the group kube-apiserver serves each in. */
const REVIEWS = [
  { group: "authorization.k8s.io", plural: "selfsubjectaccessreviews" },
  { group: "authorization.k8s.io", plural: "selfsubjectrulesreviews" },
  { group: "authentication.k8s.io", plural: "selfsubjectreviews" },
];
/** Each other method, with the verb kube-apiserver's request info reads from it on a collection. */
const METHODS = [
  { method: "GET", query: "", verb: "list" },
  { method: "GET", query: "?watch=true", verb: "watch" },
  { method: "PUT", query: "", verb: "update" },
  { method: "PATCH", query: "", verb: "patch" },
  { method: "DELETE", query: "", verb: "deletecollection" },
];

function kubectl(kubeconfig: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(KUBECTL, ["--kubeconfig", kubeconfig, ...args], { timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

describe("another method than POST on a create-only review collection (as kube-apiserver answers it)", () => {
  let s: TestServer;
  let nobody: string;
  /** nobody's key scoped to reading users: the reviews answer within it. */
  let narrow: string;
  /** nobody's key scoped to what the CLI needs. */
  let cli: string;

  before(async () => {
    s = await startTestServer();
    nobody = await userWithKey(s, "nobody");
    const scoped = (name: string, scope: unknown) => scopedKey(s, "nobody", name, scope);
    narrow = await scoped("nobody-narrow", {
      rules: [{ verbs: ["get"], resources: [{ group: "management.platform", resources: ["users"] }] }],
    });
    cli = await scoped("nobody-cli", { allowPlatformCli: true });
  });
  after(() => s.stop());

  /** A review of each kind, as kubectl sends it. */
  const reviewBody = (group: string, plural: string) =>
    plural === "selfsubjectaccessreviews"
      ? {
          apiVersion: `${group}/v1`,
          kind: "SelfSubjectAccessReview",
          spec: { resourceAttributes: { verb: "list", group: "management.platform", resource: "teams" } },
        }
      : plural === "selfsubjectrulesreviews"
        ? { apiVersion: `${group}/v1`, kind: "SelfSubjectRulesReview", spec: { namespace: "default" } }
        : { apiVersion: `${group}/v1`, kind: "SelfSubjectReview" };

  /** `METHOD path` answered as `code reason: message`, always a Status. */
  const answer = async (method: string, path: string, token: string | null | undefined) => {
    const body = method === "PUT" || method === "PATCH" || method === "POST" ? {} : undefined;
    const contentType = method === "PATCH" ? "application/merge-patch+json" : undefined;
    const res = await s.request(method, path, { token, body, contentType });
    assert.equal(res.json?.kind, "Status", `${method} ${path}: ${res.text}`);
    return `${res.status} ${res.json.reason}: ${res.json.message}`;
  };

  it("a caller no role lets do that: 403 for the method's verb on the resource, authorized first", async () => {
    for (const { group, plural } of REVIEWS) {
      for (const { method, query, verb } of METHODS) {
        assert.equal(
          await answer(method, `${P}/apis/${group}/v1/${plural}${query}`, nobody),
          `403 Forbidden: ${plural}.${group} is forbidden: User "nobody" cannot ${verb} resource "${plural}" in API group "${group}"`,
          `${method}${query} ${plural}`,
        );
      }
    }
  });

  it("an admin: 405 MethodNotAllowed, the collection being known; anonymous: 401", async () => {
    for (const { group, plural } of REVIEWS) {
      for (const { method, query } of METHODS) {
        const path = `${P}/apis/${group}/v1/${plural}${query}`;
        assert.equal(
          await answer(method, path, undefined),
          "405 MethodNotAllowed: the server does not allow this method on the requested resource",
          `${method} ${path}`,
        );
        assert.match(await answer(method, path, null), /^401 Unauthorized/, `${method} ${path}`);
      }
    }
  });

  it("the create is unchanged, for any caller", async () => {
    for (const token of [undefined, nobody]) {
      const review = await s.request("POST", `${P}/apis/authorization.k8s.io/v1/selfsubjectaccessreviews`, {
        token,
        body: {
          apiVersion: "authorization.k8s.io/v1",
          kind: "SelfSubjectAccessReview",
          spec: { resourceAttributes: { verb: "list", group: "management.platform", resource: "teams" } },
        },
      });
      assert.equal(review.status, 201, review.text);
    }
  });

  it("every key may create the reviews, a scoped one too; each answers within the key's scope", async () => {
    for (const { group, plural } of REVIEWS) {
      const path = `${P}/apis/${group}/v1/${plural}`;
      for (const token of [narrow, cli, nobody, undefined]) {
        const review = await s.request("POST", path, { token, body: reviewBody(group, plural) });
        assert.equal(review.status, 201, `${plural}: ${review.text}`);
        assert.equal(review.json.kind, reviewBody(group, plural).kind);
      }
      assert.match(await answer("POST", path, null), /^401 Unauthorized/);
    }
    // "May I list teams?": every user may (filtered lists), but not the key scoped to getting users.
    const canList = async (token: string | undefined) =>
      (
        await s.request("POST", `${P}/apis/authorization.k8s.io/v1/selfsubjectaccessreviews`, {
          token,
          body: reviewBody("authorization.k8s.io", "selfsubjectaccessreviews"),
        })
      ).json.status.allowed;
    assert.equal(await canList(nobody), true);
    assert.equal(await canList(narrow), false);
  });

  it("the create asks the authorizer first: a refusal is 403 for create on the review", async () => {
    const asked: RequestAttributes[] = [];
    const refusing: Authorizer = {
      authorize: async (_user, attrs) => {
        asked.push(attrs);
        return { allowed: false, reason: "refused by the test" };
      },
    } as Authorizer;
    const rt = { group: "authorization.k8s.io", plural: "selfsubjectaccessreviews" } as ResourceType;
    const ctx = {
      user: { name: "nobody", subjectKind: "User", groups: [], teams: [] },
      warnings: [],
    } as RequestContext;
    await assert.rejects(authorizeCreateOnly(refusing, ctx, rt, "create"), (err: ApiError) => {
      assert.equal(err.status.code, 403);
      assert.match(
        err.status.message ?? "",
        /cannot create resource "selfsubjectaccessreviews" in API group "authorization.k8s.io"/,
      );
      return true;
    });
    assert.deepEqual(
      asked.map((a) => `${a.verb} ${a.apiGroup}/${a.resource} ${a.name}`),
      ["create authorization.k8s.io/selfsubjectaccessreviews "],
    );
  });

  it("a name under the collection: the method's verb authorized first, then 404 (no such path)", async () => {
    const objectVerbs = [
      { method: "GET", verb: "get" },
      { method: "PUT", verb: "update" },
      { method: "PATCH", verb: "patch" },
      { method: "DELETE", verb: "delete" },
    ];
    const notFound = "404 NotFound: the server could not find the requested resource";
    for (const { group, plural } of REVIEWS) {
      const path = `${P}/apis/${group}/v1/${plural}/some-name`;
      for (const { method, verb } of objectVerbs) {
        assert.equal(
          await answer(method, path, nobody),
          `403 Forbidden: ${plural}.${group} "some-name" is forbidden: User "nobody" cannot ${verb} resource "${plural}" in API group "${group}"`,
          `${method} ${path}`,
        );
        assert.equal(await answer(method, path, undefined), notFound, `${method} ${path}`);
        assert.match(await answer(method, path, null), /^401 Unauthorized/, `${method} ${path}`);
      }
      // POST is create, which every caller holds (but the narrow key): 404 after it.
      assert.equal(await answer("POST", path, nobody), notFound);
      assert.equal(
        await answer("POST", path, narrow),
        `403 Forbidden: ${plural}.${group} "some-name" is forbidden: User "nobody" cannot create resource "${plural}" in API group "${group}"`,
      );
      // A subresource of the name: authorized with it, then 404.
      assert.equal(
        await answer("GET", `${path}/status`, nobody),
        `403 Forbidden: ${plural}.${group} "some-name" is forbidden: User "nobody" cannot get resource "${plural}/status" in API group "${group}"`,
      );
      assert.equal(await answer("GET", `${path}/status`, undefined), notFound);
    }
  });

  it("kubectl get --raw reports kube's MethodNotAllowed", async () => {
    const res = await kubectl(s.kubeconfig(), [
      "get",
      "--raw",
      `${P}/apis/authorization.k8s.io/v1/selfsubjectaccessreviews`,
    ]);
    assert.equal(res.code, 1, res.stdout);
    assert.equal(
      res.stderr,
      "Error from server (MethodNotAllowed): the server does not allow this method on the requested resource\n",
    );
  });
});
