/**
 * `platform start --workers 2` with single sign-on: the primary hands connections to the workers in
 * turn, so a sign-in begun on one connection and called back on the next is answered by the other
 * worker. Every such sign-in must finish (it did not while sign-ins lived in one process's memory),
 * and the console session it ends in must work, and end, on both workers.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request as httpsRequest } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright-core";
import { launchChromium } from "../testing/browser.js";
import { EtcdCluster } from "../testing/etcd-cluster.js";
import { TestIdentityProvider } from "../testing/oidc-test-provider.js";
import { freePort, type ServerProcess, startServerProcess } from "../testing/server-process.js";

const SECRET = "workers-client-secret";
/** Sign-ins made; each one's callback is the connection after its start, so on the other worker. */
const SIGN_INS = 3;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One unauthenticated GET on a fresh connection (each reaches the next worker). */
function get(server: ServerProcess, path: string, cookie?: string): Promise<Answer> {
  return call(server, "GET", path, cookie ? { cookie } : {});
}

/** One request on a fresh connection. */
function call(server: ServerProcess, method: string, path: string, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const options = { method, agent: false, ca: server.caPem, headers };
    const req = httpsRequest(new URL(path, server.url), options, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => {
        text += c;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

describe("single sign-on with platform start --workers 2", { timeout: 240_000 }, () => {
  let etcd: EtcdCluster;
  let idp: TestIdentityProvider;
  let server: ServerProcess;
  let browser: Browser;
  /**
   * The address browsers use, where the IdP sends them back: nothing listens there, the test
   * takes the browser's request and makes it to the server on a connection of its own.
   */
  let balancer: string;
  /** The console session the last sign-in ended in. */
  let session = "";
  const dir = mkdtempSync(join(tmpdir(), "platform-sso-workers-"));

  before(async () => {
    etcd = await EtcdCluster.start(1);
    idp = await TestIdentityProvider.start();
    idp.accounts.set("carol-sub", { preferred_username: "carol", groups: ["platform-users"] });
    const port = await freePort();
    balancer = `https://127.0.0.1:${await freePort()}`;
    idp.trustPlatform(balancer, SECRET);
    writeFileSync(join(dir, "oidc-secret"), SECRET, { mode: 0o600 });
    writeFileSync(join(dir, "idp-ca.pem"), idp.caPem);
    server = await startServerProcess(
      join(dir, "data"),
      port,
      [
        ["--storage", etcd.url, "--workers", "2", "--oidc-issuer-url", idp.issuer, "--oidc-client-id", "platform"],
        ["--oidc-client-secret-file", join(dir, "oidc-secret"), "--oidc-ca-file", join(dir, "idp-ca.pem")],
        ["--oidc-allowed-groups", "platform-users", "--oidc-redirect-base-url", balancer],
      ].flat(),
    );
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    if (server && server.child.exitCode === null) {
      server.child.kill("SIGTERM");
      await server.exited;
    }
    await idp?.close();
    await etcd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The IdP's part in a browser; returns where the IdP sends the browser back (the "load balancer"). */
  async function atIdp(authorizationUrl: string): Promise<URL> {
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    context.setDefaultTimeout(120_000);
    try {
      const page = await context.newPage();
      await page.goto(authorizationUrl);
      await page.fill('input[name="login"]', "carol-sub");
      await page.fill('input[name="password"]', "any");
      const [back] = await Promise.all([
        page.waitForRequest((r) => r.url().startsWith(`${balancer}/auth/oidc/callback`)),
        page.click('button[type="submit"]'),
      ]);
      return new URL(back.url());
    } finally {
      await context.close();
    }
  }

  it("starts, and a sign-in begun on one worker is finished by the other, once", async () => {
    assert.match(server.output(), /workers: +2 processes/);
    for (let i = 0; i < SIGN_INS; i++) {
      const begun = await get(server, "/auth/oidc/login");
      assert.equal(begun.status, 302, begun.text);
      const cookie = String(begun.headers["set-cookie"]).split(";")[0]!;
      const callback = await atIdp(String(begun.headers.location));
      const path = `${callback.pathname}${callback.search}`;

      const done = await get(server, path, cookie);
      assert.equal(done.status, 303, `sign-in ${i}: ${done.text}`);
      assert.equal(done.headers.location, "/console/");
      assert.match(String(done.headers["set-cookie"]), /__Host-platform-session=/);
      const cookies = [done.headers["set-cookie"] ?? []].flat();
      session = cookies.find((c) => c.startsWith("__Host-platform-session="))?.split(";")[0] ?? "";

      const replay = await get(server, path, cookie);
      assert.equal(replay.status, 400, `replay ${i}: ${replay.text}`);
      assert.match(replay.text, /unknown, expired or was already used/);
    }
  });

  it("the console session works on both workers; signed out on one, it is refused on both", async () => {
    assert.ok(session, "the sign-ins above gave a session");
    const pages = [
      await get(server, "/console/api/session", session),
      await get(server, "/console/api/session", session),
    ];
    for (const page of pages) assert.equal(page.status, 200, page.text);
    const { csrfToken } = JSON.parse(pages[0]!.text) as { csrfToken: string };
    const out = await call(server, "DELETE", "/console/api/session", { cookie: session, "x-csrf-token": csrfToken });
    assert.equal(out.status, 204, out.text);
    // The other worker forgets the session once the store reports the removal (a bounded wait).
    let refused = 0;
    for (let i = 0; i < 100 && refused < 2; i++) {
      const status = (await get(server, "/console/api/session", session)).status;
      refused = status === 401 ? refused + 1 : 0;
      if (refused < 2) await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(refused, 2, "two connections in a row (both workers) refuse the signed-out session");
  });
});
