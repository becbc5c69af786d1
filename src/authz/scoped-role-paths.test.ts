import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ADMIN_USER } from "../auth/bootstrap.js";
import { BACKUP_PATH } from "../backup/backup-route.js";
import { scopedKey, startTestServer, type TestServer, userWithKey } from "../testing/test-server.js";

/**
 * The backup and /metrics serve the whole server's state: a scoped key reaches them only through
 * a rule naming them in nonResourceURLs, whatever its user's role (docs/permissions.md).
 */
describe("scoped keys on the paths a role keeps", () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s?.stop());

  const status = async (path: string, token: string) => {
    const r = await s.request("GET", path, { token, headers: { accept: "application/json, text/plain" } });
    return { code: r.status, text: r.text };
  };

  it("refuses an admin's key scoped to one project, or to getting users, with 403", async () => {
    const projectKey = await scopedKey(s, ADMIN_USER, "admin-one-project", { projects: [{ project: "alpha" }] });
    const usersKey = await scopedKey(s, ADMIN_USER, "admin-get-users", {
      rules: [{ verbs: ["get"], resources: [{ group: "management.platform", resources: ["users"] }] }],
    });
    for (const key of [projectKey, usersKey]) {
      for (const path of [BACKUP_PATH, "/metrics"]) {
        const r = await status(path, key);
        assert.equal(r.code, 403, `${path}: ${r.text}`);
        assert.match(r.text, new RegExp(`cannot get path \\\\"${path}\\\\"`));
        assert.doesNotMatch(r.text, /"kind":"User"|key-hash|ownedaccesskeys/);
      }
      // What every client needs still answers.
      assert.equal((await status("/version", key)).code, 200);
    }
  });

  it("lets a scoped key through the path its nonResourceURLs rule names, and no other", async () => {
    const backupOnly = await scopedKey(s, ADMIN_USER, "admin-backup-only", {
      rules: [{ verbs: ["get"], nonResourceURLs: [BACKUP_PATH] }],
    });
    assert.equal((await status(BACKUP_PATH, backupOnly)).code, 200);
    assert.equal((await status("/metrics", backupOnly)).code, 403);
    const metricsOnly = await scopedKey(s, ADMIN_USER, "admin-metrics-only", {
      rules: [{ verbs: ["get"], nonResourceURLs: ["/metrics"] }],
    });
    assert.equal((await status("/metrics", metricsOnly)).code, 200);
    assert.equal((await status(BACKUP_PATH, metricsOnly)).code, 403);
  });

  it("still needs the role: a rule naming the backup gives a user without it nothing", async () => {
    const key = await userWithKey(s, "no-role", {
      rules: [{ verbs: ["get"], nonResourceURLs: [BACKUP_PATH, "/metrics"] }],
    });
    assert.equal((await status(BACKUP_PATH, key)).code, 403);
    assert.equal((await status("/metrics", key)).code, 403);
  });
});
