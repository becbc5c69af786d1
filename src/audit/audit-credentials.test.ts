import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";

const G = GROUP_PATH;
/** The widest policy an operator may write: every request at RequestResponse. */
const CATCH_ALL = `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
  - level: RequestResponse
`;

/**
 * No request or response body of a path that carries a credential is logged, whatever the
 * policy: a key, token, CSRF token or secret value never reaches the audit file.
 */
describe("audit log under a catch-all RequestResponse policy", () => {
  let s: TestServer;
  let dir: string;
  let logFile: string;
  /** Every value that must not appear in the audit file. */
  const secrets: Record<string, string> = {};

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "platform-audit-credentials-"));
    logFile = join(dir, "audit.log");
    writeFileSync(join(dir, "policy.yaml"), CATCH_ALL);
    s = await startTestServer({ auditLog: logFile, auditPolicyFile: join(dir, "policy.yaml") });
  });
  after(async () => {
    await s?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("keeps out keys, tokens, CSRF tokens and secret data, and keeps the bodies of other kinds", async () => {
    secrets.adminKey = s.adminKey;
    // The console: sign in with a key, read the session (its CSRF token), sign out.
    const signIn = await s.request("POST", "/console/api/session", { token: null, body: { accessKey: s.adminKey } });
    assert.equal(signIn.status, 201, signIn.text);
    secrets.csrf = signIn.json.csrfToken;
    const cookie = String([signIn.headers["set-cookie"]].flat()[0]).split(";")[0]!;
    secrets.sessionId = cookie.split("=")[1]!;
    const session = await s.request("GET", "/console/api/session", { token: null, headers: { cookie } });
    assert.equal(session.status, 200, session.text);
    assert.equal(session.json.csrfToken, secrets.csrf);
    const signOut = await s.request("DELETE", "/console/api/session", {
      token: null,
      headers: { cookie, "x-csrf-token": secrets.csrf },
    });
    assert.ok(signOut.status < 300, signOut.text);
    const refused = await s.request("POST", "/console/api/session", {
      token: null,
      body: { accessKey: "wrong-console-key-0123456789abcdefghijklmn" },
    });
    assert.equal(refused.status, 401);
    secrets.wrongConsoleKey = "wrong-console-key-0123456789abcdefghijklmn";

    // Access keys: generated (the answer carries it), given by the creator, and through a
    // percent-encoded spelling of the resource, which the server resolves to the same kind.
    assert.equal((await s.request("POST", `${G}/users`, { body: { metadata: { name: "kim" } } })).status, 201);
    const generated = await s.request("POST", `${G}/ownedaccesskeys`, {
      body: { metadata: { name: "kim-1" }, spec: { user: "kim" } },
    });
    assert.equal(generated.status, 201, generated.text);
    secrets.generated = generated.json.spec.key;
    secrets.given = "given-key-abcdefghijklmnopqrstuvwxyz0123456789";
    const given = await s.request("POST", `${G}/ownedaccesskeys`, {
      body: { metadata: { name: "kim-2" }, spec: { user: "kim", key: secrets.given } },
    });
    assert.equal(given.status, 201, given.text);
    secrets.encoded = "encoded-path-key-abcdefghijklmnopqrstuvwxyz0123";
    const encoded = await s.request("POST", `${G}/ownedaccesskey%73`, {
      body: { metadata: { name: "kim-3" }, spec: { user: "kim", key: secrets.encoded } },
    });
    assert.equal(encoded.status, 201, encoded.text);
    const subresource = await s.request("POST", `${G}/users/kim/accesskeys`, {
      body: { metadata: { name: "kim-4" }, spec: {} },
    });
    if (subresource.status < 300) secrets.subresource = subresource.json?.spec?.key ?? "";

    // Secret data.
    secrets.secretData = Buffer.from("very-secret-catch-all-value").toString("base64");
    const secret = await s.request("POST", `${G}/namespaces/platform/sharedsecrets`, {
      body: { metadata: { name: "s" }, spec: { data: { k: secrets.secretData } } },
    });
    assert.equal(secret.status, 201, secret.text);

    // Single sign-on's credential paths (a token exchange, a callback), and a token in a query.
    await s.request("POST", "/auth/oidc/token", {
      token: null,
      body: { code: "sso-one-time-code-4711", verifier: "sso-verifier-0815" },
    });
    await s.request("GET", "/auth/oidc/callback?code=idp-code-1234&state=idp-state-5678", { token: null });
    await s.request("GET", `${G}/teams?access_token=query-token-2468`);

    // A kind without secrets: its bodies are logged as the policy asks.
    assert.equal((await s.request("POST", `${G}/teams`, { body: { metadata: { name: "logged-team" } } })).status, 201);
    await s.close();

    const text = readFileSync(logFile, "utf8");
    const leaked = [
      ...Object.entries(secrets),
      ["sso code", "sso-one-time-code-4711"],
      ["sso verifier", "sso-verifier-0815"],
      ["idp code", "idp-code-1234"],
      ["idp state", "idp-state-5678"],
      ["query token", "query-token-2468"],
    ].filter(([, value]) => value && text.includes(value));
    assert.deepEqual(leaked, []);
    const events = text
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const team = events.find((e) => e.stage === "ResponseComplete" && e.requestURI === `${G}/teams`);
    assert.equal(team?.requestObject?.metadata?.name, "logged-team");
    // The paths are still audited, as Metadata would show them.
    const uris = new Set(events.map((e) => e.requestURI));
    for (const uri of [
      "/console/api/session",
      `${G}/ownedaccesskey%73`,
      "/auth/oidc/token",
      "/auth/oidc/callback?code=redacted&state=redacted",
      `${G}/teams?access_token=redacted`,
    ])
      assert.ok(uris.has(uri), `${uri} in ${[...uris].join(" ")}`);
  });
});
