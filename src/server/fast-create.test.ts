import assert from "node:assert/strict";
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import { after, before, describe, it } from "node:test";
import type { RequestAttributes } from "../authz/contract.js";
import { type RequestContext, SYSTEM_USER } from "../registry/request-context.js";
import { fakeRequest } from "../testing/fake-request.js";
import { accessKey, postObject } from "../testing/gateway-fixture.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";
import { type FastCreateDeps, fastCreate } from "./fast-create.js";
import type { FastBranch } from "./front-door.js";
import { assignRequestId } from "./request-log.js";
import { RequestPipeline } from "./request-pipeline.js";

/** fastify's routing: the create branch never hands a request on once it took it. */
const unrouted = () => assert.fail("the create branch handed a request on");

const team = (name: string, spec: Record<string, unknown> = {}) =>
  JSON.stringify({ apiVersion: "management.platform/v1", kind: "Team", metadata: { name }, spec });

describe("fast create path", () => {
  let s: TestServer;
  /** What the pipeline's stages saw: [stage or resource, code]. */
  const counted: Array<[string, number]> = [];
  const noted: string[] = [];
  const logged: unknown[] = [];
  const requests = new RequestPipeline();
  requests.join({
    arrived: () => counted.push(["arrived", 0]),
    done: (request, answer) => counted.push([`${answer.fastPath} ${request.url.split("/").pop()}`, answer.statusCode]),
  });
  const ctx = (): RequestContext => ({ user: SYSTEM_USER, warnings: [] });
  const path = (rest: string) => `${GROUP_PATH}/${rest}`;
  /** As the front door runs a branch: the request id first (the caller's "req-1"). */
  const frontDoor = (branch: FastBranch) => (req: IncomingMessage, res: ServerResponse) => {
    req.headers["x-request-id"] ??= "req-1";
    assignRequestId(req, res);
    return branch(req, res, unrouted);
  };
  const make = (over: { allowed?: boolean; ctx?: RequestContext | undefined; bypassed?: boolean } = {}) => {
    const deps: FastCreateDeps = {
      registry: s.registry,
      groupPrefix: `${GROUP_PATH}/`,
      maxBodyBytes: 1024,
      requests,
      authenticate: () => ("ctx" in over ? over.ctx : ctx()),
      noteCaller: (_request, user) => noted.push(user.name),
      allows: () => over.allowed ?? true,
      bypassed: () => over.bypassed ?? false,
      log: { error: (obj) => logged.push(obj) },
    };
    return frontDoor(fastCreate(deps));
  };

  before(async () => {
    s = await startTestServer();
  });
  after(() => s.stop());

  it("creates the object and answers 201 with what the normal path answers", async () => {
    counted.length = 0;
    const { req, res, written, done } = fakeRequest(path("teams"), { body: team("fast-one", { description: "d" }) });
    assert.equal(make()(req, res), true);
    await done;
    assert.equal(written.status, 201);
    assert.equal(written.headers?.["content-type"], "application/json");
    assert.equal(written.headers?.["content-length"], written.body?.length);
    assert.equal(written.headers?.["x-request-id"], "req-1");
    const answered = JSON.parse(written.body!.toString());
    // The same create down the normal path (a query string sends it there), and the object as stored.
    const normal = await s.request("POST", `${path("teams")}?fieldValidation=Warn`, {
      body: JSON.parse(team("normal-one", { description: "d" })),
    });
    assert.equal(normal.status, 201, normal.text);
    assert.equal(normal.headers["content-type"], "application/json");
    const stored = await s.request("GET", path("teams/fast-one"));
    assert.deepEqual(answered, stored.json);
    const shape = (o: { metadata: Record<string, unknown> }) => ({
      ...o,
      metadata: { ...o.metadata, name: "", uid: "", resourceVersion: "", creationTimestamp: "", managedFields: "" },
    });
    assert.deepEqual(shape(answered), shape(normal.json as { metadata: Record<string, unknown> }));
    assert.deepEqual(
      answered.metadata.managedFields.map((m: Record<string, unknown>) => ({ ...m, time: "" })),
      (normal.json as { metadata: { managedFields: Array<Record<string, unknown>> } }).metadata.managedFields.map(
        (m) => ({ ...m, time: "" }),
      ),
    );
    assert.deepEqual(counted, [
      ["arrived", 0],
      ["create teams", 201],
    ]);
  });

  it("passes the caller's warnings on as Warning headers", async () => {
    const withWarning = ctx();
    withWarning.warnings.push("key expires soon");
    const { req, res, written, done } = fakeRequest(path("teams"), { body: team("fast-warned") });
    assert.equal(make({ ctx: withWarning })(req, res), true);
    await done;
    assert.equal(written.status, 201);
    assert.deepEqual(written.headers?.warning, ['299 - "key expires soon"']);
  });

  const failures: Array<[string, string, string]> = [
    ["an existing name", "teams", team("fast-one")],
    ["a malformed body", "teams", '{"apiVersion": '],
    ["an invalid object", "teams", team("Not_A_Name")],
    ["a body of another kind", "teams", JSON.stringify({ apiVersion: "management.platform/v1", kind: "User" })],
    ["a namespace that does not exist", "namespaces/nowhere/sharedsecrets", team("x")],
  ];
  for (const [what, rest, body] of failures) {
    it(`answers ${what} with the normal path's Status`, async () => {
      counted.length = 0;
      const { req, res, written, done } = fakeRequest(path(rest), { body });
      assert.equal(make()(req, res), true);
      await done;
      const normal = await s.request("POST", `${path(rest)}?fieldValidation=Warn`, {
        raw: Buffer.from(body),
        contentType: "application/json",
      });
      assert.ok(normal.status >= 400, normal.text);
      assert.equal(written.status, normal.status);
      assert.equal(written.headers?.["content-type"], normal.headers["content-type"]);
      assert.equal(written.headers?.["x-request-id"], "req-1");
      assert.deepEqual(JSON.parse(written.body!.toString()), normal.json);
      assert.deepEqual(counted, [
        ["arrived", 0],
        [`create ${rest.split("/").pop()}`, normal.status],
      ]);
    });
  }

  const leftToTheNormalPath: Array<[string, string, Record<string, string>, string?]> = [
    ["a query string", "teams?dryRun=All", {}],
    ["YAML", "teams", { "content-type": "application/yaml" }],
    ["a content type with parameters", "teams", { "content-type": "application/json; charset=utf-8" }],
    ["a YAML answer", "teams", { accept: "application/yaml" }],
    ["an answer nobody serves", "teams", { accept: "text/html" }],
    ["a chunked body", "teams", { "transfer-encoding": "chunked" }],
    ["a body over the limit", "teams", { "content-length": "2048" }],
    ["an empty body", "teams", { "content-length": "0" }],
    ["impersonation", "teams", { "impersonate-user": "bob" }],
    ["a name in the path", "teams/x", {}],
    ["a subresource", "teams/x/status", {}],
    ["a namespaced kind without a namespace", "sharedsecrets", {}],
    ["an unknown resource", "nothings", {}],
    ["another method", "teams", {}, "PUT"],
  ];
  for (const [what, rest, headers, method] of leftToTheNormalPath) {
    it(`leaves ${what} to the normal path, touching nothing`, () => {
      counted.length = 0;
      const { req, res, written } = fakeRequest(path(rest), { body: team("untouched"), headers, method });
      assert.equal(make()(req, res), false);
      assert.deepEqual(written, {});
      assert.equal(req.readableFlowing, null, "the body is left unread");
      assert.deepEqual(counted, []);
    });
  }

  it("authenticates the caller at the client's address (trusted proxies), else at the socket's peer", () => {
    const seen: string[] = [];
    for (const clientAddress of [() => "203.0.113.9", undefined]) {
      const fast = fastCreate({
        registry: s.registry,
        groupPrefix: `${GROUP_PATH}/`,
        maxBodyBytes: 1024,
        authenticate: (r) => {
          seen.push(r.ip);
          return undefined;
        },
        allows: () => true,
        bypassed: () => false,
        requests,
        noteCaller: () => {},
        log: { error: () => {} },
        clientAddress,
      });
      const { req, res } = fakeRequest(path("teams"), { body: team("untouched") });
      assert.equal(fast(req, res, unrouted), false);
    }
    assert.deepEqual(seen, ["203.0.113.9", "127.0.0.1"]);
  });

  it("asks the authorizer about a create in the collection, with attributes nobody can change", () => {
    const asked: RequestAttributes[] = [];
    const fast = fastCreate({
      registry: s.registry,
      groupPrefix: `${GROUP_PATH}/`,
      maxBodyBytes: 1024,
      authenticate: () => ctx(),
      allows: (_user, attrs) => {
        asked.push(attrs);
        return false;
      },
      bypassed: () => false,
      requests,
      noteCaller: () => {},
      log: { error: () => {} },
    });
    for (const rest of ["teams", "namespaces/ns-a/sharedsecrets", "teams"]) {
      const { req, res } = fakeRequest(path(rest), { body: team("untouched") });
      assert.equal(fast(req, res, unrouted), false);
    }
    const expected = (resource: string, namespace: string): RequestAttributes => ({
      verb: "create",
      apiGroup: "management.platform",
      resource,
      subresource: "",
      namespace,
      name: "",
      resourceRequest: true,
    });
    assert.deepEqual(asked, [expected("teams", ""), expected("sharedsecrets", "ns-a"), expected("teams", "")]);
    assert.throws(() => {
      (asked[0] as { verb: string }).verb = "get";
    }, TypeError);
    assert.equal(asked[2]!.verb, "create");
  });

  it("leaves a caller that did not authenticate, a denied caller and a bypassing server to the normal path", () => {
    for (const fast of [make({ ctx: undefined }), make({ allowed: false }), make({ bypassed: true })]) {
      const { req, res, written } = fakeRequest(path("teams"), { body: team("untouched") });
      assert.equal(fast(req, res), false);
      assert.deepEqual(written, {});
    }
  });

  it("answers a failure while answering with the normal path's 500 Status, never a throw", async () => {
    counted.length = 0;
    logged.length = 0;
    const { req, res, written, done } = fakeRequest(path("teams"), { body: team("fast-unwritable") });
    const writeHead = res.writeHead.bind(res);
    let refused = false;
    res.writeHead = ((status: number, h: OutgoingHttpHeaders) => {
      if (status === 201 && !refused) {
        refused = true;
        throw new Error("cannot write that head");
      }
      return writeHead(status, h);
    }) as typeof res.writeHead;
    assert.equal(make()(req, res), true);
    await done;
    assert.equal(written.status, 500);
    assert.equal(JSON.parse(written.body!.toString()).reason, "InternalError");
    assert.equal(logged.length, 1);
    assert.equal((logged[0] as { requestId: string }).requestId, "req-1");
    assert.deepEqual(counted, [
      ["arrived", 0],
      ["create teams", 500],
    ]);
  });

  it("ends a request whose client went away before its body arrived in the pipeline, and answers nothing", () => {
    counted.length = 0;
    noted.length = 0;
    const { req, res, written } = fakeRequest(path("teams"), { body: team("gone") });
    assert.equal(make()(req, res), true);
    req.emit("aborted");
    assert.deepEqual(written, {});
    // As fastify's error handler ends it (a 400), its caller never noted: the body never came.
    assert.deepEqual(counted, [
      ["arrived", 0],
      ["create teams", 400],
    ]);
    assert.deepEqual(noted, []);
  });
});

