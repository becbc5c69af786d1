import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../api/object.js";
import type { Informer, InformerEvent } from "../registry/informer.js";
import type { UserInfo } from "../registry/request-context.js";
import { identityDependencies } from "./identity-dependencies.js";
import { IdentityIndex, type TeamMembersChange } from "./identity-index.js";
import { IdentityStamps } from "./identity-stamps.js";

/** An informer that only delivers the events a test gives it. */
function fakeInformer() {
  const listeners: Array<(e: InformerEvent) => void> = [];
  const relisted: Array<() => void> = [];
  const informer = {
    onChange: (l: (e: InformerEvent) => void) => listeners.push(l),
    onRelist: (l: () => void) => relisted.push(l),
  } as unknown as Informer;
  const emit = (type: "upsert" | "delete", object: KubeObject, old?: KubeObject) => {
    const e: InformerEvent = {
      type,
      key: `/registry/x/${object.metadata.name}`,
      object,
      bytes: Buffer.from(JSON.stringify(object)),
      old,
      oldBytes: old && Buffer.from(JSON.stringify(old)),
    };
    deliver(e);
  };
  const deliver = (e: InformerEvent) => {
    for (const l of listeners) l(e);
  };
  const relist = () => {
    for (const l of relisted) l();
  };
  return { informer, emit, deliver, relist };
}

const team = (name: string, spec: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: "management.platform/v1",
  kind: "Team",
  metadata: { name, uid: `uid-${name}` },
  spec,
});

const obj = (
  kind: string,
  name: string,
  spec: Record<string, unknown>,
  more: Partial<KubeObject> = {},
): KubeObject => ({
  apiVersion: "management.platform/v1",
  kind,
  metadata: { name, uid: `uid-${name}`, creationTimestamp: "2026-01-01T00:00:00Z" },
  spec,
  ...more,
});

