import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { decodeJwt, generateKeyPair } from "jose";
import type { Browser, Page } from "playwright-core";
import { launchChromium } from "../testing/browser.js";
import { TestIdentityProvider } from "../testing/oidc-test-provider.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";
import { defaultFinish } from "./browser-login.js";
import { ISSUER_ANNOTATION, SUBJECT_ANNOTATION } from "./user-sync.js";

const SELF = { apiVersion: "management.platform/v1", kind: "Self", metadata: {} };
const BIN = join(process.cwd(), "bin", "platform.js");

describe("sign-in with an OpenID Connect identity provider", () => {
  let idp: TestIdentityProvider;
  let server: TestServer;
  let browser: Browser;
  /** Keys the browser flow ended with (the injected final step records them). */
  const finished: Array<{ key: string; name: string; user: string }> = [];

  before(async () => {
    idp = await TestIdentityProvider.start();
    idp.accounts.set("alice-sub", {
      preferred_username: "alice",
      email: "alice@example.com",
      email_verified: true,
      name: "Alice Example",
      groups: ["developers", "platform-users"],
    });
    idp.accounts.set("mallory-sub", { preferred_username: "mallory", groups: ["outsiders"] });
    idp.accounts.set("bob-sub", { preferred_username: "bob", groups: ["platform-users", "ops"] });
    idp.accounts.set("carol-sub", { preferred_username: "carol", groups: ["platform-users"] });
    server = await startTestServer({
      oidc: idp.platformConfig("test-client-secret"),
      finishBrowserLogin: (reply, key, info) => {
        finished.push({ key, name: info.accessKeyName, user: info.user });
        return defaultFinish(reply, key, info);
      },
    });
    idp.trustPlatform(server.url, "test-client-secret");
    const team = await server.request("POST", `${GROUP_PATH}/teams`, {
      body: {
        apiVersion: "management.platform/v1",
        kind: "Team",
        metadata: { name: "devs" },
        spec: { groups: ["developers"] },
      },
    });
    assert.equal(team.status, 201, team.text);
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
    await idp?.close();
  });

  /** A browser context trusting the test CAs; generous timeouts for a loaded shared machine (not asserted). */
  async function newContext() {
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    context.setDefaultTimeout(120_000);
    context.setDefaultNavigationTimeout(120_000);
    return context;
  }

  /** A sign-in in a fresh browser (no IdP session): the IdP's login form, then the platform's answer. */
  async function signIn(account: string, startUrl = `${server.url}/auth/oidc/login`) {
    const context = await newContext();
    const page = await context.newPage();
    try {
      const result = await signInOn(page, account, startUrl);
      return result;
    } finally {
      await context.close();
    }
  }

  async function signInOn(page: Page, account: string, startUrl: string) {
    await page.goto(startUrl);
    await page.fill('input[name="login"]', account);
    await page.fill('input[name="password"]', "any");
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().startsWith(`${server.url}/auth/oidc/callback`)),
      page.click('button[type="submit"]'),
    ]);
    await page.waitForLoadState();
    return {
      status: response.status(),
      callbackUrl: response.url(),
      headers: response.headers(),
      text: (await page.textContent("body")) ?? "",
      page,
    };
  }

  async function self(key: string) {
    return server.request("POST", `${GROUP_PATH}/selves`, { body: SELF, token: key });
  }

  it("says whether SSO is configured", async () => {
    const res = await server.request("GET", "/auth/oidc/config", { token: null });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, { enabled: true, issuer: idp.issuer, loginPath: "/auth/oidc/login" });
  });

  it("first sign-in creates the user and a Login key; the user is in the team of its group", async () => {
    const result = await signIn("alice-sub");
    assert.equal(result.status, 200, result.text);
    assert.match(result.text, /signed in as alice/);
    assert.match(result.headers["content-security-policy"] ?? "", /default-src 'none'/);
    const user = await server.request("GET", `${GROUP_PATH}/users/alice`);
    assert.equal(user.status, 200);
    assert.equal(user.json.metadata.annotations[ISSUER_ANNOTATION], idp.issuer);
    assert.equal(user.json.metadata.annotations[SUBJECT_ANNOTATION], "alice-sub");
    assert.deepEqual(user.json.spec.groups, ["developers", "platform-users"]);
    assert.equal(user.json.spec.email, "alice@example.com");
    assert.equal(user.json.spec.displayName, "Alice Example");

    const done = finished.at(-1)!;
    assert.equal(done.user, "alice");
    const key = await server.request("GET", `${GROUP_PATH}/ownedaccesskeys/${done.name}`);
    assert.equal(key.status, 200);
    assert.equal(key.json.spec.type, "Login");
    assert.equal(key.json.spec.user, "alice");
    assert.equal(key.json.spec.ttl, 3600);
    assert.equal(key.json.spec.key, undefined);
    const { identityRefresh, ...identity } = key.json.spec.identity;
    assert.ok(identityRefresh);
    assert.deepEqual(identity, {
      userId: "alice-sub",
      username: "alice",
      preferredUsername: "alice",
      email: "alice@example.com",
      emailVerified: true,
      groups: ["developers", "platform-users"],
      connector: "oidc",
    });
    // The refresh token is stored, encrypted, and never shown.
    const stored = await server.storage.get(server.registry.store("ownedaccesskeys").key(undefined, done.name));
    const raw = JSON.parse(stored!.value.toString("utf8"));
    assert.match(raw.spec.identity.connectorData, /^enc:v1:/);
    const list = await server.request(
      "GET",
      `${GROUP_PATH}/ownedaccesskeys?labelSelector=management.platform/connector%3Doidc`,
    );
    assert.ok(list.json.items.length >= 1);
    for (const item of list.json.items) assert.equal(item.spec.identity.connectorData, undefined);

    const me = await self(done.key);
    assert.equal(me.status, 201, me.text);
    assert.equal(me.json.status.user, "alice");
    assert.ok(me.json.status.teams.includes("devs"), JSON.stringify(me.json.status));
  });

  it("a group removed at the IdP removes the team membership after a refresh and after the next sign-in", async () => {
    const first = finished.findLast((f) => f.user === "alice")!;
    idp.accounts.get("alice-sub")!.groups = ["platform-users"];
    const outcomes = await server.sso!.refresher.refreshDue(true);
    assert.equal(outcomes.get(first.name), "refreshed");
    const me = await self(first.key);
    assert.equal(me.status, 201);
    assert.deepEqual(me.json.status.teams ?? [], []);
    const key = await server.request("GET", `${GROUP_PATH}/ownedaccesskeys/${first.name}`);
    assert.deepEqual(key.json.spec.identity.groups, ["platform-users"]);

    idp.accounts.get("alice-sub")!.groups = ["developers", "platform-users"];
    assert.equal((await signIn("alice-sub")).status, 200);
    assert.ok((await self(first.key)).json.status.teams.includes("devs"));
    idp.accounts.get("alice-sub")!.groups = ["platform-users"];
    assert.equal((await signIn("alice-sub")).status, 200);
    const user = await server.request("GET", `${GROUP_PATH}/users/alice`);
    assert.deepEqual(user.json.spec.groups, ["platform-users"]);
    assert.deepEqual((await self(finished.at(-1)!.key)).json.status.teams ?? [], []);
  });

  it("a refresh the IdP refuses disables the key", async () => {
    idp.accounts.set("dave-sub", { preferred_username: "dave", groups: ["platform-users"] });
    assert.equal((await signIn("dave-sub")).status, 200);
    const dave = finished.at(-1)!;
    assert.equal((await self(dave.key)).status, 201);
    idp.accounts.delete("dave-sub"); // the IdP no longer knows the account: invalid_grant
    const outcomes = await server.sso!.refresher.refreshDue(true);
    assert.equal(outcomes.get(dave.name), "disabled");
    const key = await server.request("GET", `${GROUP_PATH}/ownedaccesskeys/${dave.name}`);
    assert.equal(key.json.spec.disabled, true);
    assert.equal((await self(dave.key)).status, 401);
  });

  it("a person outside --oidc-allowed-groups gets a 403 page and no user", async () => {
    const result = await signIn("mallory-sub");
    assert.equal(result.status, 403);
    assert.match(result.text, /not in a group allowed/);
    assert.equal((await server.request("GET", `${GROUP_PATH}/users/mallory`)).status, 404);
  });

  it("a user created by hand is refused until an admin links it", async () => {
    const created = await server.request("POST", `${GROUP_PATH}/users`, {
      body: { apiVersion: "management.platform/v1", kind: "User", metadata: { name: "bob" }, spec: { groups: ["x"] } },
    });
    assert.equal(created.status, 201);
    const refused = await signIn("bob-sub");
    assert.equal(refused.status, 403);
    assert.match(refused.text, /was not created by sign-in/);
    const linked = await server.request("PATCH", `${GROUP_PATH}/users/bob`, {
      contentType: "application/merge-patch+json",
      body: { metadata: { annotations: { [ISSUER_ANNOTATION]: idp.issuer, [SUBJECT_ANNOTATION]: "bob-sub" } } },
    });
    assert.equal(linked.status, 200, linked.text);
    const ok = await signIn("bob-sub");
    assert.equal(ok.status, 200, ok.text);
    const user = await server.request("GET", `${GROUP_PATH}/users/bob`);
    assert.deepEqual(user.json.spec.groups, ["ops", "platform-users"]);
  });

  it("a disabled user cannot sign in", async () => {
    const patched = await server.request("PATCH", `${GROUP_PATH}/users/alice`, {
      contentType: "application/merge-patch+json",
      body: { spec: { disabled: true } },
    });
    assert.equal(patched.status, 200);
    const refused = await signIn("alice-sub");
    assert.equal(refused.status, 403);
    assert.match(refused.text, /disabled/);
    await server.request("PATCH", `${GROUP_PATH}/users/alice`, {
      contentType: "application/merge-patch+json",
      body: { spec: { disabled: false } },
    });
  });

  it("a replayed state is refused with 400", async () => {
    const context = await newContext();
    try {
      const page = await context.newPage();
      const first = await signInOn(page, "carol-sub", `${server.url}/auth/oidc/login`);
      assert.equal(first.status, 200);
      const replay = await page.goto(first.callbackUrl);
      assert.equal(replay?.status(), 400);
      assert.match((await page.textContent("body")) ?? "", /unknown, expired or was already used/);
    } finally {
      await context.close();
    }
  });

  it("a callback without the browser's state cookie is refused with 400", async () => {
    const res = await server.request("GET", "/auth/oidc/callback?state=made-up&code=x", { token: null });
    assert.equal(res.status, 400);
    assert.match(res.text, /state is unknown/);
  });

  describe("ID tokens that fail a check are refused with 400", () => {
    after(() => {
      idp.tamper = undefined;
    });

    async function refusedWith(tamper: (claims: Record<string, unknown>, token: string) => Promise<string>) {
      idp.tamper = async (body) => {
        const token = String(body.id_token);
        return { ...body, id_token: await tamper(decodeJwt(token) as Record<string, unknown>, token) };
      };
      const result = await signIn("carol-sub");
      idp.tamper = undefined;
      assert.equal(result.status, 400, result.text);
      return result.text;
    }

    it("a tampered ID token (payload changed, signature kept)", async () => {
      const text = await refusedWith(async (claims, token) => {
        const [header, , signature] = token.split(".");
        const payload = Buffer.from(JSON.stringify({ ...claims, groups: ["admins"] })).toString("base64url");
        return `${header}.${payload}.${signature}`;
      });
      assert.match(text, /signature/i);
    });

    it("an ID token signed by a foreign key", async () => {
      const { privateKey } = await generateKeyPair("RS256");
      const text = await refusedWith((claims) => idp.sign(claims, privateKey));
      assert.match(text, /signature/i);
    });

    it("a wrong audience", async () => {
      const text = await refusedWith((claims) => idp.sign({ ...claims, aud: "another-client" }));
      assert.match(text, /aud/);
    });

    it("an expired ID token", async () => {
      const past = Math.floor(Date.now() / 1000) - 3600;
      const text = await refusedWith((claims) => idp.sign({ ...claims, iat: past - 60, exp: past }));
      assert.match(text, /exp/);
    });

    it("a wrong nonce", async () => {
      const text = await refusedWith((claims) => idp.sign({ ...claims, nonce: "not-the-nonce" }));
      assert.match(text, /nonce/);
    });

    it("a wrong issuer", async () => {
      const text = await refusedWith((claims) => idp.sign({ ...claims, iss: "https://evil.example.com" }));
      assert.match(text, /iss/);
    });
  });

  it("logout deletes the Login key", async () => {
    assert.equal((await signIn("carol-sub")).status, 200);
    const carol = finished.at(-1)!;
    const out = await server.request("POST", "/auth/oidc/logout", { token: carol.key });
    assert.equal(out.status, 200, out.text);
    assert.equal((await server.request("GET", `${GROUP_PATH}/ownedaccesskeys/${carol.name}`)).status, 404);
    assert.equal((await self(carol.key)).status, 401);
    // The admin's (non-Login) key is not signed out this way.
    assert.equal((await server.request("POST", "/auth/oidc/logout")).status, 400);
  });

  it("platform login --sso: loopback redirect, one-time code exchanged for the key", async () => {
    const home = mkdtempSync(join(tmpdir(), "platform-sso-cli-"));
    const configFile = join(home, "config.json");
    try {
      const cli = spawn(
        process.execPath,
        [BIN, "login", server.url, "--sso", "--no-browser", "--insecure-skip-tls-verify"],
        { env: { ...process.env, PLATFORM_CONFIG: configFile, NO_COLOR: "1" }, stdio: ["ignore", "pipe", "pipe"] },
      );
      let stderr = "";
      let stdout = "";
      cli.stdout.on("data", (c: Buffer) => {
        stdout += c.toString();
      });
      const exited = new Promise<number | null>((resolve) => cli.on("close", resolve));
      const url = await new Promise<string>((resolve, reject) => {
        cli.stderr.on("data", (c: Buffer) => {
          stderr += c.toString();
          const m = /Sign in in your browser: (\S+)/.exec(stderr);
          if (m) resolve(m[1]!);
        });
        cli.on("close", () => reject(new Error(`CLI ended before printing the URL: ${stderr}`)));
      });
      assert.match(url, /cli_port=\d+&cli_challenge=[\w-]{43}&cli_state=/);
      const context = await newContext();
      let loopbackUrl = "";
      try {
        const page = await context.newPage();
        await page.goto(url);
        await page.fill('input[name="login"]', "carol-sub");
        await page.fill('input[name="password"]', "any");
        const [loopback] = await Promise.all([
          page.waitForResponse((r) => r.url().startsWith("http://127.0.0.1:") && r.url().includes("/callback")),
          page.click('button[type="submit"]'),
        ]);
        assert.equal(loopback.status(), 200);
        loopbackUrl = loopback.url();
        assert.match(loopbackUrl, /^http:\/\/127\.0\.0\.1:\d+\/callback\?code=[\w-]+&state=[\w-]+$/);
      } finally {
        await context.close();
      }
      assert.equal(await exited, 0, stderr);
      assert.match(stdout, /Logged in to .* as user carol/);
      const stored = JSON.parse(readFileSync(configFile, "utf8"));
      assert.equal(stored.login.createdByLogin, true);
      // The key never appears in a URL (only the one-time code does) nor in the CLI's output.
      assert.ok(!loopbackUrl.includes(stored.login.accessKey));
      assert.ok(!stderr.includes(stored.login.accessKey) && !stdout.includes(stored.login.accessKey));
      const me = await self(stored.login.accessKey);
      assert.equal(me.status, 201);
      assert.equal(me.json.status.user, "carol");
      assert.equal(me.json.status.accessKeyType, "Login");
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it("a one-time code is refused with a wrong verifier", async () => {
    const res = await server.request("POST", "/auth/oidc/token", {
      token: null,
      body: { code: "not-a-code", verifier: "x".repeat(43) },
    });
    assert.equal(res.status, 400);
    assert.equal(res.json.kind, "Status");
  });
});

describe("sign-in when the identity provider cannot be reached", () => {
  it("the login page says so and the API keeps serving keys", async () => {
    const server = await startTestServer({
      oidc: {
        issuerUrl: "https://127.0.0.1:9/",
        clientId: "platform",
        usernameClaim: "preferred_username",
        groupsClaim: "groups",
        scopes: ["openid"],
        allowedGroups: [],
        loginKeyTtlSeconds: 3600,
        refreshIntervalSeconds: 3600,
      },
    });
    try {
      const page = await server.request("GET", "/auth/oidc/login", { token: null });
      assert.equal(page.status, 503);
      assert.match(page.text, /cannot be reached/);
      assert.match(page.text, /Access keys keep working/);
      assert.equal(page.headers["content-type"], "text/html; charset=utf-8");
      assert.equal((await server.request("GET", `${GROUP_PATH}/users`)).status, 200);
    } finally {
      await server.stop();
    }
  });

  it("without --oidc-issuer-url, SSO is off", async () => {
    const server = await startTestServer();
    try {
      assert.deepEqual((await server.request("GET", "/auth/oidc/config", { token: null })).json, { enabled: false });
      assert.equal((await server.request("GET", "/auth/oidc/login", { token: null })).status, 404);
    } finally {
      await server.stop();
    }
  });
});
