import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ApiError } from "../api/errors.js";
import type { KubeObject } from "../api/object.js";
import { ownedAccessKeyResource } from "../kinds/owned-access-key/owned-access-key.js";
import { teamResource } from "../kinds/team/team.js";
import { userResource } from "../kinds/user/user.js";
import { defaultWriteOptions } from "../registry/options.js";
import { systemContext } from "../registry/request-context.js";
import { SharedInformers } from "../registry/shared-informers.js";
import { flakyRegistry } from "../testing/flaky-registry.js";
import { object, token } from "../testing/identity-objects.js";
import { AccessKeyAuthenticator } from "./authenticator.js";
import { IdentityIndex } from "./identity-index.js";

/**
 * The identity cache over a real SQLite store, its informers and the identity index: which
 * changes keep a cached identity (cachedIdentity answers without authenticating again) and
 * which drop it, and that a dropped identity is then refused or built anew.
 */
describe("identity cache", () => {
  const { registry, close } = flakyRegistry([teamResource, userResource, ownedAccessKeyResource()]);
  const informers = new SharedInformers(registry);
  const identity = new IdentityIndex(informers.for("ownedaccesskeys"), informers.for("users"), informers.for("teams"));
  const auth = new AccessKeyAuthenticator(identity);
  const opts = defaultWriteOptions("test");
  const store = (plural: string) => registry.store(plural);

  const create = async (plural: string, obj: KubeObject) => {
    await store(plural).create(systemContext(), undefined, obj, opts);
    await identity.sync();
  };
  const update = async (plural: string, name: string, change: (o: KubeObject) => void, sub: "" | "status" = "") => {
    await store(plural).guaranteedUpdate(
      systemContext(),
      undefined,
      name,
      (o) => {
        change(o);
        return o;
      },
      sub,
      "test",
    );
    await identity.sync();
  };
  /** A user with a key, authenticated once so that its identity is cached. */
  const cachedUser = async (name: string, userSpec: Record<string, unknown> = {}) => {
    await create("users", object("User", name, userSpec));
    await create("ownedaccesskeys", object("OwnedAccessKey", `${name}-key`, { user: name, key: token(name) }));
    const user = await auth.authenticate(token(name));
    assert.equal(auth.cachedIdentity(token(name)), user);
    return user;
  };
  const refused = (name: string) =>
    assert.rejects(auth.authenticate(token(name)), (e) => e instanceof ApiError && e.code === 401);

  before(() => identity.start());
  after(async () => {
    informers.stop();
    await close();
  });

  it("keeps a cached identity while other keys, users and member-less teams are created", async () => {
    const alice = await cachedUser("alice");
    await create("users", object("User", "ci-user", { groups: ["ci"] }));
    await create("ownedaccesskeys", object("OwnedAccessKey", "ci-key", { user: "ci-user", key: token("ci") }));
    await create("ownedaccesskeys", object("OwnedAccessKey", "robot", { subject: "robot", key: token("robot") }));
    await create("teams", object("Team", "empty", { displayName: "nobody" }));
    assert.equal(auth.cachedIdentity(token("alice")), alice, "the same identity, without authenticating again");
    assert.equal((await auth.authenticate(token("ci"))).name, "ci-user", "the new key authenticates");
  });

  it("keeps it through its key's activity write and a status write on its user", async () => {
    const bob = await cachedUser("bob");
    await update(
      "ownedaccesskeys",
      "bob-key",
      (o) => {
        o.status = { ...o.status, lastActivity: `${new Date().toISOString().slice(0, 19)}Z` };
      },
      "status",
    );
    await update(
      "users",
      "bob",
      (o) => {
        o.status = { ...o.status, teams: [] };
      },
      "status",
    );
    assert.equal(auth.cachedIdentity(token("bob")), bob);
  });

  it("drops it when its key is disabled, and refuses the key", async () => {
    await cachedUser("carol");
    await update("ownedaccesskeys", "carol-key", (o) => {
      o.spec = { ...o.spec, disabled: true };
    });
    assert.equal(auth.cachedIdentity(token("carol")), undefined);
    await refused("carol");
  });

  it("drops it when its key is deleted, and refuses the key", async () => {
    await cachedUser("dave");
    await store("ownedaccesskeys").delete(systemContext(), undefined, "dave-key", { dryRun: false });
    await identity.sync();
    assert.equal(auth.cachedIdentity(token("dave")), undefined);
    await refused("dave");
  });

  it("drops it when its user is disabled, and refuses the key", async () => {
    await cachedUser("erin");
    await update("users", "erin", (o) => {
      o.spec = { ...o.spec, disabled: true };
    });
    assert.equal(auth.cachedIdentity(token("erin")), undefined);
    await refused("erin");
  });

  it("drops it when its team membership changes, and builds it with the teams as they are", async () => {
    const frank = await cachedUser("frank", { groups: ["ops"] });
    assert.deepEqual(frank.teams, []);
    await create("teams", object("Team", "devs", { users: ["frank"] }));
    assert.equal(auth.cachedIdentity(token("frank")), undefined, "a new team naming the user");
    assert.deepEqual((await auth.authenticate(token("frank"))).teams, ["devs"]);
    await create("teams", object("Team", "oncall", { groups: ["ops"] }));
    assert.equal(auth.cachedIdentity(token("frank")), undefined, "a new team naming the user's group");
    assert.deepEqual((await auth.authenticate(token("frank"))).teams, ["devs", "oncall"]);
    await update("teams", "devs", (o) => {
      o.spec = { ...o.spec, users: [] };
    });
    assert.equal(auth.cachedIdentity(token("frank")), undefined, "removed from a team");
    assert.deepEqual((await auth.authenticate(token("frank"))).teams, ["oncall"]);
    await update("users", "frank", (o) => {
      o.spec = { ...o.spec, groups: [] };
    });
    assert.equal(auth.cachedIdentity(token("frank")), undefined, "its user's groups changed");
    assert.deepEqual((await auth.authenticate(token("frank"))).teams, []);
  });

  it("drops a team key's identity when its team is deleted, and refuses the key", async () => {
    await create("teams", object("Team", "bots", {}));
    await create("ownedaccesskeys", object("OwnedAccessKey", "bots-key", { team: "bots", key: token("bots") }));
    const bots = await auth.authenticate(token("bots"));
    assert.equal(auth.cachedIdentity(token("bots")), bots);
    await store("teams").delete(systemContext(), undefined, "bots", { dryRun: false });
    await identity.sync();
    assert.equal(auth.cachedIdentity(token("bots")), undefined);
    await refused("bots");
  });

  it("when full, forgets the least recently used identity and keeps those in use", async () => {
    const small = new AccessKeyAuthenticator(identity, { maxCachedIdentities: 3 });
    for (const name of ["lru-a", "lru-b", "lru-c", "lru-d"]) {
      await create("users", object("User", name, {}));
      await create("ownedaccesskeys", object("OwnedAccessKey", `${name}-key`, { user: name, key: token(name) }));
    }
    const a = await small.authenticate(token("lru-a"));
    await small.authenticate(token("lru-b"));
    await small.authenticate(token("lru-c"));
    assert.equal(small.cachedIdentity(token("lru-a")), a, "lru-a used again: now the most recent");
    await small.authenticate(token("lru-d"));
    assert.deepEqual(small.counts, { hits: 1, builds: 4 });
    assert.equal(small.cachedIdentity(token("lru-b")), undefined, "the least recently used went");
    for (const name of ["lru-a", "lru-c", "lru-d"]) assert.ok(small.cachedIdentity(token(name)), name);
    // Used last: lru-a, lru-c, lru-d in that order; lru-b built again takes lru-a's place.
    assert.equal((await small.authenticate(token("lru-b"))).name, "lru-b", "built again when used again");
    assert.deepEqual(small.counts, { hits: 4, builds: 5 });
    assert.equal(small.cachedIdentity(token("lru-a")), undefined);
    // Invalidation is unchanged in a full cache: disabling lru-c's key drops that identity only.
    await update("ownedaccesskeys", "lru-c-key", (o) => {
      o.spec = { ...o.spec, disabled: true };
    });
    assert.equal(small.cachedIdentity(token("lru-c")), undefined);
    await assert.rejects(small.authenticate(token("lru-c")), (e) => e instanceof ApiError && e.code === 401);
    assert.ok(small.cachedIdentity(token("lru-d")));
    assert.ok(small.cachedIdentity(token("lru-b")));
    assert.deepEqual(small.counts, { hits: 6, builds: 6 }, "the refused key was built (and refused), not cached");
  });

  it("drops it when another key with the same value is created for someone else", async () => {
    await cachedUser("gina");
    await create("users", object("User", "mallory", {}));
    await create("ownedaccesskeys", object("OwnedAccessKey", "copy", { user: "mallory", key: token("gina") }));
    assert.equal(auth.cachedIdentity(token("gina")), undefined, "the hash now names another key");
  });
});
