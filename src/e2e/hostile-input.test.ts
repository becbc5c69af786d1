import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { connect } from "node:tls";
import { MAX_NESTING_DEPTH } from "../api/nesting-depth.js";
import { MAX_WARNING_HEADER_BYTES, MAX_WARNING_HEADERS } from "../server/warning-headers.js";
import { GROUP_PATH, startTestServer, type TestResponse, type TestServer } from "../testing/test-server.js";

/** Hostile bodies, paths and protocol errors: each answered with a Status, none a 500. */
describe("hostile input", () => {
  let server: TestServer;
  const users = `${GROUP_PATH}/users`;
  const secrets = `${GROUP_PATH}/namespaces/p-hostile/sharedsecrets`;
  const userJson = (name: string, spec: string) =>
    `{"apiVersion":"management.platform/v1","kind":"User","metadata":{"name":"${name}"},"spec":${spec}}`;
  const deep = (levels: number) => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;

  function assertStatus(res: TestResponse, code: number, message?: RegExp): void {
    assert.equal(res.status, code, res.text);
    assert.equal(res.json?.kind, "Status", res.text);
    assert.equal(res.json?.apiVersion, "v1");
    assert.equal(res.json?.code, code);
    if (message) assert.match(res.json.message, message);
  }

  before(async () => {
    server = await startTestServer();
    const project = { apiVersion: "management.platform/v1", kind: "Project", metadata: { name: "hostile" }, spec: {} };
    assert.equal((await server.request("POST", `${GROUP_PATH}/projects`, { body: project })).status, 201);
    const base = await server.request("POST", users, { raw: userJson("base", "{}"), contentType: "application/json" });
    assert.equal(base.status, 201, base.text);
  });
  after(async () => {
    await server.stop();
  });

  describe("keys named like Object.prototype properties", () => {
    const protoSpec = '{"toString":"x","__proto__":{"polluted":"yes"},"constructor":"c","hasOwnProperty":1}';

    it("fieldValidation=Strict refuses them as unknown fields", async () => {
      const res = await server.request("POST", `${users}?fieldValidation=Strict`, {
        raw: userJson("proto-strict", protoSpec),
        contentType: "application/json",
      });
      assertStatus(res, 400, /strict decoding error/);
      for (const key of ["toString", "__proto__", "constructor", "hasOwnProperty"])
        assert.ok(res.json.message.includes(`unknown field "spec.${key}"`), res.json.message);
    });

    it("are pruned (with a warning each) and never stored", async () => {
      const res = await server.request("POST", users, {
        raw: userJson("proto-warn", protoSpec),
        contentType: "application/json",
      });
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(Object.keys(res.json.spec), []);
      const warnings = String(res.headers.warning);
      assert.match(warnings, /unknown field \\"spec.__proto__\\"/);
      assert.match(warnings, /unknown field \\"spec.toString\\"/);
      const got = await server.request("GET", `${users}/proto-warn`);
      assert.equal(got.text.includes("polluted"), false, got.text);
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
    });

    it("a secret data key named __proto__ survives storage, merge patch and apply", async () => {
      const body = `{"apiVersion":"management.platform/v1","kind":"SharedSecret","metadata":{"name":"proto"},"spec":{"data":{"__proto__":"aGk=","constructor":"aGk="}}}`;
      const created = await server.request("POST", secrets, { raw: body, contentType: "application/json" });
      assert.equal(created.status, 201, created.text);
      const got = await server.request("GET", `${secrets}/proto`);
      assert.deepEqual(Object.keys(got.json.spec.data).sort(), ["__proto__", "constructor"]);
      const applied = await server.request("PATCH", `${secrets}/proto-applied?fieldManager=fuzz`, {
        raw: body.replace('"proto"', '"proto-applied"'),
        contentType: "application/apply-patch+yaml",
      });
      assert.equal(applied.status, 201, applied.text);
      const reread = await server.request("GET", `${secrets}/proto-applied`);
      assert.deepEqual(Object.keys(reread.json.spec.data).sort(), ["__proto__", "constructor"]);
      assert.equal(Object.getPrototypeOf(reread.json.spec.data), Object.prototype);
    });
  });

  describe("nesting depth", () => {
    it("refuses 10,000 levels in a create, a merge patch, a JSON patch and an apply with 400", async () => {
      const cases: [string, string, string, string][] = [
        ["POST", users, "application/json", userJson("deep", deep(10_000))],
        ["POST", users, "application/json", userJson("deep", `{"x":${"[".repeat(10_000)}${"]".repeat(10_000)}}`)],
        ["PATCH", `${users}/base`, "application/merge-patch+json", `{"spec":${deep(10_000)}}`],
        [
          "PATCH",
          `${users}/base`,
          "application/json-patch+json",
          `[{"op":"add","path":"/spec/x","value":${deep(10_000)}}]`,
        ],
        ["PATCH", `${users}/deep?fieldManager=t`, "application/apply-patch+yaml", userJson("deep", deep(10_000))],
        ["POST", users, "application/yaml", `kind: User\nmetadata:\n  name: deep\nspec:\n  x: ${"[".repeat(10_000)}`],
      ];
      for (const [method, path, contentType, raw] of cases) {
        const res = await server.request(method, path, { raw, contentType });
        assertStatus(res, 400, /nested too deeply: objects and arrays may nest at most 100 levels/);
      }
    });

    it("refuses block YAML nested past the limit", async () => {
      const lines = Array.from({ length: MAX_NESTING_DEPTH + 5 }, (_, i) => `${" ".repeat(i)}a:`);
      const raw = `kind: User\nmetadata:\n  name: deep\nspec:\n${lines.map((l) => `  ${l}`).join("\n")} 1\n`;
      const res = await server.request("POST", users, { raw, contentType: "application/yaml" });
      assertStatus(res, 400, /nested too deeply/);
    });

    it("accepts a body at the limit (pruned) but refuses a JSON patch that copies an object into itself past it", async () => {
      const atLimit = await server.request("POST", `${users}?fieldValidation=Ignore`, {
        raw: userJson("at-limit", deep(MAX_NESTING_DEPTH - 2)),
        contentType: "application/json",
      });
      assert.equal(atLimit.status, 201, atLimit.text);
      // Copying a 60-level subtree 50 levels down inside itself makes 112 levels.
      const ops = `[{"op":"add","path":"/status","value":${deep(60)}},{"op":"copy","from":"/status","path":"/status${"/a".repeat(50)}"}]`;
      const res = await server.request("PATCH", `${users}/base`, {
        raw: ops,
        contentType: "application/json-patch+json",
      });
      assertStatus(res, 422, /the object is nested too deeply/);
    });
  });

  describe("YAML", () => {
    it("refuses an alias bomb with 400", async () => {
      let raw = 'a0: &a0 ["x","x","x","x","x","x","x","x","x"]\n';
      for (let i = 1; i < 9; i++)
        raw += `a${i}: &a${i} [${Array(9)
          .fill(`*a${i - 1}`)
          .join(",")}]\n`;
      const res = await server.request("POST", users, { raw, contentType: "application/yaml" });
      assertStatus(res, 400, /too many aliases: at most 100/);
    });

    it("refuses an unresolved alias with 400", async () => {
      const raw = "kind: User\nmetadata:\n  name: *nope\n";
      const res = await server.request("POST", users, { raw, contentType: "application/yaml" });
      assertStatus(res, 400, /Unresolved alias/);
    });

    it("refuses custom and non-JSON tags with 400, keeps the JSON ones", async () => {
      for (const [tag, shown] of [
        ["!!binary aGVsbG8=", "!!binary"],
        ["!foo bar", "!foo"],
        ["!!set {a, b}", "!!set"],
        ["!!timestamp 2001-12-14", "!!timestamp"],
      ]) {
        const raw = `kind: User\nmetadata:\n  name: tagged\nspec:\n  displayName: ${tag}\n`;
        const res = await server.request("POST", users, { raw, contentType: "application/yaml" });
        assertStatus(res, 400, new RegExp(`the tag ${shown} is not supported`));
      }
      const ok = await server.request("POST", users, {
        raw: "kind: User\nmetadata:\n  name: tagged\nspec:\n  displayName: !!str 12\n",
        contentType: "application/yaml",
      });
      assert.equal(ok.status, 201, ok.text);
      assert.equal(ok.json.spec.displayName, "12");
    });
  });

  describe("warnings", () => {
    it("a field name outside Latin-1 gives its warning as UTF-8, not a 500", async () => {
      const res = await server.request("POST", users, {
        raw: userJson("utf8-field", '{"日本":1,"quote\\"back\\\\slash":2,"line\\nbreak":3}'),
        contentType: "application/json",
      });
      assert.equal(res.status, 201, res.text);
      // Node's client reads header bytes as Latin-1: turn them back into the UTF-8 they are.
      // (Node joins repeated Warning headers with ", ".)
      const warnings = Buffer.from(String(res.headers.warning), "latin1").toString("utf8");
      assert.ok(warnings.includes('299 - "unknown field \\"spec.日本\\""'), warnings);
      assert.ok(warnings.includes('299 - "unknown field \\"spec.quote\\"back\\\\slash\\""'), warnings);
      assert.ok(warnings.includes('299 - "unknown field \\"spec.line break\\""'), warnings);
    });

    it("many unknown fields give a bounded number and size of warning headers", async () => {
      const spec: Record<string, number> = {};
      for (let i = 0; i < 2000; i++) spec[`unknown-field-with-a-long-name-${i}-${"x".repeat(20)}`] = i;
      const res = await server.request("POST", users, {
        body: { apiVersion: "management.platform/v1", kind: "User", metadata: { name: "many-fields" }, spec },
      });
      assert.equal(res.status, 201, res.text);
      const warnings = String(res.headers.warning).split(/, (?=299 )/);
      assert.ok(warnings.length <= MAX_WARNING_HEADERS, String(warnings.length));
      assert.ok(warnings.join("").length <= MAX_WARNING_HEADER_BYTES);
      assert.match(warnings.at(-1) ?? "", /\d+ more warnings were left out/);
    });
  });

  describe("paths and the HTTP parser", () => {
    it("a malformed percent-encoding in the path is a Status 400", async () => {
      for (const path of [`${GROUP_PATH}/teams/%c0%ae`, `${GROUP_PATH}/teams/%zz`, "/readyz%"]) {
        assertStatus(await server.request("GET", path), 400, /malformed percent-encoding/);
      }
    });

    it("an empty name segment is 404, never the collection (DELETE users/ deleted every user)", async () => {
      for (const path of [`${users}/`, `${users}//base`, `${GROUP_PATH}/namespaces//sharedsecrets`]) {
        assertStatus(await server.request("DELETE", path), 404);
        assertStatus(await server.request("GET", path), 404);
      }
      assert.equal((await server.request("GET", `${users}/base`)).status, 200);
      assert.equal((await server.request("GET", `${users}/admin`)).status, 200);
    });

    it("a grace period past 100 years is 400, not a 500 from an invalid deletion timestamp", async () => {
      const secret = `{"apiVersion":"management.platform/v1","kind":"SharedSecret","metadata":{"name":"graced","finalizers":["example.com/f"]},"spec":{}}`;
      assert.equal(
        (await server.request("POST", secrets, { raw: secret, contentType: "application/json" })).status,
        201,
      );
      const huge = "99999999999999999999";
      assertStatus(
        await server.request("DELETE", `${secrets}/graced?gracePeriodSeconds=${huge}`),
        400,
        /gracePeriodSeconds/,
      );
      const body = await server.request("DELETE", `${secrets}/graced`, {
        raw: '{"gracePeriodSeconds":1e300}',
        contentType: "application/json",
      });
      assertStatus(body, 400, /at most/);
      assertStatus(
        await server.request(
          "DELETE",
          `${GROUP_PATH}/ownedaccesskeys?dryRun=All&propagationPolicy=Orphan&gracePeriodSeconds=${huge}`,
        ),
        400,
      );
    });

    it("integer parameters past 2^53 are 400 (limit=1e20 with a continue token reached storage: 500)", async () => {
      const token = Buffer.from(JSON.stringify({ v: "meta.k8s.io/v1", rv: 1, start: "\u0000" })).toString("base64url");
      assertStatus(await server.request("GET", `${users}?limit=99999999999999999999&continue=${token}`), 400, /limit/);
      assertStatus(await server.request("GET", `${users}?limit=9007199254740993`), 400, /limit/);
      const max = await server.request("GET", `${users}?limit=9007199254740991&continue=${token}`);
      assert.equal(max.status, 200, max.text);
    });

    const rawExchange = (payload: string): Promise<string> =>
      new Promise((resolve, reject) => {
        const socket = connect(
          { port: server.port, host: "127.0.0.1", ca: server.caPem, servername: "localhost" },
          () => socket.write(payload),
        );
        let text = "";
        socket.setEncoding("utf8");
        socket.on("data", (d: string) => {
          text += d;
        });
        socket.on("end", () => resolve(text));
        socket.on("error", reject);
      });

    it("headers over the limit: 431 Status, Connection: close, socket closed", async () => {
      const text = await rawExchange(`GET /readyz HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`);
      assert.match(text, /^HTTP\/1\.1 431 /);
      assert.match(text, /\r\nConnection: close\r\n/i);
      const body = JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4));
      assert.equal(body.kind, "Status");
      assert.equal(body.code, 431);
    });

    it("a request Node cannot parse: 400 Status, Connection: close, socket closed", async () => {
      const text = await rawExchange("NOT HTTP AT ALL\r\n\r\n");
      assert.match(text, /^HTTP\/1\.1 400 /);
      assert.match(text, /\r\nConnection: close\r\n/i);
      const body = JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4));
      assert.equal(body.kind, "Status");
      assert.equal(body.reason, "BadRequest");
    });
  });
});
