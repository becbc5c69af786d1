import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";

describe("authentication", () => {
  let server: TestServer;
  const keys = `${GROUP_PATH}/ownedaccesskeys`;
  const bootstrapKey = "b".repeat(40);
  before(async () => {
    server = await startTestServer({ bootstrapKey });
  });
  after(async () => {
    await server.stop();
  });

  it("bootstraps admin with PLATFORM_BOOTSTRAP_KEY, key file 0600 and a working kubeconfig", async () => {
    assert.equal(server.adminKey, bootstrapKey);
    const keyFile = join(server.dataDir, "admin-access-key");
    assert.equal(readFileSync(keyFile, "utf8").trim(), bootstrapKey);
    assert.equal(statSync(keyFile).mode & 0o777, 0o600);
    // Async: the server runs in this process and must keep serving while kubectl waits.
    const { stdout: out } = await promisify(execFile)("kubectl", [
      "--kubeconfig",
      join(server.dataDir, "admin.kubeconfig"),
      "get",
      "users",
      "-o",
      "name",
    ]);
    assert.match(out, /user.management.platform\/admin/);
  });

  it("health and version answer without a key; the API does not", async () => {
    for (const path of ["/healthz", "/livez", "/readyz", "/version"]) {
      const res = await server.request("GET", path, { token: null });
      assert.equal(res.status, 200, path);
    }
    const none = await server.request("GET", `${GROUP_PATH}/users`, { token: null });
    assert.equal(none.status, 401);
    assert.equal(none.json.kind, "Status");
    assert.equal(none.json.reason, "Unauthorized");
    const wrong = await server.request("GET", `${GROUP_PATH}/users`, { token: "x".repeat(40) });
    assert.equal(wrong.status, 401);
  });

  it("health answers any method without a key, as kube-apiserver's, and only reads", async () => {
    for (const method of ["POST", "PUT", "PATCH", "DELETE", "OPTIONS"]) {
      for (const path of ["/readyz", "/livez", "/healthz", "/readyz/shutdown"]) {
        const res = await server.request(method, path, { token: null, body: { spec: { stopping: true } } });
        assert.deepEqual([res.status, res.text], [200, "ok"], `${method} ${path}`);
      }
    }
    const head = await server.request("HEAD", "/readyz", { token: null });
    assert.deepEqual([head.status, head.text], [200, ""]);
    // Nothing else opens up: /version stays GET only (anonymous may not post there: 403, as in kube),
    // the API still wants a key.
    assert.equal((await server.request("POST", "/version", { token: null })).status, 403);
    assert.equal((await server.request("POST", `${GROUP_PATH}/users`, { token: null, body: {} })).status, 401);
    assert.equal((await server.request("GET", "/readyz?verbose", { token: null })).status, 200);
  });

  it("a created key is returned once, stored as a hash, and works at once", async () => {
    const created = await server.request("POST", keys, {
      body: {
        apiVersion: "management.platform/v1",
        kind: "OwnedAccessKey",
        metadata: { name: "k1" },
        spec: { user: "admin" },
      },
    });
    assert.equal(created.status, 201, created.text);
    const key = created.json.spec.key as string;
    assert.match(key, /^[A-Za-z0-9]{40,}$/);
    const read = await server.request("GET", `${keys}/k1`);
    assert.equal(read.json.spec.key, undefined);
    const listed = await server.request("GET", keys);
    assert.ok(listed.json.items.every((k: { spec: { key?: string } }) => k.spec.key === undefined));
    const use = await server.request("POST", `${GROUP_PATH}/selves`, {
      token: key,
      body: { apiVersion: "management.platform/v1", kind: "Self" },
    });
    assert.equal(use.status, 201, use.text);
    assert.equal(use.json.status.user, "admin");
    assert.equal(use.json.status.accessKey, "k1");
  });

  it("a key given by the creator needs 32 characters", async () => {
    const given = "g".repeat(32);
    const created = await server.request("POST", keys, {
      body: {
        apiVersion: "management.platform/v1",
        kind: "OwnedAccessKey",
        metadata: { name: "k-given" },
        spec: { user: "admin", key: given },
      },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.spec.key, given);
    assert.equal((await server.request("GET", `${GROUP_PATH}/users`, { token: given })).status, 200);
  });

  it("disabled keys, expired keys and keys of disabled users get 401", async () => {
    const make = async (name: string, spec: Record<string, unknown>) => {
      const res = await server.request("POST", keys, {
        body: { apiVersion: "management.platform/v1", kind: "OwnedAccessKey", metadata: { name }, spec },
      });
      assert.equal(res.status, 201, res.text);
      return res.json.spec.key as string;
    };
    const disabled = await make("k-disabled", { user: "admin", disabled: true });
    assert.equal((await server.request("GET", `${GROUP_PATH}/users`, { token: disabled })).status, 401);

    // A key within its ttl works; one past it is refused. (Not one key checked on both sides of
    // its expiry: creationTimestamp has whole seconds, and a loaded machine can take longer than
    // a short ttl between the create and the first request.)
    const lasting = await make("k-lasting", { user: "admin", ttl: 3600 });
    assert.equal((await server.request("GET", `${GROUP_PATH}/users`, { token: lasting })).status, 200);
    const expiring = await make("k-expiring", { user: "admin", ttl: 1 });
    await new Promise((r) => setTimeout(r, 2100));
    assert.equal((await server.request("GET", `${GROUP_PATH}/users`, { token: expiring })).status, 401);

    await server.request("POST", `${GROUP_PATH}/users`, {
      body: { apiVersion: "management.platform/v1", kind: "User", metadata: { name: "bob" }, spec: {} },
    });
    const bobs = await make("k-bob", { user: "bob" });
    assert.equal((await server.request("GET", `${GROUP_PATH}/users/bob`, { token: bobs })).status, 200);
    await server.request("PATCH", `${GROUP_PATH}/users/bob`, {
      body: { spec: { disabled: true } },
      contentType: "application/merge-patch+json",
    });
    assert.equal((await server.request("GET", `${GROUP_PATH}/users/bob`, { token: bobs })).status, 401);
  });
});
