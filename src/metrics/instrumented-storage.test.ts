import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Storage } from "../storage/interface.js";
import { InstrumentedStorage, typeOfKey } from "./instrumented-storage.js";
import { LabeledHistogram } from "./labeled-series.js";

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

describe("InstrumentedStorage revision checks", () => {
  const checksObserved = (h: LabeledHistogram) => h.series({ operation: "currentRevision", type: "" }).count;

  it("observes a check shared by several callers once, and separate checks each", async () => {
    const histogram = new LabeledHistogram("t", "t", ["operation", "type"], [0.1, 1]);
    let shared = Promise.resolve(7);
    const inner = { currentRevision: () => shared } as unknown as Storage;
    const storage = new InstrumentedStorage(inner, histogram);
    // Three callers of one coalesced check (etcd hands them the same promise).
    const answers = await Promise.all([
      storage.currentRevision(),
      storage.currentRevision(),
      storage.currentRevision(),
    ]);
    assert.deepEqual(answers, [7, 7, 7]);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(checksObserved(histogram), 1);
    // A new check (a new promise) is a new request to the store.
    shared = Promise.resolve(8);
    assert.equal(await storage.currentRevision(), 8);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(checksObserved(histogram), 2);
  });

  it("observes every check of a store that answers each caller on its own", async () => {
    const histogram = new LabeledHistogram("t", "t", ["operation", "type"], [0.1, 1]);
    const inner = { currentRevision: () => Promise.resolve(3) } as unknown as Storage;
    const storage = new InstrumentedStorage(inner, histogram);
    await Promise.all([storage.currentRevision(), storage.currentRevision()]);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(checksObserved(histogram), 2);
  });
});