describe("fast create path through the server", () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.stop());

  it("answers creates with the same headers and objects as the normal path", async () => {
    // The admin key is in the identity cache after its first request.
    assert.equal((await s.request("GET", `${GROUP_PATH}/teams`)).status, 200);
    const fast = await s.request("POST", `${GROUP_PATH}/teams`, { body: JSON.parse(team("srv-fast")) });
    const normal = await s.request("POST", `${GROUP_PATH}/teams?fieldValidation=Warn`, {
      body: JSON.parse(team("srv-normal")),
    });
    assert.equal(fast.status, 201, fast.text);
    assert.equal(normal.status, 201, normal.text);
    const names = (h: Record<string, unknown>) => Object.keys(h).sort();
    assert.deepEqual(names(fast.headers), names(normal.headers));
    assert.equal(fast.headers["content-type"], normal.headers["content-type"]);
    assert.match(String(fast.headers["x-request-id"]), /\S/);
    const again = await s.request("POST", `${GROUP_PATH}/teams`, { body: JSON.parse(team("srv-fast")) });
    assert.equal(again.status, 409);
    assert.equal(again.json.reason, "AlreadyExists");
    assert.equal((await s.request("GET", `${GROUP_PATH}/teams/srv-fast`)).json.metadata.name, "srv-fast");
  });

  it("a denied create is the normal 403, and a stranger's the normal 401", async () => {
    const G = GROUP_PATH;
    await postObject(s, "users", { metadata: { name: "dora" }, spec: {} });
    const token = await accessKey(s, "dora");
    // Twice: the second time the key is known to the identity cache.
    for (let i = 0; i < 2; i++) {
      const r = await s.request("POST", `${G}/teams`, { token, body: JSON.parse(team(`dora-${i}`)) });
      assert.equal(r.status, 403);
      assert.match(r.json.message, /cannot create resource "teams"/);
    }
    const stranger = await s.request("POST", `${G}/teams`, {
      token: "wrong-key-wrong-key-wrong-key-123",
      body: JSON.parse(team("stranger")),
    });
    assert.equal(stranger.status, 401);
    assert.equal((await s.request("GET", `${G}/teams/dora-1`)).status, 404);
  });
});
