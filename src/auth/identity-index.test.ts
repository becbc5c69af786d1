import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../api/object.js";
import type { Informer, InformerEvent } from "../registry/informer.js";
import { IdentityIndex, type TeamMembersChange } from "./identity-index.js";

/** An informer that only delivers the events a test gives it. */
function fakeInformer() {
  const listeners: Array<(e: InformerEvent) => void> = [];
  const informer = { onChange: (l: (e: InformerEvent) => void) => listeners.push(l) } as unknown as Informer;
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
  return { informer, emit, deliver };
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

describe("IdentityIndex generation", () => {
  const setup = () => {
    const keys = fakeInformer();
    const users = fakeInformer();
    const teams = fakeInformer();
    const index = new IdentityIndex(keys.informer, users.informer, teams.informer);
    let seen = index.generation;
    const moved = () => {
      const now = index.generation;
      const changed = now !== seen;
      seen = now;
      return changed;
    };
    return { keys, users, teams, index, moved };
  };

  it("stays for a new key and a new user: they change no identity built before", () => {
    const { keys, users, moved } = setup();
    keys.emit("upsert", obj("OwnedAccessKey", "k", { user: "u", key: "sha256:aa" }));
    assert.ok(!moved(), "a new key only adds an identity");
    users.emit("upsert", obj("User", "u", { groups: ["g"] }));
    assert.ok(!moved(), "a new user: no key of it authenticated before");
  });

  it("moves for a new key whose hash an indexed key of another uid has (a key given by its creator)", () => {
    const { keys, index, moved } = setup();
    keys.emit("upsert", obj("OwnedAccessKey", "first", { user: "u", key: "sha256:aa" }));
    assert.ok(!moved());
    keys.emit("upsert", obj("OwnedAccessKey", "second", { user: "v", key: "sha256:aa" }));
    assert.ok(moved(), "the hash may authenticate as someone else now");
    assert.equal(index.keyByHash("aa")?.metadata.name, "second");
  });

  it("stays for updates of status and metadata only, moves for spec, uid and deletes", () => {
    const { keys, users, teams, moved } = setup();
    const key = obj("OwnedAccessKey", "k", { user: "u", key: "sha256:aa" });
    keys.emit("upsert", key);
    moved();
    const used = { ...key, status: { lastActivity: "2026-01-02T00:00:00Z" } };
    keys.emit("upsert", used, key);
    assert.ok(!moved(), "a key's lastActivity write");
    const login = { ...used, spec: { ...used.spec, identity: { connectorData: "refresh-1", claims: { sub: "u" } } } };
    keys.emit("upsert", login, used);
    assert.ok(!moved(), "spec.identity, which no identity is built from");
    const refreshed = {
      ...login,
      spec: { ...login.spec, identity: { connectorData: "refresh-2", claims: { sub: "u" } } },
    };
    keys.emit("upsert", refreshed, login);
    assert.ok(!moved(), "a single sign-on refresh rewriting a Login key's spec.identity");
    const refreshedAndDisabled = { ...refreshed, spec: { ...refreshed.spec, disabled: true, identity: {} } };
    keys.emit("upsert", refreshedAndDisabled, refreshed);
    assert.ok(moved(), "any other spec change beside it still counts");
    keys.emit("upsert", used, refreshedAndDisabled);
    moved();
    const labelled = { ...used, metadata: { ...used.metadata, labels: { a: "b" } } };
    keys.emit("upsert", labelled, used);
    assert.ok(!moved(), "a key's labels");
    const disabled = { ...labelled, spec: { ...labelled.spec, disabled: true } };
    keys.emit("upsert", disabled, labelled);
    assert.ok(moved(), "a disabled key");
    const recreated = { ...disabled, metadata: { ...disabled.metadata, uid: "other" } };
    keys.emit("upsert", recreated, disabled);
    assert.ok(moved(), "another uid under the same name");
    keys.emit("delete", recreated);
    assert.ok(moved(), "a deleted key");

    const user = obj("User", "u", {});
    users.emit("upsert", user);
    moved();
    users.emit("upsert", { ...user, status: { teams: ["t"] } }, user);
    assert.ok(!moved(), "the user-teams controller's status write");
    users.emit("upsert", { ...user, spec: { disabled: true } }, user);
    assert.ok(moved(), "a disabled user");
    users.emit("upsert", { ...user, spec: { groups: ["g"] } }, user);
    assert.ok(moved(), "a user's groups");
    users.emit("upsert", { ...user, spec: { clusterRoles: [{ name: "r" }] } }, user);
    assert.ok(moved(), "a user's clusterRoles (its roles)");
    users.emit("delete", user);
    assert.ok(moved(), "a deleted user");

    const plain = team("plain", { displayName: "p" });
    teams.emit("upsert", plain);
    assert.ok(!moved(), "a new team naming no members changes no identity");
    teams.emit("upsert", { ...plain, metadata: { ...plain.metadata, annotations: { a: "b" } } }, plain);
    assert.ok(!moved(), "a team's annotations");
    teams.emit("upsert", team("plain", { displayName: "q" }), plain);
    assert.ok(moved(), "an update of a team's spec (its clusterRoles count for roles)");
    teams.emit("upsert", team("members", { users: ["u"] }));
    assert.ok(moved(), "a new team naming users");
    teams.emit("upsert", team("grouped", { groups: ["g"] }));
    assert.ok(moved(), "a new team naming groups");
    teams.emit("delete", team("plain"));
    assert.ok(moved(), "a deleted team (its team keys stop authenticating)");
  });

  it("moves when a key's expiry comes earlier, stays when it moves later", () => {
    const { keys, moved } = setup();
    const key = obj("OwnedAccessKey", "k", { user: "u", key: "sha256:aa", ttl: 3600, ttlAfterLastActivity: true });
    const at = (t: string) => ({ ...key, status: { lastActivity: t } });
    keys.emit("upsert", at("2026-01-02T00:00:00Z"));
    moved();
    keys.emit("upsert", at("2026-01-02T00:05:00Z"), at("2026-01-02T00:00:00Z"));
    assert.ok(!moved(), "later: a cached identity lapses early and is built again");
    keys.emit("upsert", at("2026-01-01T00:00:00Z"), at("2026-01-02T00:05:00Z"));
    assert.ok(moved(), "earlier: a cached identity would outlive the key");
  });

  it("moves when it cannot tell (an object that does not decode): fail closed", () => {
    const { users, index } = setup();
    const before = index.generation;
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
    assert.notEqual(index.generation, before);
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

  it("scans a team's bytes once per event, for the generation, the index and the listeners alike", () => {
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
