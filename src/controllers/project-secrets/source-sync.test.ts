import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { GROUP_PATH, startTestServer, type TestServer } from "../../testing/test-server.js";

// The source sync on a real server (its controllers run: one SQLite server always leads).

const G = GROUP_PATH;
const PS = `${G}/namespaces/p-web/projectsecrets`;
const DB = `${G}/namespaces/platform/sharedsecrets/db`;
const b64 = (s: string) => Buffer.from(s).toString("base64");
const MERGE = "application/merge-patch+json";
type Condition = { type: string; status: string; reason?: string; message?: string };

describe("project secret source sync", () => {
  let s: TestServer;
  let alice: string;

  /** Polls the project secret until `want` holds; bounded only so a broken sync fails instead of hanging. */
  async function waitFor(
    name: string,
    want: (obj: { spec: { data?: Record<string, string> }; status?: { conditions?: Condition[] } }) => boolean,
  ) {
    let last = "";
    for (let i = 0; i < 300; i++) {
      const res = await s.request("GET", `${PS}/${name}`);
      last = res.text;
      if (res.status === 200 && want(res.json)) return res.json;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.fail(`project secret ${name} never reached the expected state; last: ${last}`);
  }
  const synced = (reason: string) => (o: { status?: { conditions?: Condition[] } }) =>
    o.status?.conditions?.some((c) => c.type === "Synced" && c.reason === reason) === true;

  before(async () => {
    s = await startTestServer({ maxFailedAuthPerMinute: 1000 });
    const post = async (path: string, body: Record<string, unknown>, token?: string) => {
      const r = await s.request("POST", `${G}/${path}`, { body, token });
      assert.equal(r.status, 201, r.text);
      return r.json;
    };
    await post("users", { metadata: { name: "alice" }, spec: {} });
    alice = (await post("ownedaccesskeys", { metadata: { name: "alice-key" }, spec: { user: "alice" } })).spec.key;
    await post("projects", { metadata: { name: "web" }, spec: { members: [{ kind: "User", name: "alice" }] } });
    await post("namespaces/platform/sharedsecrets", {
      metadata: { name: "db" },
      spec: { data: { password: b64("pw-1"), user: b64("app") }, access: [{ verbs: ["get"], users: ["alice"] }] },
    });
    await post(
      "namespaces/p-web/projectsecrets",
      { metadata: { name: "db" }, spec: { source: { sharedSecret: { name: "db" }, keys: ["password"] } } },
      alice,
    );
  });
  after(() => s.stop());

  it("copies the keys it names, and follows a change of the shared secret", async () => {
    // The data and the Synced condition are two writes (spec, then status): wait for both.
    const first = await waitFor("db", (o) => o.spec.data?.password === b64("pw-1") && synced("Synced")(o));
    assert.deepEqual(first.spec.data, { password: b64("pw-1") }, "only the keys named");

    const change = await s.request("PATCH", DB, {
      contentType: MERGE,
      body: { spec: { data: { password: b64("pw-2") } } },
    });
    assert.equal(change.status, 200, change.text);
    await waitFor("db", (o) => o.spec.data?.password === b64("pw-2"));
  });

  it("keeps its data through a client's write without data", async () => {
    const got = await s.request("GET", `${PS}/db`, { token: alice });
    const { data: _omitted, ...spec } = got.json.spec;
    const put = await s.request("PUT", `${PS}/db`, {
      token: alice,
      body: { ...got.json, spec: { ...spec, description: "database password" } },
    });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.json.spec.data.password, b64("pw-2"));
  });

  it("names the keys the shared secret lacks", async () => {
    const res = await s.request("PATCH", `${PS}/db`, {
      token: alice,
      contentType: MERGE,
      body: { spec: { source: { keys: ["password", "port"] } } },
    });
    assert.equal(res.status, 200, res.text);
    const obj = await waitFor("db", synced("SourceKeysMissing"));
    const cond = obj.status.conditions.find((c: Condition) => c.type === "Synced");
    assert.match(cond.message, /"port"/);
    assert.deepEqual(obj.spec.data, { password: b64("pw-2") });
  });

  it("stops copying once the setter may no longer read the shared secret", async () => {
    const revoke = await s.request("PATCH", DB, {
      contentType: MERGE,
      body: { spec: { access: [], data: { password: b64("pw-after-revoke") } } },
    });
    assert.equal(revoke.status, 200, revoke.text);
    const obj = await waitFor("db", synced("SourceForbidden"));
    assert.equal(obj.spec.data.password, b64("pw-2"), "the data stays as last copied");
    assert.doesNotMatch(JSON.stringify(obj), new RegExp(b64("pw-after-revoke")));
  });

  it("reports a shared secret that does not exist", async () => {
    const res = await s.request("POST", PS, {
      body: { metadata: { name: "gone" }, spec: { source: { sharedSecret: { name: "gone", namespace: "platform" } } } },
    });
    assert.equal(res.status, 201, res.text);
    const obj = await waitFor("gone", synced("SourceNotFound"));
    assert.equal(obj.spec.data, undefined);
  });
});
