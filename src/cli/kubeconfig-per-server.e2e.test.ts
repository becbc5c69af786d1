import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { parse, stringify } from "yaml";
import { type CliRun, runCli } from "../testing/cli-run.js";
import { startTestServer, type TestServer } from "../testing/test-server.js";

interface Named {
  name: string;
  // biome-ignore lint/suspicious/noExplicitAny: kubeconfig entries read field by field
  [k: string]: any;
}

const entry = (list: Named[], name: string) => list.find((e) => e.name === name);
const tagOf = (server: TestServer) => new URL(server.url).host;

/** kubectl with the kubeconfig of `home`, as a user would run it. */
async function kubectl(home: string, args: string[]): Promise<{ code: number; out: string; err: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)("/usr/bin/kubectl", args, {
      env: { PATH: process.env.PATH ?? "", HOME: home, KUBECONFIG: join(home, "kubeconfig") },
    });
    return { code: 0, out: stdout, err: stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === "number" ? e.code : 1, out: e.stdout ?? "", err: e.stderr ?? "" };
  }
}

function assertRefused(r: CliRun, message: RegExp): void {
  assert.equal(r.code, 1, `exit code; stderr: ${r.stderr}`);
  assert.match(r.stderr, message);
  assert.doesNotMatch(r.stderr, /\n\s+at /, "no stack trace");
}

/**
 * Two real servers: the kubeconfig entries the server and the CLI write are named per server, an
 * entry of another server is never overwritten, and no credential goes under another server's name.
 */
