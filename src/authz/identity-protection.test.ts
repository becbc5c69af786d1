import assert from "node:assert/strict";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { generateEncryptionKeySecret } from "../crypto/secret-box.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";
import { waitFor } from "../testing/wait-for.js";

const G = GROUP_PATH;
const SECRET_VALUE = "correct-horse-battery-staple-4711";

describe("identity and protection", () => {
  let s: TestServer;
  let aliceKey = "";
  const auditFile = () => join(s.dataDir, "audit.log");

  before(async () => {
    s = await startTestServer({ maxKeyTtlSeconds: 3600, maxFailedAuthPerMinute: 1000 });
    await s.stop({ keepData: true });
    // Restart on the same data dir with an audit log inside it.
    s = await startTestServer({
      dataDir: s.dataDir,
      maxKeyTtlSeconds: 3600,
      maxFailedAuthPerMinute: 1000,
      auditLog: join(s.dataDir, "audit.log"),
    });
    for (const body of [
      { metadata: { name: "alice" }, spec: { groups: ["eng"] } },
      { metadata: { name: "bob" }, spec: {} },
    ]) {
      assert.equal((await s.request("POST", `${G}/users`, { body })).status, 201);
    }
    const k = await s.request("POST", `${G}/ownedaccesskeys`, {
      body: { metadata: { name: "alice" }, spec: { user: "alice" } },
    });
    aliceKey = k.json.spec.key;
  });
  after(async () => {
    await s?.stop();
  });

  it("selves returns the caller", async () => {
    const r = await s.request("POST", `${G}/selves`, { token: aliceKey, body: { metadata: {} } });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json.status.user, "alice");
    assert.equal(r.json.status.accessKey, "alice");
    assert.deepEqual(r.json.status.groups, ["eng"]);
  });

  it("User status.teams follows team changes, both membership paths", async () => {
    await s.request("POST", `${G}/teams`, { body: { metadata: { name: "eng" }, spec: { groups: ["eng"] } } });
    await s.request("POST", `${G}/teams`, { body: { metadata: { name: "named" }, spec: { users: ["alice"] } } });
    const aliceTeams = async (): Promise<string[]> =>
      (await s.request("GET", `${G}/users/alice`)).json.status?.teams ?? [];
    let teams = await waitFor("alice's two teams", aliceTeams, (t) => t.length === 2);
    assert.deepEqual(teams, ["eng", "named"]);
    await s.request("DELETE", `${G}/teams/named`);
    teams = await waitFor("alice's one team", aliceTeams, (t) => t.length === 1);
    assert.deepEqual(teams, ["eng"]);
    // A changed membership (not only a deleted team) is seen too.
    await s.request("PATCH", `${G}/teams/eng`, {
      body: { spec: { groups: ["other"], users: ["alice"] } },
      contentType: "application/merge-patch+json",
    });
    await s.request("PATCH", `${G}/teams/eng`, {
      body: { spec: { users: ["bob"] } },
      contentType: "application/merge-patch+json",
    });
    teams = await waitFor("alice without teams", aliceTeams, (t) => t.length === 0);
    assert.deepEqual(teams, []);
  });

  it("User status.teams follows a team naming only users, and the user's own groups", async () => {
    const teamsOfAlice = async (want: string[]) => {
      const teams = await waitFor(
        `alice's teams ${want.join()}`,
        async (): Promise<string[]> => (await s.request("GET", `${G}/users/alice`)).json.status?.teams ?? [],
        (t) => t.join() === want.join(),
      );
      assert.deepEqual(teams, want);
    };
    // Teams with no groups: only the users they name (before and after a change) are re-checked.
    await s.request("POST", `${G}/teams`, { body: { metadata: { name: "pair" }, spec: { users: ["alice"] } } });
    await teamsOfAlice(["pair"]);
    await s.request("PATCH", `${G}/teams/pair`, {
      body: { spec: { users: ["bob"] } },
      contentType: "application/merge-patch+json",
    });
    await teamsOfAlice([]);
    // A user's own group change re-checks that user.
    await s.request("POST", `${G}/teams`, { body: { metadata: { name: "ops" }, spec: { groups: ["ops"] } } });
    await s.request("PATCH", `${G}/users/alice`, {
      body: { spec: { groups: ["eng", "ops"] } },
      contentType: "application/merge-patch+json",
    });
    await teamsOfAlice(["ops"]);
    await s.request("PATCH", `${G}/users/alice`, {
      body: { spec: { groups: ["eng"] } },
      contentType: "application/merge-patch+json",
    });
    await teamsOfAlice([]);
    await s.request("DELETE", `${G}/teams/pair`);
    await s.request("DELETE", `${G}/teams/ops`);
  });

  it("users/{name}/accesskeys lists keys without their values", async () => {
    const r = await s.request("GET", `${G}/users/alice/accesskeys`, { token: aliceKey });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(
      r.json.items.map((i: { metadata: { name: string } }) => i.metadata.name),
      ["alice"],
    );
    assert.equal(r.json.items[0].spec.key, undefined);
    assert.ok(!r.text.includes(aliceKey));
    assert.equal((await s.request("GET", `${G}/users/bob/accesskeys`, { token: aliceKey })).status, 403);
    // Authorized first, as kube-apiserver does: no rule lets alice create there (403); an admin, who
    // may, learns the subresource serves GET only (405).
    assert.equal((await s.request("POST", `${G}/users/alice/accesskeys`, { token: aliceKey, body: {} })).status, 403);
    assert.equal((await s.request("POST", `${G}/users/alice/accesskeys`, { body: {} })).status, 405);
  });

  it("--max-key-ttl caps what can be created", async () => {
    const r = await s.request("POST", `${G}/ownedaccesskeys`, {
      token: aliceKey,
      body: { metadata: { name: "long" }, spec: { ttl: 999999 } },
    });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json.spec.ttl, 3600);
    assert.match(String(r.headers.warning), /capped/);
  });

  it("status.lastActivity is written once, not on every request", async () => {
    const k = await s.request("POST", `${G}/ownedaccesskeys`, {
      body: { metadata: { name: "act" }, spec: { user: "bob" } },
    });
    const token = k.json.spec.key;
    await s.request("POST", `${G}/selves`, { token, body: { metadata: {} } });
    const obj = await waitFor(
      "lastActivity recorded",
      async () => (await s.request("GET", `${G}/ownedaccesskeys/act`)).json,
      (key) => Boolean(key.status?.lastActivity),
    );
    for (let i = 0; i < 5; i++) await s.request("POST", `${G}/selves`, { token, body: { metadata: {} } });
    const again = (await s.request("GET", `${G}/ownedaccesskeys/act`)).json;
    assert.equal(again.metadata.resourceVersion, obj.metadata.resourceVersion, "no second write within a minute");
  });

  it("disabled keys and keys of disabled users get 401", async () => {
    const k = await s.request("POST", `${G}/ownedaccesskeys`, {
      body: { metadata: { name: "dis" }, spec: { user: "bob" } },
    });
    const token = k.json.spec.key;
    assert.equal((await s.request("POST", `${G}/selves`, { token, body: { metadata: {} } })).status, 201);
    await s.request("PATCH", `${G}/ownedaccesskeys/dis`, {
      contentType: "application/merge-patch+json",
      body: { spec: { disabled: true } },
    });
    await waitFor(
      "the disabled key refused",
      async () => (await s.request("POST", `${G}/selves`, { token, body: { metadata: {} } })).status,
      (code) => code === 401,
    );
  });

  it("a direct cluster endpoint token is a bearer token within its scope", async () => {
    const t = await s.request("POST", `${G}/directclusterendpointtokens`, {
      token: aliceKey,
      body: { metadata: { name: "t" }, spec: { ttl: 600, scope: { allowPlatformCli: true } } },
    });
    assert.equal(t.status, 201, t.text);
    const jwt = t.json.status.token;
    const me = await s.request("GET", `${G}/users/alice`, { token: jwt });
    assert.equal(me.status, 200, me.text);
    assert.equal(
      (await s.request("GET", `${G}/ownedaccesskeys/alice`, { token: jwt })).status,
      403,
      "outside its scope",
    );
    const forged = `${jwt.slice(0, -4)}AAAA`;
    assert.equal((await s.request("GET", `${G}/users/alice`, { token: forged })).status, 401);
  });

  it("impersonation: admins only", async () => {
    const asAlice = await s.request("POST", `${G}/selves`, {
      headers: { "Impersonate-User": "alice" },
      body: { metadata: {} },
    });
    assert.equal(asAlice.status, 201, asAlice.text);
    assert.equal(asAlice.json.status.user, "alice");
    const byAlice = await s.request("POST", `${G}/selves`, {
      token: aliceKey,
      headers: { "Impersonate-User": "admin" },
      body: { metadata: {} },
    });
    assert.equal(byAlice.status, 403);
    assert.equal((await s.request("GET", `${G}/users/bob`, { headers: { "Impersonate-User": "alice" } })).status, 403);
  });

  it("secret data and access keys never appear in the database file", async () => {
    const r = await s.request("POST", `${G}/namespaces/platform/sharedsecrets`, {
      body: { metadata: { name: "db" }, spec: { data: { password: Buffer.from(SECRET_VALUE).toString("base64") } } },
    });
    assert.equal(r.status, 201, r.text);
    const got = await s.request("GET", `${G}/namespaces/platform/sharedsecrets/db`);
    assert.equal(Buffer.from(got.json.spec.data.password, "base64").toString(), SECRET_VALUE);
    const files = readdirSync(s.dataDir).filter((f) => f.startsWith("platform.db"));
    assert.ok(files.length > 0);
    const raw = Buffer.concat(files.map((f) => readFileSync(join(s.dataDir, f))));
    for (const needle of [SECRET_VALUE, Buffer.from(SECRET_VALUE).toString("base64"), aliceKey, s.adminKey]) {
      assert.equal(raw.includes(needle), false, "found a plaintext value in the database");
    }
    // And the test can fail: the key's hash marker is there.
    assert.ok(raw.includes("sha256:"));
  });

  it("the audit log records requests and never a key or secret value", async () => {
    await s.request("GET", `${G}/users/bob`, { token: aliceKey });
    const text = await waitFor(
      "the refusal in the audit log",
      async () => readFileSync(auditFile(), "utf8"),
      (logged) => logged.includes('"code":403'),
    );
    // audit.k8s.io/v1 Events, one per line (docs/operations.md).
    const lines = text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const denied = lines.find(
      (l) =>
        l.user?.username === "alice" &&
        l.stage === "ResponseComplete" &&
        l.responseStatus?.code === 403 &&
        l.objectRef?.resource === "users",
    );
    assert.ok(denied, "the refusal is logged");
    assert.equal(denied.kind, "Event");
    assert.equal(denied.apiVersion, "audit.k8s.io/v1");
    assert.equal(denied.verb, "get");
    assert.equal(denied.objectRef.name, "bob");
    assert.match(denied.annotations["management.platform/credential"], /\/alice$/);
    assert.ok(denied.sourceIPs.length > 0);
    for (const needle of [aliceKey, s.adminKey, SECRET_VALUE, Buffer.from(SECRET_VALUE).toString("base64")]) {
      assert.equal(text.includes(needle), false);
    }
  });
});

