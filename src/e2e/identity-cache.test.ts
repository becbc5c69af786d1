/**
 * The identity cache through a running server: each change refuses (or grants) from the very
 * next request, while the cached identities it cannot reach stay cached, as the server's own
 * count says (platform_identity_cache_lookups_total, read in-process: the server runs here).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { identityCacheLookups } from "../metrics/metrics.js";
import { EtcdCluster } from "../testing/etcd-cluster.js";
import { postObject } from "../testing/gateway-fixture.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";

/** The cache's counts so far (hits, builds), process-wide. */
async function lookups(): Promise<{ hit: number; build: number }> {
  const { values } = await identityCacheLookups.get();
  const of = (result: string) => values.find((v) => v.labels.result === result)?.value ?? 0;
  return { hit: of("hit"), build: of("build") };
}

describe("identity cache: precise invalidation through the API", () => {
  let s: TestServer;
  const keys: Record<string, string> = {};

  const patch = async (path: string, spec: unknown) => {
    const res = await s.request("PATCH", `${GROUP_PATH}/${path}`, {
      body: { spec },
      contentType: "application/merge-patch+json",
    });
    assert.equal(res.status, 200, res.text);
  };
  /** `key` reads user `name`: its own user (the self rule), another one only with the view role. */
  const read = async (key: string, name: string) =>
    (await s.request("GET", `${GROUP_PATH}/users/${name}`, { token: keys[key] })).status;
  /** read() of its own user, answered from the identity cache: no identity was built for it. */
  const answeredFromCache = async (key: string, own: string) => {
    const before = await lookups();
    assert.equal(await read(key, own), 200);
    const now = await lookups();
    return now.build === before.build && now.hit > before.hit;
  };

  before(async () => {
    s = await startTestServer({ maxFailedAuthPerMinute: 1000 });
    for (const name of ["u", "v"]) await postObject(s, "users", { metadata: { name }, spec: {} });
    await postObject(s, "teams", {
      metadata: { name: "viewers" },
      spec: { clusterRoles: [{ name: "platform-management-view" }] },
    });
    for (const [key, user] of [
      ["k1", "u"],
      ["k1b", "u"],
      ["k2", "v"],
    ] as const) {
      const created = await postObject(s, "ownedaccesskeys", { metadata: { name: key }, spec: { user } });
      keys[key] = created.spec.key;
    }
    // Authenticated once each (and again once their first activity write is in): cached from now on.
    for (let i = 0; i < 3; i++)
      for (const [k, own] of [
        ["k1", "u"],
        ["k1b", "u"],
        ["k2", "v"],
      ])
        await read(k!, own!);
  });
  after(async () => {
    await s?.stop();
  });

  it("disabling K1 of U refuses K1 on the next request; K2 of V stays cached", async () => {
    assert.ok(await answeredFromCache("k2", "v"));
    await patch("ownedaccesskeys/k1", { disabled: true });
    assert.equal(await read("k1", "u"), 401);
    assert.ok(await answeredFromCache("k2", "v"), "an unrelated key's identity was not dropped");
    assert.ok(await answeredFromCache("k1b", "u"), "nor U's other key's");
    await patch("ownedaccesskeys/k1", { disabled: false });
    assert.equal(await read("k1", "u"), 200);
  });

  it("adding U to a team grants its rights on the next request; removing U takes them away", async () => {
    assert.equal(await read("k1", "v"), 403);
    await patch("teams/viewers", { users: ["u"] });
    assert.equal(await read("k1", "v"), 200, "the team's view role");
    assert.ok(await answeredFromCache("k2", "v"), "V, whom the team does not name, stays cached");
    await patch("teams/viewers", { users: [] });
    assert.equal(await read("k1", "v"), 403, "removed from the team: its rights are gone");
    assert.ok(await answeredFromCache("k2", "v"));
  });

  it("deleting a user refuses every key of it on the next request; other users' stay cached", async () => {
    await read("k1", "u");
    await read("k1b", "u");
    const res = await s.request("DELETE", `${GROUP_PATH}/users/u`);
    assert.equal(res.status, 200, res.text);
    assert.equal(await read("k1", "u"), 401);
    assert.equal(await read("k1b", "u"), 401);
    assert.ok(await answeredFromCache("k2", "v"));
  });
});