describe("IdentityIndex stamps: what each change makes stale", () => {
  const setup = () => {
    const keys = fakeInformer();
    const users = fakeInformer();
    const teams = fakeInformer();
    const index = new IdentityIndex(keys.informer, users.informer, teams.informer);
    /** An identity cached now; stale() says whether a change since reached what it is built from. */
    const cached = (hash: string, user: Partial<UserInfo> & Pick<UserInfo, "name">) => {
      let stamp = index.stamps.now;
      const names = identityDependencies(hash, { subjectKind: "User", groups: [], teams: [], ...user });
      return {
        stale: () => {
          const isStale = !index.unchangedSince(names, stamp);
          stamp = index.stamps.now; // as if built again
          return isStale;
        },
      };
    };
    return { keys, users, teams, index, cached };
  };

  it("keeps every cached identity for a new key, a new user and a new team naming nobody", () => {
    const { keys, users, teams, index, cached } = setup();
    const other = cached("zz", { name: "v", groups: ["g"], teams: ["t"] });
    const clock = index.stamps.now;
    keys.emit("upsert", obj("OwnedAccessKey", "k", { user: "u", key: "sha256:aa" }));
    users.emit("upsert", obj("User", "u", { groups: ["g"] }));
    teams.emit("upsert", team("empty", { displayName: "nobody" }));
    assert.equal(index.stamps.now, clock, "nothing touched: a cached identity holds with one comparison");
    assert.ok(!other.stale());
  });

  it("drops the identity of a hash that a new key of another uid takes, and only it", () => {
    const { keys, index, cached } = setup();
    keys.emit("upsert", obj("OwnedAccessKey", "first", { user: "u", key: "sha256:aa" }));
    const first = cached("aa", { name: "u" });
    const other = cached("bb", { name: "v" });
    keys.emit("upsert", obj("OwnedAccessKey", "second", { user: "v", key: "sha256:aa" }));
    assert.ok(first.stale(), "the hash may authenticate as someone else now");
    assert.ok(!other.stale());
    assert.equal(index.keyByHash("aa")?.metadata.name, "second");
  });

  it("drops a key's own identity for its spec, uid and deletion; never another key's, even of its user", () => {
    const { keys, cached } = setup();
    const key = obj("OwnedAccessKey", "k", { user: "u", key: "sha256:aa" });
    keys.emit("upsert", key);
    const mine = cached("aa", { name: "u", groups: ["g"], teams: ["t"] });
    const sameUser = cached("cc", { name: "u", groups: ["g"], teams: ["t"] });
    const other = cached("bb", { name: "v", groups: ["g"], teams: ["t"] });
    const used = { ...key, status: { lastActivity: "2026-01-02T00:00:00Z" } };
    keys.emit("upsert", used, key);
    assert.ok(!mine.stale(), "a key's lastActivity write");
    const login = { ...used, spec: { ...used.spec, identity: { connectorData: "refresh-1", claims: { sub: "u" } } } };
    keys.emit("upsert", login, used);
    assert.ok(!mine.stale(), "spec.identity, which no identity is built from");
    const loginDisabled = { ...login, spec: { ...login.spec, disabled: true, identity: {} } };
    keys.emit("upsert", loginDisabled, login);
    assert.ok(mine.stale(), "any other spec change beside it still counts");
    const labelled = { ...used, metadata: { ...used.metadata, labels: { a: "b" } } };
    keys.emit("upsert", labelled, loginDisabled);
    mine.stale();
    const disabled = { ...labelled, spec: { ...labelled.spec, disabled: true } };
    keys.emit("upsert", disabled, labelled);
    assert.ok(mine.stale(), "a disabled key");
    const rehashed = { ...disabled, spec: { ...disabled.spec, key: "sha256:dd" } };
    const atNewHash = cached("dd", { name: "w" });
    keys.emit("upsert", rehashed, disabled);
    assert.ok(mine.stale() && atNewHash.stale(), "a new hash: its identities before and now");
    const recreated = { ...rehashed, metadata: { ...rehashed.metadata, uid: "other" } };
    keys.emit("upsert", recreated, rehashed);
    assert.ok(atNewHash.stale(), "another uid under the same name");
    keys.emit("delete", recreated);
    assert.ok(atNewHash.stale(), "a deleted key");
    assert.ok(!sameUser.stale(), "another key of the same user was not changed");
    assert.ok(!other.stale(), "nor another user's");
  });

  it("drops the identities of a user whose spec, uid or existence changes, and only theirs", () => {
    const { users, cached } = setup();
    const user = obj("User", "u", {});
    users.emit("upsert", user);
    const u = cached("aa", { name: "u" });
    const v = cached("bb", { name: "v" });
    users.emit("upsert", { ...user, status: { teams: ["t"] } }, user);
    assert.ok(!u.stale(), "the user-teams controller's status write");
    for (const [spec, what] of [
      [{ disabled: true }, "a disabled user"],
      [{ groups: ["g"] }, "a user's groups"],
      [{ clusterRoles: [{ name: "r" }] }, "a user's clusterRoles (its roles)"],
    ] as const) {
      users.emit("upsert", { ...user, spec }, user);
      assert.ok(u.stale(), what);
    }
    users.emit("upsert", { ...user, metadata: { ...user.metadata, uid: "other" } }, user);
    assert.ok(u.stale(), "another uid under the same name");
    users.emit("delete", user);
    assert.ok(u.stale(), "a deleted user");
    assert.ok(!v.stale(), "another user's identity throughout");
  });

  it("drops the identities of the members a team adds or removes; of all its members for other spec changes", () => {
    const { teams, cached } = setup();
    const alice = cached("a", { name: "alice", groups: ["ops"] });
    const bob = cached("b", { name: "bob" });
    const carol = cached("c", { name: "carol", groups: ["eng"] });
    const devs = team("devs", { users: ["alice", "bob"] });
    teams.emit("upsert", devs);
    assert.deepEqual([alice.stale(), bob.stale(), carol.stale()], [true, true, false], "a new team: whom it names");
    const nowInDevs = (name: string, groups: string[] = []) => cached(name, { name, groups, teams: ["devs"] });
    const a2 = nowInDevs("alice", ["ops"]);
    const b2 = nowInDevs("bob");
    const c2 = cached("c", { name: "carol", groups: ["eng"] });
    const withoutBob = team("devs", { users: ["alice"] });
    teams.emit("upsert", withoutBob, devs);
    assert.ok(b2.stale(), "removed");
    assert.ok(!a2.stale(), "named before and now: only the member lists changed, its teams are the same");
    assert.ok(!c2.stale(), "neither named before nor now");
    const c3 = cached("c", { name: "carol", groups: ["eng"] });
    const bob3 = cached("b", { name: "bob" });
    const grouped = team("devs", { users: ["alice"], groups: ["eng"] });
    teams.emit("upsert", grouped, withoutBob);
    assert.ok(c3.stale(), "a group of hers added");
    assert.ok(!a2.stale());
    assert.ok(!bob3.stale(), "no longer a member, not named again");
    const c4 = cached("c", { name: "carol", groups: ["eng"], teams: ["devs"] });
    const b4 = cached("b", { name: "bob" });
    const roled = team("devs", { users: ["alice"], groups: ["eng"], clusterRoles: [{ name: "r" }] });
    teams.emit("upsert", roled, grouped);
    assert.ok(a2.stale() && c4.stale(), "every member, for the team's cluster roles (their roles)");
    assert.ok(!b4.stale(), "not a member");
    const recreated = { ...roled, metadata: { ...roled.metadata, uid: "other" } };
    teams.emit("upsert", recreated, roled);
    assert.ok(a2.stale() && c4.stale(), "another uid under the same name");
    teams.emit("delete", recreated);
    assert.ok(c4.stale() && a2.stale(), "a deleted team: whom it named");
    assert.ok(!b4.stale());
  });

  it("drops a member's identity when one of several teams naming it lets it go", () => {
    const { teams, cached } = setup();
    const t1 = team("t1", { users: ["u"] });
    const t2 = team("t2", { users: ["u", "v"] });
    teams.emit("upsert", t1);
    teams.emit("upsert", t2);
    const u = cached("a", { name: "u", teams: ["t1", "t2"] });
    const v = cached("b", { name: "v", teams: ["t2"] });
    teams.emit("upsert", team("t1", {}), t1);
    assert.ok(u.stale(), "removed from t1, though t2 still names it");
    assert.ok(!v.stale(), "t1 never named v");
  });

  it("keeps its members' identities through a team's status and metadata writes", () => {
    const { teams, cached } = setup();
    const devs = team("devs", { users: ["u"] });
    teams.emit("upsert", devs);
    const u = cached("a", { name: "u", teams: ["devs"] });
    teams.emit("upsert", { ...devs, metadata: { ...devs.metadata, annotations: { a: "b" } } }, devs);
    teams.emit("upsert", { ...devs, status: { members: 1 } }, devs);
    assert.ok(!u.stale());
  });

  it("drops a team key's identity when its team changes or goes", () => {
    const { teams, index } = setup();
    const bots = team("bots", {});
    teams.emit("upsert", bots);
    const identity: UserInfo = { name: "bots", subjectKind: "Team", groups: [], teams: [] };
    const names = identityDependencies("a", identity);
    let stamp = index.stamps.now;
    teams.emit("upsert", team("bots", { clusterRoles: [{ name: "r" }] }), bots);
    assert.ok(!index.unchangedSince(names, stamp));
    stamp = index.stamps.now;
    teams.emit("delete", bots);
    assert.ok(!index.unchangedSince(names, stamp));
  });

  it("drops a key's identity when its expiry comes earlier, keeps it when it moves later", () => {
    const { keys, cached } = setup();
    const key = obj("OwnedAccessKey", "k", { user: "u", key: "sha256:aa", ttl: 3600, ttlAfterLastActivity: true });
    const at = (t: string) => ({ ...key, status: { lastActivity: t } });
    keys.emit("upsert", at("2026-01-02T00:00:00Z"));
    const k = cached("aa", { name: "u" });
    keys.emit("upsert", at("2026-01-02T00:05:00Z"), at("2026-01-02T00:00:00Z"));
    assert.ok(!k.stale(), "later: a cached identity lapses early and is built again");
    keys.emit("upsert", at("2026-01-01T00:00:00Z"), at("2026-01-02T00:05:00Z"));
    assert.ok(k.stale(), "earlier: a cached identity would outlive the key");
  });

  it("drops everything when it cannot tell (an object that does not decode): fail closed", () => {
    const { users, cached } = setup();
    const other = cached("bb", { name: "someone-else" });
    const broken = {
      type: "upsert",
      key: "/registry/users/u",
      bytes: Buffer.from("{}"),
      oldBytes: Buffer.from("{}"),
      get object(): KubeObject {
        throw new Error("does not decode");
      },
      get old(): KubeObject {
        throw new Error("does not decode");
      },
    } as InformerEvent;
    users.deliver(broken);
    assert.ok(other.stale());
  });

  it("drops everything when an informer relists after a watch gap", () => {
    const { teams, cached } = setup();
    const u = cached("a", { name: "u" });
    teams.relist();
    assert.ok(u.stale(), "the gap may have hidden any change");
  });

  it("drops everything rather than remember more names than its bound", () => {
    const stamps = new IdentityStamps(3);
    const stamp = stamps.now;
    for (const n of ["a", "b", "c"]) stamps.touch(n);
    assert.ok(stamps.unchangedSince(["z"], stamp), "z did not change");
    stamps.touch("d");
    assert.ok(!stamps.unchangedSince(["z"], stamp), "past the bound, everything built before is stale");
    const after = stamps.now;
    stamps.touch("e");
    assert.ok(stamps.unchangedSince(["z"], after) && !stamps.unchangedSince(["e"], after));
  });
});

