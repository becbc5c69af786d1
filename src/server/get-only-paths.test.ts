import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer, userWithKey } from "../testing/test-server.js";

const P = "/kubernetes/management";
/** Non-resource paths served for GET only: public ones first, then those needing credentials. */
const PUBLIC = ["/version", `${P}/version`, "/.well-known/jwks.json"];
const AUTHENTICATED = [
  `${P}/api`,
  `${P}/apis`,
  `${P}/apis/management.platform/v1`,
  `${P}/openapi/v3`,
  "/metrics",
  `${P}/backup`,
];
const WRITES = ["POST", "PUT", "PATCH", "DELETE"];

describe("another method than GET on a non-resource GET-only path (as kube-apiserver answers it)", () => {
  let s: TestServer;
  let nobody: string;

  before(async () => {
    s = await startTestServer();
    nobody = await userWithKey(s, "nobody");
  });
  after(() => s.stop());

  /** `METHOD path` answered as `code reason: message`. */
  const answer = async (method: string, path: string, token: string | null | undefined) => {
    const res = await s.request(method, path, {
      token,
      body: method === "DELETE" || method === "GET" ? undefined : {},
    });
    assert.equal(res.json?.kind, "Status", `${method} ${path}: ${res.text}`);
    return `${res.status} ${res.json.reason}: ${res.json.message}`;
  };

  it("anonymous: 403 for the method's verb on a public path, 401 on the others", async () => {
    for (const path of PUBLIC) {
      assert.equal(
        await answer("POST", path, null),
        `403 Forbidden: forbidden: User "system:anonymous" cannot post path "${path}"`,
      );
    }
    for (const path of AUTHENTICATED) {
      assert.match(await answer("POST", path, null), /^401 Unauthorized/, path);
    }
  });

  it("a caller no role lets write there: 403 naming the verb (the lower-case method) and the path", async () => {
    for (const path of [...PUBLIC, ...AUTHENTICATED]) {
      for (const method of WRITES) {
        assert.equal(
          await answer(method, path, nobody),
          `403 Forbidden: forbidden: User "nobody" cannot ${method.toLowerCase()} path "${path}"`,
        );
      }
    }
    // GET stays open to it where it was.
    for (const path of [...PUBLIC, `${P}/apis`]) {
      assert.equal((await s.request("GET", path, { token: nobody })).status, 200, path);
    }
  });

  it("a GET it may not make there: the same 403 in the same words (/metrics, the backup)", async () => {
    for (const path of ["/metrics", `${P}/backup`]) {
      assert.equal(
        await answer("GET", path, nobody),
        `403 Forbidden: forbidden: User "nobody" cannot get path "${path}"`,
      );
    }
  });

  it("an admin: 405 MethodNotAllowed, the path being known; GET and HEAD unchanged", async () => {
    for (const path of [...PUBLIC, ...AUTHENTICATED]) {
      for (const method of WRITES) {
        assert.equal(
          await answer(method, path, undefined),
          "405 MethodNotAllowed: the server does not allow this method on the requested resource",
          `${method} ${path}`,
        );
      }
    }
    assert.equal((await s.request("GET", "/version")).status, 200);
    assert.equal((await s.request("HEAD", "/version", { token: null })).status, 200);
    // A path that does not exist is still 404.
    assert.match(await answer("POST", `${P}/versions`, undefined), /^404 NotFound/);
  });

  it("an access review answers post on /version as the server does", async () => {
    const review = await s.request("POST", `${P}/apis/authorization.k8s.io/v1/selfsubjectaccessreviews`, {
      token: nobody,
      body: {
        apiVersion: "authorization.k8s.io/v1",
        kind: "SelfSubjectAccessReview",
        spec: { nonResourceAttributes: { verb: "post", path: "/version" } },
      },
    });
    assert.equal(review.status, 201, review.text);
    assert.equal(review.json.status.allowed, false);
  });

  it("kubectl create --raw /version shows the server's MethodNotAllowed", async () => {
    const body = join(s.dataDir, "empty.json");
    writeFileSync(body, "{}");
    // Not spawnSync: the server answering kubectl runs in this process.
    const stderr = await new Promise<string>((resolve) => {
      execFile(
        "/usr/bin/kubectl",
        ["--kubeconfig", s.kubeconfig(), "create", "--raw", "/version", "-f", body],
        { timeout: 60_000 },
        (err, _stdout, stderr) => resolve(err ? stderr : "kubectl succeeded"),
      );
    });
    assert.match(stderr, /\(MethodNotAllowed\): the server does not allow this method on the requested resource/);
  });
});
