import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { EventRing } from "./event-ring.js";
import type { WatchEvent } from "./interface.js";

const ev = (revision: number, key = `k${revision}`): WatchEvent =>
  ({
    type: "put",
    revision,
    kv: { key, value: Buffer.from(""), createRevision: revision, modRevision: revision },
  }) as WatchEvent;
const revisions = (events: WatchEvent[]) => events.map((e) => e.revision);

describe("EventRing", () => {
  it("replays the events after a revision, oldest first, once it wraps", () => {
    const ring = new EventRing(3, 10);
    for (const r of [11, 12, 13, 14, 15]) ring.push(ev(r));
    assert.deepEqual(revisions(ring.after(0)), [13, 14, 15]);
    assert.deepEqual(revisions(ring.after(13)), [14, 15]);
  });

  it("raises its floor to the evicted event's revision (the rest of that transaction may remain)", () => {
    const ring = new EventRing(2, 5);
    ring.push(ev(6, "a"));
    ring.push(ev(6, "b"));
    assert.equal(ring.floor, 5);
    ring.push(ev(7));
    assert.equal(ring.floor, 6, "events of revision 6 are no longer all here");
    assert.deepEqual(revisions(ring.after(6)), [7]);
  });

  it("reset empties it and starts after the given revision", () => {
    const ring = new EventRing(4);
    ring.push(ev(1));
    ring.reset(20);
    assert.equal(ring.floor, 20);
    assert.deepEqual(ring.after(0), []);
  });
});