describe("failed authentications", () => {
  it("429 with Retry-After past the per-address limit", async () => {
    const s = await startTestServer({ maxFailedAuthPerMinute: 3 });
    try {
      // The admin key authenticates once before the address is blocked; a second key never does.
      assert.equal((await s.request("GET", `${G}/users`)).status, 200);
      const fresh = await s.request("POST", `${G}/ownedaccesskeys`, {
        body: { metadata: { name: "fresh" }, spec: { user: "admin" } },
      });
      assert.equal(fresh.status, 201, fresh.text);
      for (let i = 0; i < 3; i++) {
        assert.equal(
          (await s.request("GET", `${G}/users`, { token: "wrong-key-wrong-key-wrong-key-123" })).status,
          401,
        );
      }
      const r = await s.request("GET", `${G}/users`, { token: "wrong-key-wrong-key-wrong-key-123" });
      assert.equal(r.status, 429);
      assert.ok(Number(r.headers["retry-after"]) >= 1);
      // A valid key not seen before waits: the address is throttled, and an unknown key could be a guess.
      assert.equal((await s.request("GET", `${G}/users`, { token: fresh.json.spec.key })).status, 429);
      // A key that authenticated before goes on working: one bad client behind a shared address
      // does not lock out the others.
      assert.equal((await s.request("GET", `${G}/users`)).status, 200);
      assert.equal((await s.request("GET", `${G}/users`, { token: "wrong-key-wrong-key-wrong-key-123" })).status, 429);
    } finally {
      await s.stop();
    }
  });
});

