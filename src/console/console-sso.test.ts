import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright-core";
import { launchChromium, newConsoleContext } from "../testing/browser.js";
import { TestIdentityProvider } from "../testing/oidc-test-provider.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";
import { SESSION_COOKIE } from "./sessions.js";

// The whole browser path a person takes: the console's "Sign in with SSO", the identity provider's
// form, and back into a console session (the server's own ending of a browser sign-in, not a test's).
describe("web console sign-in with SSO in Chromium", { timeout: 240_000 }, () => {
  let idp: TestIdentityProvider;
  let server: TestServer;
  let browser: Browser;

  before(async () => {
    idp = await TestIdentityProvider.start();
    idp.accounts.set("dana-sub", { preferred_username: "dana", groups: ["platform-users"] });
    idp.accounts.set("eve-sub", { preferred_username: "eve", groups: ["outsiders"] });
    server = await startTestServer({ oidc: idp.platformConfig("console-client-secret") });
    idp.trustPlatform(server.url, "console-client-secret");
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    await idp?.close();
  });

  /** `account` is the identity provider's account id (its login form takes it; any password). */
  async function signInWithSso(account: string) {
    const context = await newConsoleContext(browser);
    context.setDefaultTimeout(120_000);
    context.setDefaultNavigationTimeout(120_000);
    const page = await context.newPage();
    await page.goto(`${server.url}/console/`);
    await page.getByRole("link", { name: "Sign in with SSO" }).click();
    await page.fill('input[name="login"]', account);
    await page.fill('input[name="password"]', "any");
    const [callback] = await Promise.all([
      page.waitForResponse((r) => r.url().startsWith(`${server.url}/auth/oidc/callback`)),
      page.click('button[type="submit"]'),
    ]);
    await page.waitForLoadState();
    return { context, page, callback };
  }

  it("ends in a console session for the signed-in user, without a key in the URL", async () => {
    const { context, page, callback } = await signInWithSso("dana-sub");
    try {
      assert.equal(callback.status(), 303);
      await page.getByText("Signed in as").waitFor();
      assert.match((await page.textContent("body")) ?? "", /dana/);
      assert.equal(new URL(page.url()).pathname, "/console/");
      assert.doesNotMatch(page.url(), /key=|code=/, "the landing URL carries no credential");
      const cookie = (await context.cookies(server.url)).find((c) => c.name === SESSION_COOKIE);
      assert.ok(cookie, "a console session cookie was set");
      assert.equal(cookie.httpOnly, true);
      assert.equal(cookie.secure, true);
      // The user exists now, created by the sign-in.
      assert.equal((await server.request("GET", `${GROUP_PATH}/users/dana`)).status, 200);
    } finally {
      await context.close();
    }
  });

  it("a person outside the allowed groups gets no session", async () => {
    const { context, page, callback } = await signInWithSso("eve-sub");
    try {
      assert.equal(callback.status(), 403);
      const cookie = (await context.cookies(server.url)).find((c) => c.name === SESSION_COOKIE);
      assert.equal(cookie, undefined);
      await page.goto(`${server.url}/console/`);
      await page.getByRole("link", { name: "Sign in with SSO" }).waitFor();
      assert.equal((await server.request("GET", `${GROUP_PATH}/users/eve`)).status, 404);
    } finally {
      await context.close();
    }
  });
});
