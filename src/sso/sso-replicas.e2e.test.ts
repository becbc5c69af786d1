/**
 * Single sign-on with two replicas on one etcd (as behind a load balancer, or `--workers`): a
 * sign-in begun on one replica is finished by the other, once only, not after it expired, and
 * nothing of it can be read back. Replica A sends the IdP the callback URL of replica B, so the
 * browser comes back to B as a load balancer might send it.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { BACKUP_PATH } from "../backup/backup-route.js";
import { generateEncryptionKeySecret } from "../crypto/secret-box.js";
import { entryId } from "../registry/sealed-entries.js";
import { launchChromium } from "../testing/browser.js";
import { EtcdCluster } from "../testing/etcd-cluster.js";
import { TestIdentityProvider } from "../testing/oidc-test-provider.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";
import { defaultFinish, type FinishBrowserLogin } from "./browser-login.js";
import { CODE_SPACE, SIGN_IN_SPACE } from "./pending.js";

const BOOTSTRAP_KEY = "sso-replica-test-admin-key-0123456789abcdefgh";
const SECRET = "replica-client-secret";
const SELF = { apiVersion: "management.platform/v1", kind: "Self", metadata: {} };
const BIN = join(process.cwd(), "bin", "platform.js");
const SIGN_INS = `/platform-internal/${SIGN_IN_SPACE}/`;

describe("sign-in across two replicas on one etcd", { timeout: 240_000 }, () => {
  let etcd: EtcdCluster;
  let idp: TestIdentityProvider;
  /** Where sign-ins begin. */
  let a: TestServer;
  /** Where the IdP sends the browser back. */
  let b: TestServer;
  let browser: Browser;
  const dir = mkdtempSync(join(tmpdir(), "platform-sso-replicas-"));
  const finished: Array<{ replica: string; key: string; user: string }> = [];

  before(async () => {
    etcd = await EtcdCluster.start(1);
    idp = await TestIdentityProvider.start();
    idp.accounts.set("carol-sub", { preferred_username: "carol", groups: ["platform-users"] });
    // Replicas share the encryption keys, as they must to read each other's secrets.
    const encryptionKeyFile = join(dir, "encryption-keys.json");
    const keys = { keys: [{ name: "shared", secret: generateEncryptionKeySecret() }] };
    writeFileSync(encryptionKeyFile, JSON.stringify(keys), { mode: 0o600 });
    const common = { storage: etcd.url, bootstrapKey: BOOTSTRAP_KEY, encryptionKeyFile };
    const finishOn = (replica: string): { finishBrowserLogin: FinishBrowserLogin } => ({
      finishBrowserLogin: (reply, key, info) => {
        finished.push({ replica, key, user: info.user });
        return defaultFinish(reply, key, info);
      },
    });
    b = await startTestServer({ ...common, oidc: idp.platformConfig(SECRET), ...finishOn("b") });
    a = await startTestServer({
      ...common,
      oidc: { ...idp.platformConfig(SECRET), redirectBaseUrl: b.url },
      ...finishOn("a"),
    });
    idp.trustPlatform(b.url, SECRET);
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await a?.stop();
    await b?.stop();
    await idp?.close();
    await etcd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function newContext(): Promise<BrowserContext> {
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    context.setDefaultTimeout(120_000);
    context.setDefaultNavigationTimeout(120_000);
    return context;
  }

  /** Opens the sign-in on A: returns the state A gave the IdP (from A's redirect), the page on the IdP's form. */
  async function beginOnA(page: Page, startUrl = `${a.url}/auth/oidc/login`): Promise<string> {
    const [redirect] = await Promise.all([
      page.waitForResponse((r) => r.url().startsWith(`${a.url}/auth/oidc/login`)),
      page.goto(startUrl),
    ]);
    assert.equal(redirect.status(), 302);
    return new URL(redirect.headers().location ?? "").searchParams.get("state") ?? "";
  }

  /** Fills the IdP's form; returns B's answer to the callback. */
  async function answerIdp(page: Page, account: string) {
    await page.fill('input[name="login"]', account);
    await page.fill('input[name="password"]', "any");
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().startsWith(`${b.url}/auth/oidc/callback`)),
      page.click('button[type="submit"]'),
    ]);
    await page.waitForLoadState();
    return { status: response.status(), url: response.url(), text: (await page.textContent("body")) ?? "" };
  }

  it("begun on A, finished by B; the key works on A; a replayed callback fails on both", async () => {
    const context = await newContext();
    try {
      const page = await context.newPage();
      await beginOnA(page);
      const done = await answerIdp(page, "carol-sub");
      assert.equal(done.status, 200, done.text);
      assert.match(done.text, /signed in as carol/);
      assert.deepEqual(
        finished.map((f) => [f.replica, f.user]),
        [["b", "carol"]],
      );
      const me = await a.request("POST", `${GROUP_PATH}/selves`, { body: SELF, token: finished[0]!.key });
      assert.equal(me.status, 201, me.text);
      assert.equal(me.json.status.user, "carol");

      for (const replay of [done.url, done.url.replace(b.url, a.url)]) {
        const again = await page.goto(replay);
        assert.equal(again?.status(), 400, replay);
        assert.match((await page.textContent("body")) ?? "", /unknown, expired or was already used/);
      }
      assert.equal(finished.length, 1);
      assert.deepEqual((await a.storage.list(SIGN_INS)).items, []);
    } finally {
      await context.close();
    }
  });

  it("a sign-in in progress is stored hashed and encrypted, and no API or backup shows it", async () => {
    const begun = await a.request("GET", "/auth/oidc/login", { token: null });
    assert.equal(begun.status, 302, begun.text);
    const params = new URL(String(begun.headers.location)).searchParams;
    const secrets = [params.get("state")!, params.get("nonce")!];
    assert.ok(secrets.every((s) => s.length >= 32));

    const stored = (await b.storage.list(SIGN_INS)).items;
    assert.deepEqual(
      stored.map((kv) => kv.key),
      [`${SIGN_INS}${entryId(secrets[0]!)}`],
    );
    const raw = stored[0]!.value.toString("utf8");
    assert.match(raw, /^\{"expiresAt":\d+,"sealed":"enc:v1:shared:[^"]+"\}$/);
    for (const s of secrets) assert.ok(!raw.includes(s));

    // Not even an admin: the backup leaves the key space out, and no path serves it.
    const backup = await a.request("GET", BACKUP_PATH);
    assert.equal(backup.status, 200);
    assert.ok(backup.text.includes('"end":true'));
    for (const s of [...secrets, entryId(secrets[0]!), SIGN_IN_SPACE, CODE_SPACE]) assert.ok(!backup.text.includes(s));
    for (const path of [stored[0]!.key, `/kubernetes/management${stored[0]!.key}`]) {
      const res = await a.request("GET", path);
      assert.equal(res.status, 404, path);
      for (const s of secrets) assert.ok(!res.text.includes(s));
    }

    // Never answered: the elected replica's sweep removes it once expired (not before).
    const sweeper = (a.sso ?? b.sso)!.sweeper;
    assert.equal(await sweeper.sweep(), 0);
    assert.equal(await sweeper.sweep(Date.now() + 11 * 60 * 1000), 1);
    assert.deepEqual((await a.storage.list(SIGN_INS)).items, []);
  });

  it("an expired sign-in is refused by the other replica, and used up", async () => {
    const context = await newContext();
    try {
      const page = await context.newPage();
      const state = await beginOnA(page);
      const key = `${SIGN_INS}${entryId(state)}`;
      // Time passes for this sign-in: its stored expiry (the only clock it is checked against) is now past.
      const kv = (await b.storage.get(key))!;
      const entry = JSON.parse(kv.value.toString("utf8"));
      await b.storage.update(key, Buffer.from(JSON.stringify({ ...entry, expiresAt: Date.now() - 1 })), kv.modRevision);
      const late = await answerIdp(page, "carol-sub");
      assert.equal(late.status, 400, late.text);
      assert.match(late.text, /unknown, expired or was already used/);
      assert.equal(await a.storage.get(key), undefined);
      assert.equal(finished.length, 1);
    } finally {
      await context.close();
    }
  });

  it("platform login --sso against A: the callback on B, the one-time code redeemed on A", async () => {
    const home = mkdtempSync(join(tmpdir(), "platform-sso-replicas-cli-"));
    const configFile = join(home, "config.json");
    const cli = spawn(process.execPath, [BIN, "login", a.url, "--sso", "--no-browser", "--insecure-skip-tls-verify"], {
      env: { ...process.env, PLATFORM_CONFIG: configFile, NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const context = await newContext();
    try {
      let output = "";
      const exited = new Promise<number | null>((resolve) => cli.on("close", resolve));
      const url = await new Promise<string>((resolve, reject) => {
        const read = (c: Buffer) => {
          output += c.toString();
          const m = /Sign in in your browser: (\S+)/.exec(output);
          if (m) resolve(m[1]!);
        };
        cli.stdout.on("data", read);
        cli.stderr.on("data", read);
        cli.on("close", () => reject(new Error(`CLI ended before printing the URL: ${output}`)));
      });
      const page = await context.newPage();
      await beginOnA(page, url);
      await page.fill('input[name="login"]', "carol-sub");
      await page.fill('input[name="password"]', "any");
      const [callback, loopback] = await Promise.all([
        page.waitForResponse((r) => r.url().startsWith(`${b.url}/auth/oidc/callback`)),
        page.waitForResponse((r) => r.url().startsWith("http://127.0.0.1:") && r.url().includes("/callback?code=")),
        page.click('button[type="submit"]'),
      ]);
      assert.equal(callback.status(), 302);
      assert.equal(loopback.status(), 200);
      assert.equal(await exited, 0, output);
      assert.match(output, /Logged in to .* as user carol/);
      const stored = JSON.parse(readFileSync(configFile, "utf8"));
      const me = await b.request("POST", `${GROUP_PATH}/selves`, { body: SELF, token: stored.login.accessKey });
      assert.equal(me.status, 201, me.text);
      assert.equal(me.json.status.accessKeyType, "Login");
      // The code was used once, on A; nothing of the sign-in or the code is left.
      const code = new URL(loopback.url()).searchParams.get("code")!;
      const again = await a.request("POST", "/auth/oidc/token", {
        token: null,
        body: { code, verifier: "x".repeat(43) },
      });
      assert.equal(again.status, 400);
      assert.deepEqual((await a.storage.list("/platform-internal/sso-")).items, []);
    } finally {
      await context.close();
      if (cli.exitCode === null) cli.kill("SIGKILL");
      rmSync(home, { recursive: true, force: true });
    }
  });
});
