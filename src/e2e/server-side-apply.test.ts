import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { parse } from "yaml";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";

const APPLY = "application/apply-patch+yaml";

describe("server-side apply", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => {
    await server.stop();
  });

  const apply = (name: string, body: unknown, query: string) =>
    server.request("PATCH", `${GROUP_PATH}/teams/${name}?${query}`, { body, contentType: APPLY });
  const team = (name: string, spec: Record<string, unknown>, labels?: Record<string, string>) => ({
    apiVersion: "management.platform/v1",
    kind: "Team",
    metadata: { name, ...(labels ? { labels } : {}) },
    spec,
  });

  it("needs a fieldManager (422) and creates a missing object (201) with an Apply entry", async () => {
    const missing = await apply("ssa-a", team("ssa-a", { displayName: "A" }), "");
    assert.equal(missing.status, 422, missing.text);
    assert.match(missing.json.message, /fieldManager: Required value/);

    const created = await apply("ssa-a", team("ssa-a", { displayName: "A" }, { tier: "one" }), "fieldManager=alice");
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.json.metadata.managedFields.length, 1);
    const entry = created.json.metadata.managedFields[0];
    assert.equal(entry.manager, "alice");
    assert.equal(entry.operation, "Apply");
    assert.deepEqual(entry.fieldsV1, {
      "f:metadata": { "f:labels": { "f:tier": {} } },
      "f:spec": { "f:displayName": {} },
    });

    // In a later second than the create: the entry's time must not make the same apply a change.
    await new Promise((r) => setTimeout(r, 1100));
    const again = await apply("ssa-a", team("ssa-a", { displayName: "A" }, { tier: "one" }), "fieldManager=alice");
    assert.equal(again.status, 200);
    assert.equal(again.json.metadata.resourceVersion, created.json.metadata.resourceVersion, "no-op apply");
  });

  it("two managers applying the same field conflict (409, FieldManagerConflict); force takes it over", async () => {
    await apply("ssa-b", team("ssa-b", { displayName: "B", description: "first" }), "fieldManager=mgr");
    const same = await apply("ssa-b", team("ssa-b", { displayName: "B" }), "fieldManager=other");
    assert.equal(same.status, 200, "the same value is shared, not a conflict");

    const clash = await apply("ssa-b", team("ssa-b", { description: "second" }), "fieldManager=other&force=false");
    assert.equal(clash.status, 409, clash.text);
    assert.equal(clash.json.reason, "Conflict");
    assert.equal(clash.json.message, 'Apply failed with 1 conflict: conflict with "mgr": .spec.description');
    assert.deepEqual(clash.json.details.causes, [
      { reason: "FieldManagerConflict", message: 'conflict with "mgr"', field: ".spec.description" },
    ]);

    const forced = await apply("ssa-b", team("ssa-b", { description: "second" }), "fieldManager=other&force=true");
    assert.equal(forced.status, 200, forced.text);
    assert.equal(forced.json.spec.description, "second");
    const byManager = Object.fromEntries(
      forced.json.metadata.managedFields.map((e: { manager: string; fieldsV1: unknown }) => [e.manager, e.fieldsV1]),
    );
    assert.deepEqual(byManager.mgr, { "f:spec": { "f:displayName": {} } });
    assert.deepEqual(byManager.other, { "f:spec": { "f:description": {} } });
  });

  it("conflicts with an Update manager name the manager as Kubernetes does", async () => {
    const created = await server.request("POST", `${GROUP_PATH}/teams?fieldManager=editor`, {
      body: team("ssa-u", { displayName: "U", description: "x" }),
    });
    assert.equal(created.status, 201);
    const clash = await apply("ssa-u", team("ssa-u", { displayName: "V", description: "y" }), "fieldManager=ssa");
    assert.equal(clash.status, 409);
    assert.match(
      clash.json.message,
      /^Apply failed with 2 conflicts: conflicts with "editor" using management\.platform\/v1 at /,
    );
    assert.match(clash.json.message, /\n- \.spec\.description\n- \.spec\.displayName$/);
    assert.equal(clash.json.details.causes.length, 2);
  });

  it("removes a field its manager stops applying, unless another manager owns it", async () => {
    await apply("ssa-c", team("ssa-c", { displayName: "C", description: "d" }, { a: "1", b: "2" }), "fieldManager=m1");
    await apply("ssa-c", team("ssa-c", {}, { b: "2" }), "fieldManager=m2");
    const dropped = await apply("ssa-c", team("ssa-c", { displayName: "C" }), "fieldManager=m1");
    assert.equal(dropped.status, 200, dropped.text);
    assert.equal(dropped.json.spec.description, undefined, "only m1 owned it");
    assert.deepEqual(dropped.json.metadata.labels, { b: "2" }, "b is still m2's");
    assert.equal(dropped.json.spec.displayName, "C");
  });

  it("merges keyed lists item by item, so managers can own different items", async () => {
    const body = (items: Array<Record<string, unknown>>) => ({
      apiVersion: "management.platform/v1",
      kind: "Project",
      metadata: { name: "ssa-list" },
      spec: { allowedClusters: items },
    });
    const path = `${GROUP_PATH}/projects/ssa-list`;
    const first = await server.request("PATCH", `${path}?fieldManager=p1`, {
      body: body([{ name: "east" }]),
      contentType: APPLY,
    });
    assert.equal(first.status, 201, first.text);
    const second = await server.request("PATCH", `${path}?fieldManager=p2`, {
      body: body([{ name: "west" }]),
      contentType: APPLY,
    });
    assert.equal(second.status, 200, second.text);
    assert.deepEqual(second.json.spec.allowedClusters, [{ name: "east" }, { name: "west" }]);
    const p2 = second.json.metadata.managedFields.find((e: { manager: string }) => e.manager === "p2");
    assert.deepEqual(p2.fieldsV1, {
      "f:spec": { "f:allowedClusters": { 'k:{"name":"west"}': { ".": {}, "f:name": {} } } },
    });
    const dropEast = await server.request("PATCH", `${path}?fieldManager=p1`, { body: body([]), contentType: APPLY });
    assert.deepEqual(dropEast.json.spec.allowedClusters, [{ name: "west" }]);
  });

  it("force is refused on other patch types; managedFields may not be applied", async () => {
    await apply("ssa-d", team("ssa-d", {}), "fieldManager=x");
    const merge = await server.request("PATCH", `${GROUP_PATH}/teams/ssa-d?force=true`, {
      body: { spec: {} },
      contentType: "application/merge-patch+json",
    });
    assert.equal(merge.status, 422);
    const bad = await apply(
      "ssa-d",
      { ...team("ssa-d", {}), metadata: { name: "ssa-d", managedFields: [] } },
      "fieldManager=x",
    );
    assert.equal(bad.status, 400);
  });

  it("kubectl apply --server-side creates, updates, and takes over from client-side apply", async () => {
    const kubeconfig = server.kubeconfig();
    const dir = server.dataDir;
    // Asynchronously: the server runs in this very process and must keep answering.
    const kubectl = async (...args: string[]) =>
      (await promisify(execFile)("/usr/bin/kubectl", ["--kubeconfig", kubeconfig, ...args], { timeout: 60_000 }))
        .stdout;
    const manifest = (description: string) => {
      const file = join(dir, `team-${description}.yaml`);
      writeFileSync(
        file,
        `apiVersion: management.platform/v1\nkind: Team\nmetadata:\n  name: kc\nspec:\n  displayName: KC\n  description: ${description}\n`,
      );
      return file;
    };
    // Client-side apply first (it records the last-applied annotation), then server-side.
    assert.match(await kubectl("apply", "--validate=false", "-f", manifest("one")), /created/);
    assert.match(
      await kubectl("apply", "--server-side", "--validate=false", "-f", manifest("two")),
      /serverside-applied/,
    );
    const obj = parse(await kubectl("get", "teams", "kc", "-o", "yaml", "--show-managed-fields"));
    assert.equal(obj.spec.description, "two");
    const managers = obj.metadata.managedFields.map(
      (e: { manager: string; operation: string }) => `${e.manager}/${e.operation}`,
    );
    assert.ok(managers.includes("kubectl/Apply"), managers.join());
    // Ownership moved: applying without description now removes it.
    const file = join(dir, "team-bare.yaml");
    writeFileSync(
      file,
      "apiVersion: management.platform/v1\nkind: Team\nmetadata:\n  name: kc\nspec:\n  displayName: KC\n",
    );
    await kubectl("apply", "--server-side", "--validate=false", "-f", file);
    const after = parse(await kubectl("get", "teams", "kc", "-o", "yaml"));
    assert.equal(after.spec.description, undefined);
    assert.equal(after.spec.displayName, "KC");
  });
});
