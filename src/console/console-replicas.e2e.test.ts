/**
 * Web console sessions with two replicas on one etcd (as behind a load balancer, or `--workers`):
 * a session begun on one replica works on the other, sign-out on one is refused on both, a key
 * deleted on one ends the session on the other, an expired session is refused, and nothing of a
 * session can be read back through the API or a backup.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { BACKUP_PATH } from "../backup/backup-route.js";
import { generateEncryptionKeySecret } from "../crypto/secret-box.js";
import { entryId } from "../registry/sealed-entries.js";
import { EtcdCluster } from "../testing/etcd-cluster.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";
import { CSRF_HEADER, SESSION_SPACE } from "./sessions.js";

const BOOTSTRAP_KEY = "console-replica-test-admin-key-0123456789abc";
const SESSIONS = `/platform-internal/${SESSION_SPACE}/`;

describe("console sessions across two replicas on one etcd", { timeout: 120_000 }, () => {
  let etcd: EtcdCluster;
  let a: TestServer;
  let b: TestServer;
  const dir = mkdtempSync(join(tmpdir(), "platform-console-replicas-"));

  before(async () => {
    etcd = await EtcdCluster.start(1);
    // Replicas share the encryption keys, as they must to read each other's sessions.
    const encryptionKeyFile = join(dir, "encryption-keys.json");
    const keys = { keys: [{ name: "shared", secret: generateEncryptionKeySecret() }] };
    writeFileSync(encryptionKeyFile, JSON.stringify(keys), { mode: 0o600 });
    const common = { storage: etcd.url, bootstrapKey: BOOTSTRAP_KEY, encryptionKeyFile };
    a = await startTestServer(common);
    b = await startTestServer(common);
  });

  after(async () => {
    await a?.stop();
    await b?.stop();
    await etcd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function signIn(on: TestServer, accessKey: string): Promise<{ cookie: string; id: string; csrfToken: string }> {
    const res = await on.request("POST", "/console/api/session", { token: null, body: { accessKey } });
    assert.equal(res.status, 201, res.text);
    const cookie = String(res.headers["set-cookie"]).split(";")[0]!;
    return { cookie, id: cookie.slice(cookie.indexOf("=") + 1), csrfToken: res.json.csrfToken };
  }

  const teams = (on: TestServer, cookie: string) =>
    on.request("GET", `${GROUP_PATH}/teams`, { token: null, headers: { cookie } });

  /** The status `on` answers once the change made elsewhere reached it (a bounded wait, no time asserted). */
  async function settles(on: TestServer, cookie: string, expected: number): Promise<number> {
    let status = 0;
    for (let i = 0; i < 100 && status !== expected; i++) {
      status = (await teams(on, cookie)).status;
      if (status !== expected) await sleep(50);
    }
    return status;
  }

  it("signed in on A, used on B (reads, writes with the CSRF token), signed out on B, refused on A", async () => {
    const { cookie, csrfToken } = await signIn(a, BOOTSTRAP_KEY);
    assert.equal((await teams(a, cookie)).status, 200);
    assert.equal((await teams(b, cookie)).status, 200);
    const page = await b.request("GET", "/console/api/session", { token: null, headers: { cookie } });
    assert.equal(page.status, 200, page.text);
    assert.equal(page.json.csrfToken, csrfToken);
    const body = { metadata: { name: "made-on-b" } };
    const noToken = await b.request("POST", `${GROUP_PATH}/teams`, { token: null, body, headers: { cookie } });
    assert.equal(noToken.status, 403);
    const made = await b.request("POST", `${GROUP_PATH}/teams`, {
      token: null,
      body,
      headers: { cookie, [CSRF_HEADER]: csrfToken },
    });
    assert.equal(made.status, 201, made.text);

    const out = await b.request("DELETE", "/console/api/session", {
      token: null,
      headers: { cookie, [CSRF_HEADER]: csrfToken },
    });
    assert.equal(out.status, 204, out.text);
    assert.equal((await teams(b, cookie)).status, 401);
    // A remembered the session a moment ago; the store's report of the sign-out makes it forget.
    assert.equal(await settles(a, cookie, 401), 401);
    assert.equal((await a.request("GET", "/console/api/session", { token: null, headers: { cookie } })).status, 401);
    assert.deepEqual((await a.storage.list(SESSIONS)).items, []);
  });

  it("a key deleted on A ends its session on B", async () => {
    const user = { metadata: { name: "replica-user" }, spec: { clusterRoles: [{ name: "platform-management-view" }] } };
    assert.equal((await a.request("POST", `${GROUP_PATH}/users`, { body: user })).status, 201);
    const made = await a.request("POST", `${GROUP_PATH}/ownedaccesskeys`, {
      body: { metadata: { name: "replica-key" }, spec: { user: "replica-user" } },
    });
    assert.equal(made.status, 201, made.text);
    const { cookie } = await signIn(a, made.json.spec.key);
    assert.equal(await settles(b, cookie, 200), 200);
    assert.equal((await a.request("DELETE", `${GROUP_PATH}/ownedaccesskeys/replica-key`)).status, 200);
    assert.equal(await settles(b, cookie, 401), 401);
  });

  it("an expired session is refused on both replicas", async () => {
    const { cookie, id } = await signIn(b, BOOTSTRAP_KEY);
    assert.equal((await teams(a, cookie)).status, 200);
    // Time passes for this session: its stored expiry (the clock it is checked against) is now past.
    const key = `${SESSIONS}${entryId(id)}`;
    const kv = (await a.storage.get(key))!;
    const entry = JSON.parse(kv.value.toString("utf8"));
    await a.storage.update(key, Buffer.from(JSON.stringify({ ...entry, expiresAt: Date.now() - 1 })), kv.modRevision);
    assert.equal(await settles(a, cookie, 401), 401);
    assert.equal((await teams(b, cookie)).status, 401);
  });

  it("a session is stored hashed and encrypted, and no API or backup shows it", async () => {
    const { cookie, id, csrfToken } = await signIn(a, BOOTSTRAP_KEY);
    const stored = (await b.storage.list(SESSIONS)).items.filter((kv) => kv.key === `${SESSIONS}${entryId(id)}`);
    assert.equal(stored.length, 1);
    const raw = stored[0]!.value.toString("utf8");
    assert.match(raw, /^\{"expiresAt":\d+,"sealed":"enc:v1:shared:[^"]+"\}$/);
    const secrets = [id, csrfToken, BOOTSTRAP_KEY];
    for (const s of secrets) assert.ok(!raw.includes(s));

    const backup = await b.request("GET", BACKUP_PATH);
    assert.equal(backup.status, 200);
    assert.ok(backup.text.includes('"end":true'));
    for (const s of [...secrets, entryId(id), SESSION_SPACE]) assert.ok(!backup.text.includes(s));
    for (const path of [stored[0]!.key, `/kubernetes/management${stored[0]!.key}`]) {
      const asked: Array<Record<string, string>> = [{}, { cookie }];
      for (const headers of asked) {
        const res = await b.request("GET", path, { headers });
        assert.equal(res.status, 404, path);
        for (const s of secrets) assert.ok(!res.text.includes(s));
      }
    }
  });
});