describe("encryption key rotation", () => {
  it("a new primary key reads old data and encrypts new data", async () => {
    const first = await startTestServer();
    const dataDir = first.dataDir;
    const keyFile = join(dataDir, "encryption-keys.json");
    const old = JSON.parse(readFileSync(keyFile, "utf8"));
    const put = (srv: TestServer, name: string) =>
      srv.request("POST", `${G}/namespaces/platform/sharedsecrets`, {
        body: { metadata: { name }, spec: { data: { v: Buffer.from(name).toString("base64") } } },
      });
    assert.equal((await put(first, "before")).status, 201);
    await first.stop({ keepData: true });
    writeFileSync(
      keyFile,
      JSON.stringify({ keys: [{ name: "key-new", secret: generateEncryptionKeySecret() }, ...old.keys] }),
    );
    const second = await startTestServer({ dataDir, encryptionKeyFile: keyFile });
    try {
      const got = await second.request("GET", `${G}/namespaces/platform/sharedsecrets/before`);
      assert.equal(got.status, 200, got.text);
      assert.equal(got.json.spec.data.v, Buffer.from("before").toString("base64"));
      assert.equal((await put(second, "after")).status, 201);
      const raw = Buffer.concat(
        readdirSync(dataDir)
          .filter((f) => f.startsWith("platform.db"))
          .map((f) => readFileSync(join(dataDir, f))),
      );
      assert.ok(raw.includes("enc:v1:key-new:"), "new writes use the new primary key");
    } finally {
      await second.stop();
    }
  });
});
