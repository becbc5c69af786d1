import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";
import { WatchClient } from "../testing/watch-client.js";

const MERGE_PATCH = "application/merge-patch+json";
const APPLY = "application/apply-patch+yaml";

/** The options of a write (dryRun, fieldManager, fieldValidation) as kube-apiserver checks and honours them. */
describe("write options", () => {
  let server: TestServer;
  const teams = `${GROUP_PATH}/teams`;
  const team = (name: string, spec: Record<string, unknown> = {}) => ({
    apiVersion: "management.platform/v1",
    kind: "Team",
    metadata: { name, labels: { "write-options": "yes" } },
    spec,
  });

  before(async () => {
    server = await startTestServer();
    const res = await server.request("POST", teams, { body: team("wo-existing", { displayName: "Existing" }) });
    assert.equal(res.status, 201, res.text);
  });
  after(async () => {
    await server.stop();
  });

  it("a write answers the object as stored: create, update, merge patch and apply each equal the GET after", async () => {
    const one = `${teams}/wo-echo`;
    const get = async () => (await server.request("GET", one)).json;
    const created = await server.request("POST", teams, { body: team("wo-echo", { displayName: "Echo" }) });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.json, await get());
    const updated = await server.request("PUT", one, {
      body: { ...created.json, spec: { displayName: "Echo 2" } },
    });
    assert.equal(updated.status, 200, updated.text);
    assert.equal(updated.json.spec.displayName, "Echo 2");
    assert.deepEqual(updated.json, await get());
    const patched = await server.request("PATCH", one, {
      body: { spec: { description: "patched" } },
      contentType: MERGE_PATCH,
    });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.json.spec.description, "patched");
    assert.deepEqual(patched.json, await get());
    const applied = await server.request("PATCH", `${one}?fieldManager=echo-test&force=true`, {
      raw: "apiVersion: management.platform/v1\nkind: Team\nmetadata:\n  name: wo-echo\nspec:\n  displayName: Applied\n",
      contentType: APPLY,
    });
    assert.equal(applied.status, 200, applied.text);
    assert.equal(applied.json.spec.displayName, "Applied");
    assert.deepEqual(applied.json, await get());
    assert.ok(Number(applied.json.metadata.resourceVersion) > Number(created.json.metadata.resourceVersion));
  });

  /** A 422 Invalid Status against `<kind>.meta.k8s.io ""`, with one cause on `field`. */
  const assertInvalidOptions = (
    res: { status: number; text: string; json: { kind: string; reason: string; details: Record<string, unknown> } },
    kind: string,
    field: string,
    reason: string,
  ) => {
    assert.equal(res.status, 422, res.text);
    assert.equal(res.json.kind, "Status");
    assert.equal(res.json.reason, "Invalid");
    assert.equal(res.json.details.kind, kind);
    assert.equal(res.json.details.group, "meta.k8s.io");
    assert.equal(res.json.details.name, "");
    assert.deepEqual(
      (res.json.details.causes as Array<{ field: string; reason: string }>).map((c) => [c.field, c.reason]),
      [[field, reason]],
    );
  };

  describe("fieldManager", () => {
    it("128 bytes is the longest accepted; 129 is refused on create, update and patch (422)", async () => {
      const longest = "m".repeat(128);
      const ok = await server.request("POST", `${teams}?fieldManager=${longest}`, { body: team("wo-fm-ok") });
      assert.equal(ok.status, 201, ok.text);
      assert.deepEqual(
        ok.json.metadata.managedFields.map((e: { manager: string }) => e.manager),
        [longest],
      );

      const tooLong = "m".repeat(129);
      const create = await server.request("POST", `${teams}?fieldManager=${tooLong}`, { body: team("wo-fm-long") });
      assertInvalidOptions(create, "CreateOptions", "fieldManager", "FieldValueTooLong");
      assert.match(create.json.message, /^CreateOptions\.meta\.k8s\.io "" is invalid: fieldManager: Too long/);
      assert.equal((await server.request("GET", `${teams}/wo-fm-long`)).status, 404, "nothing was created");

      const current = (await server.request("GET", `${teams}/wo-fm-ok`)).json;
      const update = await server.request("PUT", `${teams}/wo-fm-ok?fieldManager=${tooLong}`, {
        body: { ...current, spec: { displayName: "changed" } },
      });
      assertInvalidOptions(update, "UpdateOptions", "fieldManager", "FieldValueTooLong");
      const patch = await server.request("PATCH", `${teams}/wo-fm-ok?fieldManager=${tooLong}`, {
        body: { spec: { displayName: "changed" } },
        contentType: MERGE_PATCH,
      });
      assertInvalidOptions(patch, "PatchOptions", "fieldManager", "FieldValueTooLong");
      const apply = await server.request("PATCH", `${teams}/wo-fm-ok?fieldManager=${tooLong}`, {
        body: team("wo-fm-ok", { displayName: "changed" }),
        contentType: APPLY,
      });
      assertInvalidOptions(apply, "PatchOptions", "fieldManager", "FieldValueTooLong");
      const after = (await server.request("GET", `${teams}/wo-fm-ok`)).json;
      assert.equal(after.metadata.resourceVersion, current.metadata.resourceVersion, "nothing was written");
    });

    it("the limit counts UTF-8 bytes, not characters", async () => {
      // 65 characters, 130 bytes.
      const manager = encodeURIComponent("é".repeat(65));
      const res = await server.request("POST", `${teams}?fieldManager=${manager}`, { body: team("wo-fm-utf8") });
      assertInvalidOptions(res, "CreateOptions", "fieldManager", "FieldValueTooLong");
    });

    it("non-printable characters are refused, with their byte position", async () => {
      const res = await server.request("POST", `${teams}?fieldManager=${encodeURIComponent("é\u0007x")}`, {
        body: team("wo-fm-bell"),
      });
      assertInvalidOptions(res, "CreateOptions", "fieldManager", "FieldValueInvalid");
      assert.match(res.json.message, /invalid character U\+0007 \(at position 2\)/);
    });
  });

  describe("dryRun and fieldValidation values", () => {
    it("an unknown dryRun value is a 422 against the write's options", async () => {
      const create = await server.request("POST", `${teams}?dryRun=Everything`, { body: team("wo-dry-bad") });
      assertInvalidOptions(create, "CreateOptions", "dryRun", "FieldValueNotSupported");
      const del = await server.request("DELETE", `${teams}/wo-existing?dryRun=Everything`);
      assertInvalidOptions(del, "DeleteOptions", "dryRun", "FieldValueNotSupported");
      assert.equal((await server.request("GET", `${teams}/wo-existing`)).status, 200, "not deleted");
    });

    it("an unknown fieldValidation value is a 422; an empty one is the default", async () => {
      const bad = await server.request("PATCH", `${teams}/wo-existing?fieldValidation=Loud`, {
        body: { spec: {} },
        contentType: MERGE_PATCH,
      });
      assertInvalidOptions(bad, "PatchOptions", "fieldValidation", "FieldValueNotSupported");
      const empty = await server.request("POST", `${teams}?fieldValidation=`, { body: team("wo-fv-empty") });
      assert.equal(empty.status, 201, empty.text);
    });
  });

  it("dryRun=All writes nothing a watch could see: create, update, patch, apply, delete", async () => {
    const existing = (await server.request("GET", `${teams}/wo-existing`)).json;
    // Watch from now: the other tests' writes are before this revision.
    const from = (await server.request("GET", teams)).json.metadata.resourceVersion;
    const watch = new WatchClient(
      server,
      `${teams}?watch=true&resourceVersion=${from}&labelSelector=write-options%3Dyes&timeoutSeconds=60`,
      server.adminKey,
    );
    try {
      const dry = "dryRun=All&fieldManager=dry";
      const created = await server.request("POST", `${teams}?${dry}`, { body: team("wo-dry-new") });
      assert.equal(created.status, 201, created.text); // as kube: the object would have been created
      assert.equal(created.json.metadata.name, "wo-dry-new");
      const updated = await server.request("PUT", `${teams}/wo-existing?${dry}`, {
        body: { ...existing, spec: { displayName: "Updated" } },
      });
      assert.equal(updated.status, 200, updated.text);
      assert.equal(updated.json.spec.displayName, "Updated", "the response shows the would-be object");
      const patched = await server.request("PATCH", `${teams}/wo-existing?${dry}`, {
        body: { spec: { displayName: "Patched" } },
        contentType: MERGE_PATCH,
      });
      assert.equal(patched.status, 200, patched.text);
      const applied = await server.request("PATCH", `${teams}/wo-dry-applied?${dry}`, {
        body: team("wo-dry-applied", { displayName: "Applied" }),
        contentType: APPLY,
      });
      assert.equal(applied.status, 201, applied.text);
      const deleted = await server.request("DELETE", `${teams}/wo-existing?dryRun=All`);
      assert.equal(deleted.status, 200, deleted.text);

      // A real write after the dry ones: events arrive in order, so once its event is here,
      // any event of the dry-run writes would have arrived before it.
      const marker = await server.request("POST", teams, { body: team("wo-marker") });
      assert.equal(marker.status, 201, marker.text);
      await watch.until((events) => events.some((e) => e.object.metadata?.name === "wo-marker"));
      assert.deepEqual(
        watch.events.map((e) => [e.type, e.object.metadata?.name]),
        [["ADDED", "wo-marker"]],
      );

      const now = (await server.request("GET", `${teams}/wo-existing`)).json;
      assert.equal(now.metadata.resourceVersion, existing.metadata.resourceVersion);
      assert.equal(now.spec.displayName, "Existing");
      assert.equal((await server.request("GET", `${teams}/wo-dry-new`)).status, 404);
      assert.equal((await server.request("GET", `${teams}/wo-dry-applied`)).status, 404);
    } finally {
      watch.close();
    }
  });
});
