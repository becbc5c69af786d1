import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { OwnWrites } from "./own-writes.js";

describe("OwnWrites", () => {
  it("asks for a key's own latest write until the cache has applied it, and nothing for other keys", () => {
    let applied = 0;
    const own = new OwnWrites(() => applied);
    own.wrote("/a", 5);
    own.wrote("/b", 7);
    own.wrote("/c", 7);
    own.wrote("/a", 9);
    assert.equal(own.needed("/a"), 9);
    assert.equal(own.needed("/b"), 7);
    assert.equal(own.needed("/other"), 0);
    applied = 7;
    assert.equal(own.needed("/b"), 0);
    assert.equal(own.needed("/a"), 9);
    applied = 9;
    assert.equal(own.needed("/a"), 0);
  });

  it("stays bounded: applied entries are pruned, and a cache far behind turns them into one floor for every key", () => {
    let applied = 0;
    const own = new OwnWrites(() => applied);
    // The cache keeps up: pruning removes what it applied, nothing else waits.
    for (let i = 1; i <= 10_000; i++) {
      own.wrote(`/k${i}`, i);
      applied = i;
    }
    assert.equal(own.needed("/never-written"), 0);
    // The cache stops: past the bound every key waits for the highest write (the safe old rule).
    const stuck = applied;
    for (let i = 1; i <= 10_000; i++) own.wrote(`/s${i}`, stuck + i);
    assert.ok(own.needed("/never-written") > stuck);
    assert.equal(own.needed("/never-written"), own.needed("/s1"));
  });
});
