import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type RequestContext, SYSTEM_USER } from "../registry/request-context.js";
import { fakeRequest } from "../testing/fake-request.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";
import { fastGet } from "./fast-get.js";
import { RequestPipeline } from "./request-pipeline.js";

/** The normal handler, which a synchronous (embedded store) fast path never hands a request taken. */
function normalPath(): void {
  throw new Error("the fast path handed on a request it had taken");
}

describe("fast GET path", () => {
  let s: TestServer;
  const ctx = (): RequestContext => ({ user: SYSTEM_USER, warnings: [] });
  const path = (rest: string) => `${GROUP_PATH}/${rest}`;
  const make = (over: { allowed?: boolean; ctx?: RequestContext | undefined; bypassed?: boolean } = {}) =>
    fastGet({
      registry: s.registry,
      groupPrefix: `${GROUP_PATH}/`,
      authenticate: () => ("ctx" in over ? over.ctx : ctx()),
      allows: () => over.allowed ?? true,
      bypassed: () => over.bypassed ?? false,
      requests: new RequestPipeline(),
      noteCaller: () => {},
      log: { error: () => {} },
    });

  before(async () => {
    s = await startTestServer();
    const created = await s.request("POST", path("teams"), {
      body: { apiVersion: "management.platform/v1", kind: "Team", metadata: { name: "fast" }, spec: {} },
    });
    assert.equal(created.status, 201, created.text);
    const secret = await s.request("POST", path("namespaces/platform/sharedsecrets"), {
      body: {
        apiVersion: "management.platform/v1",
        kind: "SharedSecret",
        metadata: { name: "fast-secret" },
        spec: { data: { k: "dg==" } },
      },
    });
    assert.equal(secret.status, 201, secret.text);
  });
  after(() => s.stop());

  it("answers a plain GET of one object with the same object the normal path returns", async () => {
    const { req, res, written } = fakeRequest(path("teams/fast"), { headers: { accept: "application/json" } });
    assert.equal(make()(req, res, normalPath), true);
    assert.equal(written.status, 200);
    assert.equal(written.headers?.["content-type"], "application/json");
    assert.equal(written.headers?.["content-length"], written.body?.length);
    // A query string sends the request down the normal path: the two must agree.
    const normal = await s.request("GET", `${path("teams/fast")}?pretty=false`);
    assert.equal(normal.status, 200);
    assert.deepEqual(JSON.parse(written.body!.toString()), normal.json);
  });

  it("passes warnings on as Warning headers", async () => {
    const withWarning = ctx();
    withWarning.warnings.push("key expires soon");
    const { req, res, written } = fakeRequest(path("teams/fast"));
    assert.equal(make({ ctx: withWarning })(req, res, normalPath), true);
    assert.deepEqual(written.headers?.warning, ['299 - "key expires soon"']);
  });

  const leftToTheNormalPath: Array<[string, string, Record<string, string>, string?]> = [
    ["a query string", "teams/fast?resourceVersion=0", {}],
    ["a Table", "teams/fast", { accept: "application/json;as=Table;v=v1;g=meta.k8s.io" }],
    ["YAML", "teams/fast", { accept: "application/yaml" }],
    ["protobuf", "teams/fast", { accept: "application/vnd.kubernetes.protobuf" }],
    ["impersonation", "teams/fast", { "impersonate-user": "bob" }],
    ["a list", "teams", {}],
    ["a subresource", "teams/fast/status", {}],
    ["an unknown resource", "nothings/fast", {}],
    ["a missing object", "teams/nobody", {}],
    ["a kind that decrypts or presents what it stores", "namespaces/platform/sharedsecrets/fast-secret", {}],
    ["another method", "teams/fast", {}, "DELETE"],
  ];
  for (const [what, rest, headers, method] of leftToTheNormalPath) {
    it(`leaves ${what} to the normal path, writing nothing`, async () => {
      const { req, res, written } = fakeRequest(path(rest), { headers, method });
      assert.equal(make()(req, res, normalPath), false);
      assert.deepEqual(written, {});
    });
  }

  it("leaves a caller that did not authenticate, a denied caller and a closing server to the normal path", async () => {
    for (const fast of [make({ ctx: undefined }), make({ allowed: false }), make({ bypassed: true })]) {
      const { req, res, written } = fakeRequest(path("teams/fast"));
      assert.equal(fast(req, res, normalPath), false);
      assert.deepEqual(written, {});
    }
  });
});

describe("fast GET path through the server", () => {
  it("failed authentications on single-object GETs are counted once each, then 429 for unknown keys", async () => {
    const s = await startTestServer({ maxFailedAuthPerMinute: 3 });
    try {
      const one = `${GROUP_PATH}/users/admin`;
      assert.equal((await s.request("GET", one)).status, 200);
      for (let i = 0; i < 3; i++) {
        assert.equal((await s.request("GET", one, { token: "wrong-key-wrong-key-wrong-key-123" })).status, 401);
      }
      assert.equal((await s.request("GET", one, { token: "wrong-key-wrong-key-wrong-key-123" })).status, 429);
      // The admin key authenticated before the block (first request above): it goes on working.
      assert.equal((await s.request("GET", one)).status, 200);
    } finally {
      await s.stop();
    }
  });

  it("a denied single-object GET is the normal 403", async () => {
    const s = await startTestServer();
    try {
      const G = GROUP_PATH;
      await s.request("POST", `${G}/users`, {
        body: { apiVersion: "management.platform/v1", kind: "User", metadata: { name: "carol" }, spec: {} },
      });
      const key = await s.request("POST", `${G}/ownedaccesskeys`, {
        body: {
          apiVersion: "management.platform/v1",
          kind: "OwnedAccessKey",
          metadata: { name: "carol-key" },
          spec: { user: "carol" },
        },
      });
      assert.equal(key.status, 201, key.text);
      const r = await s.request("GET", `${G}/users/admin`, { token: key.json.spec.key });
      assert.equal(r.status, 403);
      assert.equal(r.json.kind, "Status");
      assert.match(r.json.message, /cannot get resource "users"/);
    } finally {
      await s.stop();
    }
  });
});
