import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ApiError } from "../api/errors.js";
import type { KubeObject } from "../api/object.js";
import { PlatformAuthorizer, VIEW_ROLE } from "../authz/authorizer.js";
import { ownedAccessKeyResource } from "../kinds/owned-access-key/owned-access-key.js";
import { projectResource } from "../kinds/project/project.js";
import { teamResource } from "../kinds/team/team.js";
import { userResource } from "../kinds/user/user.js";
import { AdmissionChain } from "../registry/admission.js";
import { defaultWriteOptions } from "../registry/options.js";
import { Registry } from "../registry/registry.js";
import { systemContext, type UserInfo } from "../registry/request-context.js";
import { SharedInformers } from "../registry/shared-informers.js";
import { StorageError } from "../storage/errors.js";
import type { WatchCallbacks, WatchOptions } from "../storage/interface.js";
import { openSqliteStorage } from "../storage/sqlite/sqlite-storage.js";
import { flakyRegistry } from "../testing/flaky-registry.js";
import { object, token } from "../testing/identity-objects.js";
import { storageWith } from "../testing/storage-with.js";
import { waitFor } from "../testing/wait-for.js";
import { AccessKeyAuthenticator } from "./authenticator.js";
import { IdentityIndex } from "./identity-index.js";

/** Reading another user: what the view role grants, and no self rule does. */
const readUser = (name: string) => ({
  verb: "get",
  apiGroup: "management.platform",
  resource: "users",
  subresource: "",
  namespace: "",
  name,
  resourceRequest: true,
});

/**
 * Precise invalidation of the identity cache, over one real SQLite store seen by two replicas,
 * each with its own informers (its own watch of the store), identity index, authenticator and
 * authorizer: a change refuses (or grants) from the next request on, on both, while the cached
 * identities it cannot reach stay cached (the authenticators' counts of hits and builds).
 */
describe("identity cache: precise invalidation on every replica", () => {
  const { registry, close } = flakyRegistry([teamResource, userResource, ownedAccessKeyResource(), projectResource]);
  const replica = () => {
    const informers = new SharedInformers(registry);
    const identity = new IdentityIndex(
      informers.for("ownedaccesskeys"),
      informers.for("users"),
      informers.for("teams"),
    );
    const auth = new AccessKeyAuthenticator(identity);
    const authz = new PlatformAuthorizer(identity, informers.for("projects"), registry.resourceTypes());
    /** Waits until this replica's watch has delivered every write so far. */
    const caughtUp = () => identity.sync();
    return { informers, identity, auth, authz, caughtUp };
  };
  const replicas = [replica(), replica()];
  const opts = defaultWriteOptions("test");
  const store = (plural: string) => registry.store(plural);
  const everywhere = () => Promise.all(replicas.map((r) => r.caughtUp()));

  const create = async (plural: string, obj: KubeObject) => {
    await store(plural).create(systemContext(), undefined, obj, opts);
    await everywhere();
  };
  const updateSpec = async (plural: string, name: string, spec: Record<string, unknown>) => {
    await store(plural).guaranteedUpdate(
      systemContext(),
      undefined,
      name,
      (o) => {
        o.spec = { ...o.spec, ...spec };
        return o;
      },
      "",
      "test",
    );
    await everywhere();
  };
  const remove = async (plural: string, name: string) => {
    await store(plural).delete(systemContext(), undefined, name, { dryRun: false });
    await everywhere();
  };
  const refusedOn = (r: ReturnType<typeof replica>, name: string) =>
    assert.rejects(r.auth.authenticate(token(name)), (e) => e instanceof ApiError && e.code === 401);
  /** Authenticates `name`'s key on `r` and says whether the cache answered (no identity built). */
  const fromCache = async (r: ReturnType<typeof replica>, name: string): Promise<{ user: UserInfo; hit: boolean }> => {
    const before = { ...r.auth.counts };
    const user = await r.auth.authenticate(token(name));
    const hit = r.auth.counts.hits === before.hits + 1 && r.auth.counts.builds === before.builds;
    return { user, hit };
  };
  const mayReadUsers = (r: ReturnType<typeof replica>, user: UserInfo) =>
    r.authz.decide(user, readUser("someone")).allowed;

  before(async () => {
    await Promise.all(replicas.map((r) => r.identity.start()));
    await Promise.all(replicas.map((r) => r.informers.for("projects").synced()));
    await create("teams", object("Team", "viewers", { clusterRoles: [{ name: VIEW_ROLE }] }));
    for (const u of ["u", "v", "w"]) await create("users", object("User", u, {}));
    for (const [key, user] of [
      ["k1", "u"],
      ["k1b", "u"],
      ["k2", "v"],
      ["k3", "w"],
    ])
      await create("ownedaccesskeys", object("OwnedAccessKey", key!, { user, key: token(key!) }));
  });
  after(async () => {
    for (const r of replicas) r.informers.stop();
    await close();
  });

  /** Every key authenticated once on both replicas, so that each identity is cached there. */
  const warm = async (...keys: string[]) => {
    for (const r of replicas) for (const k of keys) await r.auth.authenticate(token(k));
    for (const r of replicas) for (const k of keys) assert.ok((await fromCache(r, k)).hit, `${k} cached`);
  };

  it("disabling K1 of U refuses K1 at once; K2 of V, and U's other key, stay cached", async () => {
    await warm("k1", "k1b", "k2");
    await updateSpec("ownedaccesskeys", "k1", { disabled: true });
    for (const r of replicas) {
      await refusedOn(r, "k1");
      assert.equal(r.auth.cachedIdentity(token("k1")), undefined);
      const k2 = await fromCache(r, "k2");
      assert.ok(k2.hit, "an unrelated key keeps its cached identity");
      assert.equal(k2.user.name, "v");
      assert.ok((await fromCache(r, "k1b")).hit, "the disabled key alone: its user's other key is unchanged");
    }
    await updateSpec("ownedaccesskeys", "k1", { disabled: false });
    for (const r of replicas) assert.equal((await r.auth.authenticate(token("k1"))).name, "u");
  });

  it("adding U to a team grants its rights at once; removing U takes them away at once", async () => {
    await warm("k1", "k2");
    for (const r of replicas) assert.ok(!mayReadUsers(r, await r.auth.authenticate(token("k1"))));
    await updateSpec("teams", "viewers", { users: ["u"] });
    for (const r of replicas) {
      const u = await fromCache(r, "k1");
      assert.ok(!u.hit, "U's identity was built again");
      assert.deepEqual(u.user.teams, ["viewers"]);
      assert.ok(mayReadUsers(r, u.user), "the team's view role");
      assert.ok((await fromCache(r, "k2")).hit, "V is named by no team: still cached");
    }
    await warm("k1", "k2");
    await updateSpec("teams", "viewers", { users: [] });
    for (const r of replicas) {
      const u = await fromCache(r, "k1");
      assert.ok(!u.hit);
      assert.deepEqual(u.user.teams, []);
      assert.ok(!mayReadUsers(r, u.user), "the team's rights are gone");
      assert.ok((await fromCache(r, "k2")).hit);
    }
  });

  it("U keeps a team's rights through another team's removal of U, and loses them with that team's", async () => {
    await create("teams", object("Team", "readers", { users: ["w"], clusterRoles: [{ name: VIEW_ROLE }] }));
    await create("teams", object("Team", "others", { users: ["w", "v"] }));
    await warm("k3", "k2");
    await updateSpec("teams", "others", { users: ["v"] });
    for (const r of replicas) {
      const w = await fromCache(r, "k3");
      assert.deepEqual(w.user.teams, ["readers"]);
      assert.ok(mayReadUsers(r, w.user), "still in readers");
      assert.ok((await fromCache(r, "k2")).hit, "V stays in `others`");
    }
    await remove("teams", "readers");
    for (const r of replicas) {
      const w = await r.auth.authenticate(token("k3"));
      assert.deepEqual(w.teams, []);
      assert.ok(!mayReadUsers(r, w), "a deleted team's rights are gone");
    }
  });

  it("a team's cluster roles taken away leave its members without them at once", async () => {
    await create("teams", object("Team", "auditors", { users: ["v"], clusterRoles: [{ name: VIEW_ROLE }] }));
    await warm("k2");
    for (const r of replicas) assert.ok(mayReadUsers(r, await r.auth.authenticate(token("k2"))));
    await updateSpec("teams", "auditors", { clusterRoles: [] });
    for (const r of replicas) assert.ok(!mayReadUsers(r, await r.auth.authenticate(token("k2"))));
  });

  it("deleting a user refuses all their keys; other users' keys stay cached", async () => {
    await warm("k1", "k1b", "k2");
    await remove("users", "u");
    for (const r of replicas) {
      await refusedOn(r, "k1");
      await refusedOn(r, "k1b");
      assert.ok((await fromCache(r, "k2")).hit);
    }
  });
});