/**
 * Two replicas on one etcd: a change written through A reaches B's cache through B's own watch
 * of the store (its informers), and B refuses from its next request on, while B keeps the
 * identities the change cannot reach. Each check waits until the replica's informers have caught
 * up with the store, the moment its watch delivers the change.
 */
describe("identity cache: precise invalidation on two replicas over one etcd", { timeout: 120_000 }, () => {
  const BOOTSTRAP_KEY = "identity-cache-admin-key-0123456789abcdefghijkl";
  let etcd: EtcdCluster;
  let a: TestServer;
  let b: TestServer;
  const keys: Record<string, string> = {};

  const caughtUp = (s: TestServer) =>
    Promise.all(["ownedaccesskeys", "users", "teams"].map((r) => s.informers.for(r).sync()));
  const read = async (s: TestServer, key: string, name: string) =>
    (await s.request("GET", `${GROUP_PATH}/users/${name}`, { token: keys[key] })).status;
  const answeredFromCache = async (s: TestServer, key: string, own: string) => {
    const before = await lookups();
    assert.equal(await read(s, key, own), 200);
    const now = await lookups();
    return now.build === before.build && now.hit > before.hit;
  };
  const patchOnA = async (path: string, spec: unknown) => {
    const res = await a.request("PATCH", `${GROUP_PATH}/${path}`, {
      body: { spec },
      contentType: "application/merge-patch+json",
    });
    assert.equal(res.status, 200, res.text);
    await Promise.all([caughtUp(a), caughtUp(b)]);
  };

  before(async () => {
    etcd = await EtcdCluster.start(1);
    const start = () =>
      startTestServer({ storage: etcd.url, bootstrapKey: BOOTSTRAP_KEY, maxFailedAuthPerMinute: 1000 });
    a = await start();
    b = await start();
    for (const name of ["u", "v"]) await postObject(a, "users", { metadata: { name }, spec: {} });
    await postObject(a, "teams", {
      metadata: { name: "viewers" },
      spec: { clusterRoles: [{ name: "platform-management-view" }] },
    });
    for (const [key, user] of [
      ["k1", "u"],
      ["k2", "v"],
    ] as const) {
      keys[key] = (await postObject(a, "ownedaccesskeys", { metadata: { name: key }, spec: { user } })).spec.key;
    }
    await Promise.all([caughtUp(a), caughtUp(b)]);
    for (let i = 0; i < 3; i++)
      for (const s of [a, b])
        for (const [k, own] of [
          ["k1", "u"],
          ["k2", "v"],
        ])
          await read(s, k!, own!);
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await etcd?.stop();
  });

  it("a key disabled through A is refused by B; B keeps the other user's identity cached", async () => {
    assert.ok(await answeredFromCache(b, "k2", "v"));
    await patchOnA("ownedaccesskeys/k1", { disabled: true });
    for (const s of [b, a]) {
      assert.equal(await read(s, "k1", "u"), 401);
      assert.ok(await answeredFromCache(s, "k2", "v"));
    }
    await patchOnA("ownedaccesskeys/k1", { disabled: false });
    assert.equal(await read(b, "k1", "u"), 200);
  });

  it("a team membership added and removed through A grants and takes away its rights on B", async () => {
    assert.equal(await read(b, "k1", "v"), 403);
    await patchOnA("teams/viewers", { users: ["u"] });
    assert.equal(await read(b, "k1", "v"), 200);
    assert.ok(await answeredFromCache(b, "k2", "v"));
    await patchOnA("teams/viewers", { users: [] });
    assert.equal(await read(b, "k1", "v"), 403);
    assert.ok(await answeredFromCache(b, "k2", "v"));
  });
});