describe("IdentityIndex team events", () => {
  /** Counts the scans of a buffer (mayNameMembers calls includes() once or twice per scan). */
  const counted = (b: Buffer) => {
    let calls = 0;
    const includes = b.includes.bind(b);
    Object.defineProperty(b, "includes", {
      value: (...a: Parameters<Buffer["includes"]>) => {
        calls++;
        return includes(...a);
      },
    });
    return { b, calls: () => calls };
  };

  it("scans a team's bytes once per event, for the stamps, the index and the listeners alike", () => {
    const teams = fakeInformer();
    const index = new IdentityIndex(fakeInformer().informer, fakeInformer().informer, teams.informer);
    const heard: TeamMembersChange[] = [];
    index.onTeamMembersChange((c) => heard.push(c));
    const v1 = team("devs", { users: ["alice"] });
    const v2 = team("devs", { users: ["bob"] });
    const key = "/registry/x/devs";
    const first = counted(Buffer.from(JSON.stringify(v1)));
    teams.deliver({ type: "upsert", key, object: v1, bytes: first.b });
    assert.ok(
      first.calls() >= 1 && first.calls() <= 2,
      `one scan of a new team's bytes, not ${first.calls()} includes`,
    );
    const second = counted(Buffer.from(JSON.stringify(v2)));
    const scansOfFirst = first.calls();
    teams.deliver({ type: "upsert", key, object: v2, bytes: second.b, old: v1, oldBytes: first.b });
    assert.ok(second.calls() >= 1 && second.calls() <= 2, `one scan of the new bytes, not ${second.calls()} includes`);
    assert.equal(first.calls(), scansOfFirst, "the old bytes were scanned when they arrived, not again");
    assert.deepEqual(
      heard.map((c) => [c.before?.spec?.users, c.now?.spec?.users]),
      [
        [undefined, ["alice"]],
        [["alice"], ["bob"]],
      ],
    );
  });

  it("tells the listeners nothing of a team that names no members, before or now", () => {
    const teams = fakeInformer();
    const index = new IdentityIndex(fakeInformer().informer, fakeInformer().informer, teams.informer);
    const heard: TeamMembersChange[] = [];
    index.onTeamMembersChange((c) => heard.push(c));
    teams.emit("upsert", team("plain", { displayName: "p" }));
    teams.emit("delete", team("plain", { displayName: "p" }));
    assert.equal(heard.length, 0);
    teams.emit("upsert", team("devs", { groups: ["g"] }));
    teams.emit("upsert", team("devs", {}), team("devs", { groups: ["g"] }));
    assert.deepEqual(
      heard.map((c) => [c.before?.spec?.groups, c.now?.spec?.groups]),
      [
        [undefined, ["g"]],
        [["g"], undefined],
      ],
    );
  });
});