/**
 * A watch gap: the store compacted the history a replica's watch of teams still needed. The
 * informer lists again, and whatever the gap hid, that replica drops every cached identity.
 */
describe("identity cache: a relist after a compacted watch", () => {
  const sqlite = openSqliteStorage(":memory:");
  const watches = new Map<string, WatchCallbacks>();
  let watchCalls = 0;
  const storage = storageWith(sqlite, {
    watch: (prefix: string, options: WatchOptions, callbacks: WatchCallbacks) => {
      watches.set(prefix, callbacks);
      watchCalls++;
      return sqlite.watch(prefix, options, callbacks);
    },
  });
  const registry = new Registry(
    storage,
    [teamResource, userResource, ownedAccessKeyResource()],
    new AdmissionChain([]),
  );
  const informers = new SharedInformers(registry);
  const identity = new IdentityIndex(informers.for("ownedaccesskeys"), informers.for("users"), informers.for("teams"));
  const auth = new AccessKeyAuthenticator(identity);

  before(async () => {
    await identity.start();
    const opts = defaultWriteOptions("test");
    await registry.store("users").create(systemContext(), undefined, object("User", "u", {}), opts);
    const key = object("OwnedAccessKey", "k", { user: "u", key: token("k") });
    await registry.store("ownedaccesskeys").create(systemContext(), undefined, key, opts);
    await identity.sync();
  });
  after(async () => {
    informers.stop();
    await sqlite.close();
  });

  it("drops every cached identity, though no object it was built from changed", async () => {
    await auth.authenticate(token("k"));
    const cached = auth.cachedIdentity(token("k"));
    assert.ok(cached);
    const prefix = [...watches.keys()].find((p) => p.includes("teams"));
    assert.ok(prefix, "the teams informer watches");
    const watchesBefore = watchCalls;
    watches.get(prefix)!.onError(new StorageError("Compacted", prefix, "required revision has been compacted"));
    // The relist ends with a new watch.
    await waitFor(
      "the informer listing again and watching anew",
      async () => watchCalls,
      (calls) => calls > watchesBefore,
    );
    await identity.sync();
    assert.equal(auth.cachedIdentity(token("k")), undefined, "dropped by the relist");
    const again = await auth.authenticate(token("k"));
    assert.notEqual(again, cached, "built again");
    assert.equal(again.name, "u");
  });
});
