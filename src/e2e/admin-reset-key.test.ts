import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { hashAccessKey } from "../crypto/access-keys.js";
import { runCli } from "../testing/cli-run.js";
import { EtcdCluster } from "../testing/etcd-cluster.js";
import { startServerProcess } from "../testing/server-process.js";
import { GROUP_PATH, startTestServer } from "../testing/test-server.js";
import { waitFor } from "../testing/wait-for.js";

const KUBECTL = process.env.KUBECTL ?? "/usr/bin/kubectl";

function kubectl(kubeconfig: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(KUBECTL, ["--kubeconfig", kubeconfig, ...args], { timeout: 20_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

/**
 * `platform admin reset-key` against real server processes: refused while one runs on the data
 * dir (the server holds the store's lock), then, once it stopped, a new hashed admin key, a
 * kubeconfig kubectl uses after a restart, the old key revoked, and a line in the audit log.
 */
describe("platform admin reset-key", () => {
  const dir = mkdtempSync(join(tmpdir(), "platform-reset-key-"));
  const dataDir = join(dir, "data");
  const home = join(dir, "home");
  const auditLog = join(dir, "audit.log");
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("refuses while the server runs, resets once it stopped, and the new key works", async () => {
    let server = await startServerProcess(dataDir, undefined, ["--audit-log", auditLog]);
    const oldKey = server.adminKey;
    try {
      const refused = await runCli(home, ["admin", "reset-key", "--data-dir", dataDir, "--audit-log", auditLog]);
      assert.equal(refused.code, 1, refused.stdout + refused.stderr);
      assert.match(refused.stderr, /in use by another process .*stop it first/);
      assert.equal(readFileSync(join(dataDir, "admin-access-key"), "utf8").trim(), oldKey, "key file untouched");
      // So is a restore into its store (a backup of it may be read meanwhile).
      const backupFile = join(dir, "running.backup.gz");
      const backup = await runCli(home, ["backup", "--data-dir", dataDir, "--to", backupFile]);
      assert.equal(backup.code, 0, backup.stderr);
      const restore = await runCli(home, ["restore", "--from", backupFile, "--data-dir", dataDir, "--force"]);
      assert.equal(restore.code, 1, restore.stdout);
      assert.match(restore.stderr, /in use by another process/);
      // A second server on the same store is refused the same way.
      await assert.rejects(startServerProcess(dataDir), /in use by another process/);
    } finally {
      server.child.kill("SIGTERM");
      await server.exited;
    }

    const reset = await runCli(home, ["admin", "reset-key", "--data-dir", dataDir, "--audit-log", auditLog]);
    assert.equal(reset.code, 0, reset.stderr);
    const kubeconfig = join(dataDir, "admin.kubeconfig");
    assert.match(reset.stdout, new RegExp(`admin kubeconfig: +${kubeconfig}`));
    assert.match(reset.stdout, /revoked: +admin-bootstrap/);
    const newKey = readFileSync(join(dataDir, "admin-access-key"), "utf8").trim();
    assert.notEqual(newKey, oldKey);
    assert.equal(statSync(join(dataDir, "admin-access-key")).mode & 0o777, 0o600);
    assert.equal(statSync(kubeconfig).mode & 0o777, 0o600);
    // Hashed at rest: the database holds the key's hash, never the key.
    const db = readFileSync(join(dataDir, "platform.db")).toString("latin1");
    const walFile = join(dataDir, "platform.db-wal");
    const wal = existsSync(walFile) ? readFileSync(walFile).toString("latin1") : "";
    assert.ok(!db.includes(newKey) && !wal.includes(newKey), "the new key is stored in the clear");
    assert.ok(db.includes(hashAccessKey(newKey)) || wal.includes(hashAccessKey(newKey)), "the key's hash is stored");
    const line = readFileSync(auditLog, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((e) => e.userAgent === "platform admin reset-key");
    assert.ok(line, "the audit log records the reset");
    assert.equal(line.verb, "create");
    assert.match(
      JSON.stringify(line.annotations),
      /wrote new key admin-reset-\d+ for user admin; revoked: admin-bootstrap/,
    );

    // The kubeconfig reset-key wrote works as it is once the server is back on the same port.
    server = await startServerProcess(dataDir, server.port, ["--audit-log", auditLog]);
    try {
      const users = await kubectl(kubeconfig, ["get", "users", "-o", "name"]);
      assert.equal(users.code, 0, users.stderr);
      assert.match(users.stdout, /user\.management\.platform\/admin/);
      const who = await kubectl(kubeconfig, ["auth", "whoami", "-o", "jsonpath={.status.userInfo.username}"]);
      assert.equal(who.stdout, "admin");
      // The reset is an Event on the admin user too.
      const events = await kubectl(kubeconfig, ["events", "-A", "--for", "user/admin"]);
      assert.match(
        events.stdout,
        /Warning\s+AdminKeyReset\s+User\/admin\s+platform admin reset-key wrote new key admin-reset-/,
      );
      // The old key was revoked.
      const old = await kubectl(kubeconfig, ["--token", oldKey, "get", "users"]);
      assert.notEqual(old.code, 0);
      assert.match(old.stderr, /Unauthorized|must be logged in/);
    } finally {
      server.child.kill("SIGTERM");
      await server.exited;
    }
  });

  it("on etcd, resets while a server runs: the running server takes the new key at once", async () => {
    const etcd = await EtcdCluster.start(1);
    try {
      const server = await startTestServer({ storage: etcd.url });
      try {
        const localDir = join(dir, "etcd-local");
        const r = await runCli(home, ["admin", "reset-key", "--storage", etcd.url, "--data-dir", localDir]);
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stdout, /revoked: +admin-bootstrap/);
        const key = readFileSync(join(localDir, "admin-access-key"), "utf8").trim();
        const statusWith = async (token: string) =>
          (await server.request("GET", `${GROUP_PATH}/users/admin`, { token })).status;
        await waitFor(
          "the new key authenticating on the running server",
          () => statusWith(key),
          (status) => status === 200,
        );
        await waitFor(
          "the bootstrap key revoked",
          () => statusWith(server.adminKey),
          (status) => status === 401,
        );
      } finally {
        await server.stop();
      }
    } finally {
      await etcd.stop();
    }
  });

  it("refuses a data dir without a database, creating nothing", async () => {
    const empty = join(dir, "empty");
    const r = await runCli(home, ["admin", "reset-key", "--data-dir", empty]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /no platform database at .*platform\.db/);
  });
});
