import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../api/object.js";
import type { Informer, InformerEvent } from "../registry/informer.js";
import { IdentityIndex } from "./identity-index.js";

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
    for (const l of listeners) l(e);
  };
  return { informer, emit };
}

const team = (name: string, spec: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: "management.platform/v1",
  kind: "Team",
  metadata: { name, uid: `uid-${name}` },
  spec,
});

describe("IdentityIndex generation", () => {
  const setup = () => {
    const keys = fakeInformer();
    const users = fakeInformer();
    const teams = fakeInformer();
    return { keys, users, teams, index: new IdentityIndex(keys.informer, users.informer, teams.informer) };
  };

  it("moves on for every key and user change, and for team changes that may change an identity", () => {
    const { keys, users, teams, index } = setup();
    let seen = index.generation;
    const moved = () => {
      const now = index.generation;
      const changed = now !== seen;
      seen = now;
      return changed;
    };
    keys.emit("upsert", { metadata: { name: "k" }, spec: {} } as KubeObject);
    assert.ok(moved(), "a key");
    users.emit("upsert", { metadata: { name: "u" }, spec: {} } as KubeObject);
    assert.ok(moved(), "a user");
    teams.emit("upsert", team("members", { users: ["u"] }));
    assert.ok(moved(), "a new team naming users");
    teams.emit("upsert", team("grouped", { groups: ["g"] }));
    assert.ok(moved(), "a new team naming groups");
    teams.emit("upsert", team("plain", { displayName: "p" }), team("plain"));
    assert.ok(moved(), "an update of a team (its clusterRoles count for roles)");
    teams.emit("delete", team("plain"));
    assert.ok(moved(), "a deleted team (its team keys stop authenticating)");
    teams.emit("upsert", team("lonely", { displayName: "nobody in it" }));
    assert.ok(!moved(), "a new team naming no members changes no identity");
  });
});