describe("kubeconfig entries per server", () => {
  let a: TestServer;
  let b: TestServer;
  const homes: string[] = [];
  const newHome = () => {
    const h = mkdtempSync(join(tmpdir(), "platform-kc-servers-"));
    homes.push(h);
    return h;
  };
  /** A home whose kubeconfig is server A's admin.kubeconfig, logged in to B as an insecure test login. */
  const homeWithAdminOfAAndLoginToB = async () => {
    const h = newHome();
    copyFileSync(join(a.dataDir, "admin.kubeconfig"), join(h, "kubeconfig"));
    const login = await runCli(h, ["login", b.url, "--access-key", b.adminKey, "--insecure-skip-tls-verify"]);
    assert.equal(login.code, 0, login.stderr);
    return h;
  };

  before(async () => {
    [a, b] = await Promise.all([startTestServer(), startTestServer()]);
  });
  after(async () => {
    await Promise.all([a.stop(), b.stop()]);
    for (const h of homes) rmSync(h, { recursive: true, force: true });
  });

  it("each server's admin.kubeconfig names its entries after the server, so two merge without sharing one", async () => {
    const h = newHome();
    const files = [a, b].map((s) => join(s.dataDir, "admin.kubeconfig"));
    for (const [i, s] of [a, b].entries()) {
      const doc = parse(readFileSync(files[i]!, "utf8"));
      const name = `platform-admin@${tagOf(s)}`;
      assert.equal(doc["current-context"], name);
      assert.deepEqual(doc.contexts, [{ name, context: { cluster: name, user: name } }]);
      assert.equal(doc.clusters[0].name, name);
      assert.equal(doc.users[0].name, name);
    }
    // kubectl merges both files; each context still reaches its own server with its own key.
    const merged = await promisify(execFile)("/usr/bin/kubectl", ["config", "view", "--flatten", "--raw"], {
      env: { PATH: process.env.PATH ?? "", HOME: h, KUBECONFIG: files.join(":") },
    });
    writeFileSync(join(h, "kubeconfig"), merged.stdout, { mode: 0o600 });
    for (const s of [a, b]) {
      const r = await kubectl(h, ["--context", `platform-admin@${tagOf(s)}`, "get", "users", "-o", "name"]);
      assert.equal(r.code, 0, r.err);
      assert.match(r.out, /^user\.management\.platform\/admin$/m);
    }
    const doc = parse(merged.stdout);
    assert.equal(doc.clusters.length, 2);
    assert.equal(doc.users.length, 2);
  });

  it("use management next to another server's admin context leaves that context pointing at its server", async () => {
    const h = await homeWithAdminOfAAndLoginToB();
    const before = parse(readFileSync(join(h, "kubeconfig"), "utf8"));
    const r = await runCli(h, ["use", "management"]);
    assert.equal(r.code, 0, r.stderr);
    const doc = parse(readFileSync(join(h, "kubeconfig"), "utf8"));
    const adminOfA = `platform-admin@${tagOf(a)}`;
    assert.deepEqual(entry(doc.clusters, adminOfA), entry(before.clusters, adminOfA), "A's cluster untouched");
    assert.deepEqual(entry(doc.users, adminOfA), entry(before.users, adminOfA), "A's admin key untouched");
    const mine = `platform@${tagOf(b)}`;
    assert.equal(doc["current-context"], mine);
    assert.deepEqual(entry(doc.contexts, mine)?.context, { cluster: mine, user: mine });
    assert.equal(entry(doc.clusters, mine)?.cluster.server, `${b.url}/kubernetes/management`);
    // A's admin context still reaches A (its admin key never went to B, nor without A's CA).
    const viaA = await kubectl(h, ["--context", adminOfA, "get", "--raw", "/kubernetes/management/version"]);
    assert.equal(viaA.code, 0, viaA.err);
    assert.equal(entry(doc.clusters, adminOfA)?.cluster["insecure-skip-tls-verify"], undefined);
    // Running it again rewrites its own entries (same server, same TLS settings).
    assert.equal((await runCli(h, ["use", "management"])).code, 0);
  });

  it("refuses to overwrite an entry of that name that points at another server, and leaves the file as it was", async () => {
    const h = await homeWithAdminOfAAndLoginToB();
    const file = join(h, "kubeconfig");
    const adminOfA = `platform-admin@${tagOf(a)}`;
    const original = readFileSync(file, "utf8");
    for (const args of [
      ["use", "management", "--context-name", adminOfA],
      ["use", "management", "--context-name", adminOfA, "--inline-key"],
    ]) {
      const r = await runCli(h, args);
      assertRefused(
        r,
        new RegExp(`cluster "${adminOfA.replace(/\./g, "\\.")}" points at ${a.url.replace(/\./g, "\\.")}`),
      );
      assert.match(r.stderr, /--context-name/);
      assert.equal(readFileSync(file, "utf8"), original, "nothing written");
    }
  });

  it("never writes credentials under a user entry that another server's context uses", async () => {
    const h = await homeWithAdminOfAAndLoginToB();
    const file = join(h, "kubeconfig");
    // A hand-made context reusing A's cluster with a user "ci": that user is bound to A.
    const doc = parse(readFileSync(file, "utf8"));
    doc.users.push({ name: "ci", user: { token: "a-token-for-server-a" } });
    doc.contexts.push({ name: "a-ci", context: { cluster: `platform-admin@${tagOf(a)}`, user: "ci" } });
    writeFileSync(file, stringify(doc), { mode: 0o600 });
    const original = readFileSync(file, "utf8");
    const r = await runCli(h, ["use", "management", "--context-name", "ci", "--inline-key"]);
    assertRefused(r, /user "ci" \(used by context "a-ci"\) points at/);
    assert.equal(readFileSync(file, "utf8"), original, "B's key is not in the file");
    // A context "a-ci" is A's: overwriting it for B is refused as well.
    assertRefused(await runCli(h, ["use", "management", "--context-name", "a-ci"]), /context "a-ci" points at/);
  });

  it("a context for one server never gets the key of a later login to another (platform token --server)", async () => {
    const h = await homeWithAdminOfAAndLoginToB();
    assert.equal((await runCli(h, ["use", "management"])).code, 0);
    const exec = entry(parse(readFileSync(join(h, "kubeconfig"), "utf8")).users, `platform@${tagOf(b)}`)?.user.exec;
    assert.deepEqual(exec.args, ["token", "--server", b.url]);
    const forB = await runCli(h, ["token", "--server", b.url]);
    assert.equal(forB.code, 0, forB.stderr);
    const keyOfB = JSON.parse(forB.stdout).status.token as string;
    // Log in to A with the same CLI config: B's context must not receive A's key.
    const caFile = join(a.dataDir, "ca.crt");
    const relogin = await runCli(h, ["login", a.url, "--access-key", a.adminKey, "--certificate-authority", caFile]);
    assert.equal(relogin.code, 0, relogin.stderr);
    const refused = await runCli(h, ["token", "--server", b.url]);
    assertRefused(refused, new RegExp(`the stored login is for ${a.url.replace(/\./g, "\\.")}, not `));
    assert.equal(refused.stdout, "", "no key printed");
    const viaB = await kubectl(h, ["--context", `platform@${tagOf(b)}`, "get", "users"]);
    assert.notEqual(viaB.code, 0);
    assert.ok(!viaB.err.includes(keyOfB));
  });
});
