import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { entryId } from "../registry/sealed-entries.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";
import { CSRF_HEADER, SESSION_COOKIE, SESSION_SPACE } from "./sessions.js";

const SESSION_PREFIX = `/platform-internal/${SESSION_SPACE}/`;
/** The session id a `name=value` cookie pair carries. */
const sessionIdOf = (cookie: string) => cookie.slice(cookie.indexOf("=") + 1);

describe("console sessions", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => {
    await server.stop();
  });

  async function signIn(accessKey: string): Promise<{ cookie: string; csrfToken: string; setCookie: string }> {
    const res = await server.request("POST", "/console/api/session", { token: null, body: { accessKey } });
    assert.equal(res.status, 201, res.text);
    const setCookie = String(res.headers["set-cookie"]);
    const cookie = setCookie.split(";")[0]!;
    return { cookie, csrfToken: res.json.csrfToken, setCookie };
  }

  it("signs in with a key: an HttpOnly, Secure, SameSite=Strict cookie that never holds the key", async () => {
    const res = await server.request("POST", "/console/api/session", {
      token: null,
      body: { accessKey: server.adminKey },
    });
    assert.equal(res.status, 201);
    assert.equal(res.json.user.name, "admin");
    assert.ok(!res.text.includes(server.adminKey), "the answer does not repeat the key");
    const setCookie = String(res.headers["set-cookie"]);
    assert.match(setCookie, new RegExp(`^${SESSION_COOKIE}=[A-Za-z0-9_-]{43};`));
    for (const attr of ["HttpOnly", "Secure", "SameSite=Strict", "Path=/"]) assert.ok(setCookie.includes(attr), attr);
    assert.ok(!setCookie.includes(server.adminKey));
  });

  it("refuses a wrong key, a form post and another origin", async () => {
    const wrong = await server.request("POST", "/console/api/session", { token: null, body: { accessKey: "nope" } });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.headers["set-cookie"], undefined);
    const form = await server.request("POST", "/console/api/session", {
      token: null,
      body: `accessKey=${server.adminKey}`,
      contentType: "application/x-www-form-urlencoded",
    });
    assert.equal(form.status, 415);
    const foreign = await server.request("POST", "/console/api/session", {
      token: null,
      body: { accessKey: server.adminKey },
      headers: { origin: "https://evil.example" },
    });
    assert.equal(foreign.status, 403);
    assert.equal(foreign.headers["set-cookie"], undefined);
  });

  it("the cookie authenticates API reads; writes need the session's CSRF token", async () => {
    const { cookie, csrfToken } = await signIn(server.adminKey);
    const list = await server.request("GET", `${GROUP_PATH}/teams`, { token: null, headers: { cookie } });
    assert.equal(list.status, 200);
    const team = { metadata: { name: "csrf-team" } };
    const noToken = await server.request("POST", `${GROUP_PATH}/teams`, {
      token: null,
      body: team,
      headers: { cookie },
    });
    assert.equal(noToken.status, 403);
    assert.match(noToken.json.message, /CSRF/);
    const wrongToken = await server.request("POST", `${GROUP_PATH}/teams`, {
      token: null,
      body: team,
      headers: { cookie, [CSRF_HEADER]: `${csrfToken.slice(1)}x` },
    });
    assert.equal(wrongToken.status, 403);
    assert.equal((await server.request("GET", `${GROUP_PATH}/teams/csrf-team`)).status, 404, "nothing was written");
    const ok = await server.request("POST", `${GROUP_PATH}/teams`, {
      token: null,
      body: team,
      headers: { cookie, [CSRF_HEADER]: csrfToken },
    });
    assert.equal(ok.status, 201, ok.text);
    // Another session's token does not fit this session.
    const other = await signIn(server.adminKey);
    const crossed = await server.request("DELETE", `${GROUP_PATH}/teams/csrf-team`, {
      token: null,
      headers: { cookie, [CSRF_HEADER]: other.csrfToken },
    });
    assert.equal(crossed.status, 403);
    const session = await server.request("GET", "/console/api/session", { token: null, headers: { cookie } });
    assert.equal(session.status, 200);
    assert.equal(session.json.csrfToken, csrfToken);
  });

  it("an Authorization header wins over the cookie", async () => {
    const { cookie } = await signIn(server.adminKey);
    const res = await server.request("GET", `${GROUP_PATH}/teams`, { token: "wrong-key", headers: { cookie } });
    assert.equal(res.status, 401);
  });

  it("sign out ends the session on the server: the old cookie is refused", async () => {
    const { cookie, csrfToken } = await signIn(server.adminKey);
    const noToken = await server.request("DELETE", "/console/api/session", { token: null, headers: { cookie } });
    assert.equal(noToken.status, 403);
    const out = await server.request("DELETE", "/console/api/session", {
      token: null,
      headers: { cookie, [CSRF_HEADER]: csrfToken },
    });
    assert.equal(out.status, 204);
    assert.match(String(out.headers["set-cookie"]), /Max-Age=0/);
    const after = await server.request("GET", `${GROUP_PATH}/teams`, { token: null, headers: { cookie } });
    assert.equal(after.status, 401);
    assert.equal(
      (await server.request("GET", "/console/api/session", { token: null, headers: { cookie } })).status,
      401,
    );
  });

  it("a session stands for its key: deleting the key ends what the session can do", async () => {
    const user = { metadata: { name: "sess-user" }, spec: { clusterRoles: [{ name: "platform-management-view" }] } };
    assert.equal((await server.request("POST", `${GROUP_PATH}/users`, { body: user })).status, 201);
    const made = await server.request("POST", `${GROUP_PATH}/ownedaccesskeys`, {
      body: { metadata: { name: "sess-key" }, spec: { user: "sess-user" } },
    });
    assert.equal(made.status, 201, made.text);
    const key = made.json.spec.key;
    assert.equal(typeof key, "string", made.text);
    const { cookie, csrfToken } = await signIn(key);
    assert.equal(
      (await server.request("GET", `${GROUP_PATH}/teams`, { token: null, headers: { cookie } })).status,
      200,
    );
    const write = await server.request("POST", `${GROUP_PATH}/teams`, {
      token: null,
      body: { metadata: { name: "viewer-team" } },
      headers: { cookie, [CSRF_HEADER]: csrfToken },
    });
    assert.equal(write.status, 403, "a view-only user cannot write through the console either");
    const keyName = made.json.metadata.name;
    assert.equal((await server.request("DELETE", `${GROUP_PATH}/ownedaccesskeys/${keyName}`)).status, 200);
    let status = 0;
    for (let i = 0; i < 50 && status !== 401; i++) {
      status = (await server.request("GET", `${GROUP_PATH}/teams`, { token: null, headers: { cookie } })).status;
      if (status !== 401) await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(status, 401);
    // …and the elected replica removes the session from the store at once, not when it ends.
    const stored = `${SESSION_PREFIX}${entryId(sessionIdOf(cookie))}`;
    let left = true;
    for (let i = 0; i < 50 && left; i++) {
      left = (await server.storage.list(SESSION_PREFIX)).items.some((kv) => kv.key === stored);
      if (left) await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(left, false, "the deleted key's session is still in the store");
  });

  it("deleting a key removes only its own sessions", async () => {
    const made = await server.request("POST", `${GROUP_PATH}/ownedaccesskeys`, {
      body: { metadata: { name: "sess-key-2" }, spec: { user: "sess-user" } },
    });
    assert.equal(made.status, 201, made.text);
    const doomed = await signIn(made.json.spec.key);
    const kept = await signIn(server.adminKey);
    assert.equal((await server.request("DELETE", `${GROUP_PATH}/ownedaccesskeys/sess-key-2`)).status, 200);
    const doomedKey = `${SESSION_PREFIX}${entryId(sessionIdOf(doomed.cookie))}`;
    let keys: string[] = [doomedKey];
    for (let i = 0; i < 50 && keys.includes(doomedKey); i++) {
      keys = (await server.storage.list(SESSION_PREFIX)).items.map((kv) => kv.key);
      if (keys.includes(doomedKey)) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(!keys.includes(doomedKey), "the deleted key's session is still in the store");
    assert.ok(keys.includes(`${SESSION_PREFIX}${entryId(sessionIdOf(kept.cookie))}`), "another key's session went too");
    const res = await server.request("GET", `${GROUP_PATH}/teams`, { token: null, headers: { cookie: kept.cookie } });
    assert.equal(res.status, 200);
  });

  it("answers the console with security headers, / redirects to it, config says whether SSO is offered", async () => {
    const root = await server.request("GET", "/", { token: null });
    assert.equal(root.status, 302);
    assert.equal(root.headers.location, "/console/");
    // `npm run build` builds the console before the tests run.
    const page = await server.request("GET", "/console/k/teams/x", { token: null });
    assert.equal(page.status, 200);
    assert.match(page.text, /<div id="root">/);
    assert.equal(page.headers["cache-control"], "no-cache");
    assert.match(String(page.headers["content-security-policy"]), /script-src 'self';/);
    assert.match(String(page.headers["content-security-policy"]), /frame-ancestors 'none'/);
    assert.equal(page.headers["x-frame-options"], "DENY");
    assert.equal(page.headers["referrer-policy"], "no-referrer");
    assert.match(String(page.headers["strict-transport-security"]), /max-age=\d+/);
    const config = await server.request("GET", "/console/api/config", { token: null });
    assert.deepEqual(config.json, { sso: false });
    const missing = await server.request("GET", "/console/assets/nope.js", { token: null });
    assert.equal(missing.status, 404);
  });

  it("serves the hashed assets compressed, cached for a year", async () => {
    const page = await server.request("GET", "/console/", { token: null });
    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(page.text)?.[1];
    assert.ok(script, page.text);
    const plain = await server.request("GET", script, { token: null });
    assert.equal(plain.status, 200);
    assert.equal(plain.headers["content-encoding"], undefined);
    assert.match(String(plain.headers["content-type"]), /javascript/);
    assert.equal(plain.headers["cache-control"], "public, max-age=31536000, immutable");
    for (const encoding of ["br", "gzip"]) {
      // Brotli is made in the background at start: gzip answers until it is there.
      let res = await server.request("GET", script, { token: null, headers: { "accept-encoding": encoding } });
      for (let i = 0; i < 300 && res.headers["content-encoding"] !== encoding; i++) {
        await new Promise((r) => setTimeout(r, 100));
        res = await server.request("GET", script, { token: null, headers: { "accept-encoding": encoding } });
      }
      assert.equal(res.headers["content-encoding"], encoding);
      assert.ok(Number(res.headers["content-length"]) < plain.text.length / 2, "compressed");
    }
  });
});
