import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";

/** The object rules of the foundation issue, each checked over HTTPS against a real server. */
describe("API object rules", () => {
  let server: TestServer;
  const users = `${GROUP_PATH}/users`;
  const user = (name: string, spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}) => ({
    apiVersion: "management.platform/v1",
    kind: "User",
    metadata: { name, ...metadata },
    spec,
  });

  before(async () => {
    server = await startTestServer();
  });
  after(async () => {
    await server.stop();
  });

  describe("metadata", () => {
    it("sets uid, creationTimestamp, generation 1; clears client-set deletion fields", async () => {
      const res = await server.request("POST", users, {
        body: user(
          "meta-1",
          {},
          { deletionTimestamp: "2020-01-01T00:00:00Z", deletionGracePeriodSeconds: 5, uid: "x" },
        ),
      });
      assert.equal(res.status, 201, res.text);
      const m = res.json.metadata;
      assert.notEqual(m.uid, "x");
      assert.match(m.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      assert.equal(m.generation, 1);
      assert.equal(m.deletionTimestamp, undefined);
      assert.equal(m.deletionGracePeriodSeconds, undefined);
    });

    it("bumps generation on spec changes only", async () => {
      const created = (await server.request("POST", users, { body: user("gen-1", { displayName: "a" }) })).json;
      const labelled = await server.request("PATCH", `${users}/gen-1`, {
        body: { metadata: { labels: { team: "x" } } },
        contentType: "application/merge-patch+json",
      });
      assert.equal(labelled.json.metadata.generation, 1);
      assert.notEqual(labelled.json.metadata.resourceVersion, created.metadata.resourceVersion);
      const specChanged = await server.request("PATCH", `${users}/gen-1`, {
        body: { spec: { displayName: "b" } },
        contentType: "application/merge-patch+json",
      });
      assert.equal(specChanged.json.metadata.generation, 2);
    });

    it("generateName appends 5 characters to a prefix cut to 58", async () => {
      const prefix = `${"a".repeat(70)}-`;
      const res = await server.request("POST", users, { body: { ...user(""), metadata: { generateName: prefix } } });
      assert.equal(res.status, 201, res.text);
      assert.match(res.json.metadata.name, /^a{58}[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      assert.equal(res.json.metadata.generateName, prefix);
    });

    it("rejects invalid names with 422 and the field in causes", async () => {
      const res = await server.request("POST", users, { body: user("Not_Valid") });
      assert.equal(res.status, 422);
      assert.equal(res.json.reason, "Invalid");
      assert.equal(res.json.details.causes[0].field, "metadata.name");
      assert.match(res.json.message, /RFC 1123 subdomain/);
    });

    it("project names must be DNS labels of at most 61 characters", async () => {
      const tooLong = await server.request("POST", `${GROUP_PATH}/projects`, {
        body: { apiVersion: "management.platform/v1", kind: "Project", metadata: { name: "p".repeat(62) }, spec: {} },
      });
      assert.equal(tooLong.status, 422, tooLong.text);
      const dotted = await server.request("POST", `${GROUP_PATH}/projects`, {
        body: { apiVersion: "management.platform/v1", kind: "Project", metadata: { name: "a.b" }, spec: {} },
      });
      assert.equal(dotted.status, 422, dotted.text);
    });

    it("name and uid are immutable; creationTimestamp on update is ignored", async () => {
      const created = (await server.request("POST", users, { body: user("immut-1") })).json;
      // As on kube-apiserver: a replace's uid is a precondition (409), a patch's a change of an immutable field (422).
      const uidChange = await server.request("PUT", `${users}/immut-1`, {
        body: { ...created, metadata: { ...created.metadata, uid: "00000000-0000-0000-0000-000000000000" } },
      });
      assert.equal(uidChange.status, 409, uidChange.text);
      assert.equal(
        uidChange.json.message,
        `Operation cannot be fulfilled on users.management.platform "immut-1": StorageError: invalid object, Code: 4, ` +
          "Key: /registry/management.platform/users/immut-1, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: " +
          `UID in precondition: 00000000-0000-0000-0000-000000000000, UID in object meta: ${created.metadata.uid}`,
      );
      const uidPatch = await server.request("PATCH", `${users}/immut-1`, {
        body: { metadata: { uid: "00000000-0000-0000-0000-000000000000" } },
        contentType: "application/merge-patch+json",
      });
      assert.equal(uidPatch.status, 422, uidPatch.text);
      assert.match(uidPatch.json.message, /metadata\.uid: Invalid value: .*: field is immutable/);
      // kube-apiserver ignores it on update: the same instant written another way, or another
      // instant altogether, keeps the stored one.
      const sameInstant = created.metadata.creationTimestamp.replace(/Z$/, ".000Z");
      for (const creationTimestamp of [sameInstant, "2001-01-01T00:00:00Z"]) {
        const current = (await server.request("GET", `${users}/immut-1`)).json;
        const tsChange = await server.request("PUT", `${users}/immut-1`, {
          body: { ...current, metadata: { ...current.metadata, creationTimestamp } },
        });
        assert.equal(tsChange.status, 200, tsChange.text);
        assert.equal(tsChange.json.metadata.creationTimestamp, created.metadata.creationTimestamp);
      }
      const nameChange = await server.request("PUT", `${users}/immut-1`, {
        body: { ...created, metadata: { ...created.metadata, name: "other" } },
      });
      assert.equal(nameChange.status, 400);
    });

    it("validates labels and annotations (annotations at most 256 KiB)", async () => {
      const badLabel = await server.request("POST", users, {
        body: user("lbl-1", {}, { labels: { "bad key!": "v" } }),
      });
      assert.equal(badLabel.status, 422);
      assert.match(badLabel.json.details.causes[0].field, /^metadata\.labels/);
      const big = await server.request("POST", users, {
        body: user("ann-1", {}, { annotations: { "example.com/big": "x".repeat(256 * 1024 + 1) } }),
      });
      assert.equal(big.status, 422, big.text.slice(0, 300));
      assert.match(big.json.message, /Too long|must have at most/);
    });

    it("namespace in the body must match the path", async () => {
      const res = await server.request("POST", `${GROUP_PATH}/namespaces/platform/sharedsecrets`, {
        body: {
          apiVersion: "management.platform/v1",
          kind: "SharedSecret",
          metadata: { name: "s", namespace: "other" },
        },
      });
      assert.equal(res.status, 400);
      assert.match(res.json.message, /does not match the namespace/);
    });

    it("apiVersion and kind must match the endpoint", async () => {
      const wrongVersion = await server.request("POST", users, {
        body: { ...user("v-1"), apiVersion: "management.platform/v2" },
      });
      assert.equal(wrongVersion.status, 400);
      const wrongKind = await server.request("POST", users, { body: { ...user("v-2"), kind: "Team" } });
      assert.equal(wrongKind.status, 400);
    });

    it("records managedFields for the fieldManager or the User-Agent product", async () => {
      const byAgent = await server.request("POST", users, {
        body: user("mf-1", { displayName: "x" }),
        headers: { "user-agent": "my-tool/1.2 (linux)" },
      });
      const entry = byAgent.json.metadata.managedFields[0];
      assert.equal(entry.manager, "my-tool");
      assert.equal(entry.operation, "Update");
      assert.equal(entry.fieldsType, "FieldsV1");
      assert.deepEqual(entry.fieldsV1["f:spec"], { "f:displayName": {} });
      const byManager = await server.request("PATCH", `${users}/mf-1?fieldManager=editor`, {
        body: { spec: { email: "x@example.com" } },
        contentType: "application/merge-patch+json",
      });
      const editor = byManager.json.metadata.managedFields.find((e: { manager: string }) => e.manager === "editor");
      assert.deepEqual(editor.fieldsV1, { "f:spec": { "f:email": {} } });
      const tooLong = await server.request("POST", `${users}?fieldManager=${"m".repeat(129)}`, { body: user("mf-2") });
      assert.equal(tooLong.status, 422);
    });
  });

  describe("status subresource", () => {
    // Projects: a kind with /status that no controller writes to, so the test owns every write.
    const projects = `${GROUP_PATH}/projects`;
    const project = {
      apiVersion: "management.platform/v1",
      kind: "Project",
      metadata: { name: "st-1" },
      spec: {},
      status: { conditions: [{ type: "Ready", status: "True" }] },
    };
    it("the main endpoint keeps status; /status changes only status", async () => {
      const created = await server.request("POST", projects, { body: project });
      assert.equal(created.status, 201, created.text);
      assert.deepEqual(created.json.status, {});
      const statusPut = await server.request("PUT", `${projects}/st-1/status`, {
        body: {
          ...created.json,
          spec: { displayName: "ignored" },
          status: { conditions: [{ type: "Ready", status: "False" }] },
        },
      });
      assert.equal(statusPut.status, 200, statusPut.text);
      assert.equal(statusPut.json.status.conditions[0].status, "False");
      assert.equal(statusPut.json.spec.displayName, undefined);
      const mainPut = await server.request("PUT", `${projects}/st-1`, {
        body: { ...statusPut.json, spec: { displayName: "kept" }, status: { conditions: [] } },
      });
      assert.equal(mainPut.status, 200, mainPut.text);
      assert.equal(mainPut.json.status.conditions[0].status, "False");
      assert.equal(mainPut.json.spec.displayName, "kept");
      const getStatus = await server.request("GET", `${projects}/st-1/status`);
      assert.equal(getStatus.status, 200);
      assert.equal(getStatus.json.status.conditions[0].status, "False");
    });
    it("kinds without status have no /status", async () => {
      const res = await server.request("GET", `${users}/admin/status`);
      assert.equal(res.status, 404);
    });
  });

  describe("per-kind validation", () => {
    const expectInvalid = async (path: string, body: unknown, field: RegExp) => {
      const res = await server.request("POST", path, { body });
      assert.equal(res.status, 422, res.text);
      assert.ok(
        res.json.details.causes.some((c: { field: string }) => field.test(c.field)),
        `expected a cause matching ${field}: ${res.text}`,
      );
    };
    const secret = (data: Record<string, string>) => ({
      apiVersion: "management.platform/v1",
      kind: "SharedSecret",
      metadata: { name: "sv" },
      spec: { data },
    });
    const secrets = `${GROUP_PATH}/namespaces/platform/sharedsecrets`;
    it("SharedSecret data keys and base64 values", async () => {
      await expectInvalid(secrets, secret({ "bad/key": "YQ==" }), /^spec\.data\[bad\/key\]$/);
      await expectInvalid(secrets, secret({ good: "not base64!" }), /^spec\.data\[good\]$/);
      await expectInvalid(secrets, secret({ good: "YQ" }), /^spec\.data\[good\]$/);
    });
    it("cluster role names", async () => {
      await expectInvalid(users, user("cr-1", { clusterRoles: [{ name: "root" }] }), /^spec\.clusterRoles\[0\]\.name$/);
    });
    it("access rule verbs", async () => {
      await expectInvalid(
        `${GROUP_PATH}/clusters`,
        {
          apiVersion: "management.platform/v1",
          kind: "Cluster",
          metadata: { name: "c" },
          spec: { local: true, access: [{ verbs: ["fly"], users: ["*"] }] },
        },
        /^spec\.access\[0\]\.verbs\[0\]$/,
      );
    });
    it("e-mail shape", async () => {
      await expectInvalid(users, user("em-1", { email: "not-an-email" }), /^spec\.email$/);
    });
    it("access keys: exactly one of user, team, subject; deprecated scope rules", async () => {
      const keys = `${GROUP_PATH}/ownedaccesskeys`;
      const key = (spec: Record<string, unknown>) => ({
        apiVersion: "management.platform/v1",
        kind: "OwnedAccessKey",
        metadata: { name: "k" },
        spec,
      });
      await expectInvalid(keys, key({ user: "admin", team: "t" }), /^spec$/);
      await expectInvalid(
        keys,
        key({ user: "admin", scope: { rules: [{ resources: [{ resources: ["*", "users"] }] }] } }),
        /resources/,
      );
      await expectInvalid(
        keys,
        key({ user: "admin", scope: { rules: [{ nonResourceURLs: ["/api/*/x"] }] } }),
        /nonResourceURLs/,
      );
      await expectInvalid(keys, key({ user: "admin", key: "too-short" }), /^spec\.key$/);
    });
    it("type errors name the field", async () => {
      await expectInvalid(users, user("te-1", { disabled: "yes" }), /^spec\.disabled$/);
    });
  });

  describe("fieldValidation", () => {
    it("Warn (default) drops unknown fields with a Warning header", async () => {
      const res = await server.request("POST", users, { body: { ...user("fv-1"), spec: { bogus: 1 } } });
      assert.equal(res.status, 201);
      assert.equal(res.json.spec.bogus, undefined);
      assert.match(String(res.headers.warning), /299 - "unknown field \\"spec.bogus\\""/);
    });
    it("Strict refuses unknown and duplicate fields; Ignore is silent", async () => {
      const strict = await server.request("POST", `${users}?fieldValidation=Strict`, {
        body: { ...user("fv-2"), spec: { bogus: 1 } },
      });
      assert.equal(strict.status, 400);
      assert.match(strict.json.message, /strict decoding error: unknown field "spec.bogus"/);
      const dup = await server.request("POST", `${users}?fieldValidation=Strict`, {
        raw: '{"apiVersion":"management.platform/v1","kind":"User","metadata":{"name":"fv-3","name":"fv-3"}}',
        contentType: "application/json",
      });
      assert.equal(dup.status, 400);
      assert.match(dup.json.message, /duplicate field "metadata.name"/);
      const ignore = await server.request("POST", `${users}?fieldValidation=Ignore`, {
        body: { ...user("fv-4"), spec: { bogus: 1 } },
      });
      assert.equal(ignore.status, 201);
      assert.equal(ignore.headers.warning, undefined);
      // As kube-apiserver's ValidateCreateOptions: a 422 against CreateOptions, not a 400.
      const bad = await server.request("POST", `${users}?fieldValidation=Loud`, { body: user("fv-5") });
      assert.equal(bad.status, 422);
    });
    it("Strict refuses what a JSON or merge patch adds as kube-apiserver does: 422 on the field patch", async () => {
      await server.request("POST", users, { body: user("fv-6") });
      const patches = [
        { contentType: "application/merge-patch+json", body: { spec: { bogus: "unseen-value" } } },
        {
          contentType: "application/json-patch+json",
          body: [{ op: "add", path: "/spec/bogus", value: "unseen-value" }],
        },
      ];
      for (const patch of patches) {
        const res = await server.request("PATCH", `${users}/fv-6?fieldValidation=Strict`, patch);
        assert.equal(res.status, 422, res.text);
        assert.equal(res.json.reason, "Invalid");
        assert.deepEqual(
          res.json.details.causes.map((c: { field: string; reason: string }) => `${c.field} ${c.reason}`),
          ["patch FieldValueInvalid"],
        );
        assert.match(res.json.message, /strict decoding error: unknown field "spec.bogus"/);
        assert.doesNotMatch(res.text, /unseen-value/, "the patch's values are not repeated");
      }
    });
  });

  describe("bodies and negotiation", () => {
    it("YAML in and out", async () => {
      const res = await server.request("POST", users, {
        raw: "apiVersion: management.platform/v1\nkind: User\nmetadata:\n  name: yaml-1\nspec:\n  displayName: Y\n",
        contentType: "application/yaml",
        headers: { accept: "application/yaml" },
      });
      assert.equal(res.status, 201);
      assert.match(String(res.headers["content-type"]), /application\/yaml/);
      assert.match(res.text, /name: yaml-1/);
    });
    it("413 above 3 MiB, 400 on malformed JSON and YAML, 415, 406", async () => {
      const huge = await server.request("POST", users, {
        raw: `{"x":"${"a".repeat(3 * 1024 * 1024)}"}`,
        contentType: "application/json",
      });
      assert.equal(huge.status, 413);
      assert.equal(huge.json.reason, "RequestEntityTooLarge");
      const badJson = await server.request("POST", users, { raw: "{not json", contentType: "application/json" });
      assert.equal(badJson.status, 400);
      assert.equal(badJson.json.reason, "BadRequest");
      const badYaml = await server.request("POST", users, { raw: "a: [unclosed", contentType: "application/yaml" });
      assert.equal(badYaml.status, 400);
      const unknownType = await server.request("POST", users, { raw: "x", contentType: "text/plain" });
      assert.equal(unknownType.status, 415);
      assert.equal(unknownType.json.reason, "UnsupportedMediaType");
      const notAcceptable = await server.request("GET", users, {
        headers: { accept: "application/vnd.kubernetes.protobuf" },
      });
      assert.equal(notAcceptable.status, 406);
      assert.equal(notAcceptable.json.reason, "NotAcceptable");
    });
  });

  describe("replace, patch, delete", () => {
    it("replace needs a resourceVersion, answers 409 on a stale one and 404 when missing", async () => {
      const created = (await server.request("POST", users, { body: user("rp-1") })).json;
      const noRv = await server.request("PUT", `${users}/rp-1`, {
        body: { ...created, metadata: { ...created.metadata, resourceVersion: undefined } },
      });
      assert.equal(noRv.status, 422);
      const ok = await server.request("PUT", `${users}/rp-1`, { body: { ...created, spec: { displayName: "1" } } });
      assert.equal(ok.status, 200);
      const stale = await server.request("PUT", `${users}/rp-1`, { body: { ...created, spec: { displayName: "2" } } });
      assert.equal(stale.status, 409);
      assert.equal(stale.json.reason, "Conflict");
      assert.match(
        stale.json.message,
        /the object has been modified; please apply your changes to the latest version and try again/,
      );
      const missing = await server.request("PUT", `${users}/nobody`, {
        body: { ...created, metadata: { ...created.metadata, name: "nobody" } },
      });
      assert.equal(missing.status, 404);
    });
    it("json patch test, merge patch, conditional patch, unsupported types", async () => {
      await server.request("POST", users, { body: user("pt-1", { displayName: "a" }) });
      const failedTest = await server.request("PATCH", `${users}/pt-1`, {
        body: [{ op: "test", path: "/spec/displayName", value: "b" }],
        contentType: "application/json-patch+json",
      });
      assert.equal(failedTest.status, 422, failedTest.text);
      const merged = await server.request("PATCH", `${users}/pt-1`, {
        body: { spec: { displayName: null, email: "m@example.com" } },
        contentType: "application/merge-patch+json",
      });
      assert.equal(merged.status, 200);
      assert.equal(merged.json.spec.displayName, undefined);
      const conditional = await server.request("PATCH", `${users}/pt-1`, {
        body: { metadata: { resourceVersion: "1" }, spec: { email: "n@example.com" } },
        contentType: "application/merge-patch+json",
      });
      assert.equal(conditional.status, 409);
      const strategic = await server.request("PATCH", `${users}/pt-1`, {
        body: {},
        contentType: "application/strategic-merge-patch+json",
      });
      assert.equal(strategic.status, 415);
      assert.match(strategic.json.message, /application\/json-patch\+json/);
      const tooMany = await server.request("PATCH", `${users}/pt-1`, {
        body: Array.from({ length: 10001 }, () => ({ op: "test", path: "/kind", value: "User" })),
        contentType: "application/json-patch+json",
      });
      assert.equal(tooMany.status, 413);
    });
    it("delete returns the object and honours preconditions", async () => {
      const created = (await server.request("POST", users, { body: user("del-1") })).json;
      const wrongUid = await server.request("DELETE", `${users}/del-1`, {
        body: { kind: "DeleteOptions", apiVersion: "v1", preconditions: { uid: "nope" } },
      });
      assert.equal(wrongUid.status, 409);
      const wrongRv = await server.request("DELETE", `${users}/del-1`, {
        body: { kind: "DeleteOptions", apiVersion: "v1", preconditions: { resourceVersion: "1" } },
      });
      assert.equal(wrongRv.status, 409);
      const ok = await server.request("DELETE", `${users}/del-1`, {
        body: { kind: "DeleteOptions", apiVersion: "v1", preconditions: { uid: created.metadata.uid } },
      });
      assert.equal(ok.status, 200);
      assert.equal(ok.json.metadata.uid, created.metadata.uid);
      const again = await server.request("DELETE", `${users}/del-1`);
      assert.equal(again.status, 404);
    });
    it("dryRun=All stores nothing", async () => {
      const res = await server.request("POST", `${users}?dryRun=All`, { body: user("dry-1") });
      assert.equal(res.status, 201);
      assert.equal((await server.request("GET", `${users}/dry-1`)).status, 404);
    });
    it("unknown resources and methods", async () => {
      assert.equal((await server.request("GET", `${GROUP_PATH}/widgets`)).status, 404);
      assert.equal((await server.request("GET", `${GROUP_PATH}/namespaces/x/users`)).status, 404);
      assert.equal((await server.request("GET", `${GROUP_PATH}/selves`)).status, 405);
      assert.equal((await server.request("POST", `${users}/admin`, { body: user("admin") })).status, 405);
    });
  });
});
