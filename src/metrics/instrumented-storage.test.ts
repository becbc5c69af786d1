import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { typeOfKey } from "./instrumented-storage.js";

describe("typeOfKey (the `type` label of storage latency)", () => {
  it("names a resource key's plural and group", () => {
    assert.equal(typeOfKey("/registry/management.platform/teams/core"), "teams.management.platform");
    assert.equal(typeOfKey("/registry/management.platform/teams/"), "teams.management.platform");
    assert.equal(typeOfKey("/registry/management.platform/teams"), "teams.management.platform");
    assert.equal(typeOfKey("/registry/g/users/ns/name"), "users.g");
  });

  it("keeps other keys as they are, up to 64 characters", () => {
    assert.equal(typeOfKey(""), "");
    assert.equal(typeOfKey("/registry/"), "/registry/");
    assert.equal(typeOfKey("/registry//teams/x"), "/registry//teams/x");
    assert.equal(typeOfKey("/registry/group/"), "/registry/group/");
    assert.equal(typeOfKey(`/other/${"x".repeat(100)}`), `/other/${"x".repeat(57)}`);
  });
});
