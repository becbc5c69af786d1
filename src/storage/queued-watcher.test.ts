import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { WatchEvent } from "./interface.js";
import { QueuedWatcher } from "./queued-watcher.js";

const put = (key: string, revision: number): WatchEvent => ({
  type: "put",
  kv: { key, value: Buffer.from("{}"), createRevision: revision, modRevision: revision },
  revision,
});

describe("QueuedWatcher.progressNow", () => {
  it("delivers progress before returning, after the events queued before it", () => {
    const seen: string[] = [];
    const w = new QueuedWatcher(
      "/a/",
      0,
      {
        onEvents: (events) => seen.push(...events.map((e) => `event ${e.revision}`)),
        onProgress: (revision) => seen.push(`progress ${revision}`),
        onError: () => seen.push("error"),
      },
      () => {},
    );
    w.offer([put("/a/x", 1)]); // queued for a microtask
    w.progressNow(2);
    assert.deepEqual(seen, ["event 1", "progress 2"]);
    w.offerNow([put("/b/other", 3)]); // another prefix: dropped
    w.progressNow(3);
    assert.deepEqual(seen, ["event 1", "progress 2", "progress 3"]);
  });

  it("called from the consumer's own callback, it is delivered after that callback returns", () => {
    const seen: string[] = [];
    const w: QueuedWatcher = new QueuedWatcher(
      "/a/",
      0,
      {
        onEvents: (events) => {
          seen.push(`event ${events[0]!.revision} begins`);
          w.progressNow(events[0]!.revision);
          seen.push(`event ${events[0]!.revision} ends`);
        },
        onProgress: (revision) => seen.push(`progress ${revision}`),
        onError: () => {},
      },
      () => {},
    );
    w.offerNow([put("/a/x", 4)]);
    assert.deepEqual(seen, ["event 4 begins", "event 4 ends", "progress 4"]);
  });

  it("is a no-op for a consumer without onProgress and after the watch ended", () => {
    let events = 0;
    const w = new QueuedWatcher("/a/", 0, { onEvents: () => events++, onError: () => {} }, () => {});
    w.progressNow(5);
    w.close();
    w.offerNow([put("/a/x", 6)]);
    w.progressNow(6);
    assert.equal(events, 0);
  });
});

describe("QueuedWatcher.offerNow on a shared feed", () => {
  it("passes on exactly the events under its prefix and after its revision, in order, and nothing for a batch it wants none of", () => {
    const batches: number[][] = [];
    const w = new QueuedWatcher(
      "/a/",
      2,
      { onEvents: (events) => batches.push(events.map((e) => e.revision)), onError: () => {} },
      () => {},
    );
    const batch = [put("/a/x", 3), put("/b/y", 4), put("/a/z", 5), put("/a", 6), put("/ab/c", 7), put("/a/w", 8)];
    w.offerNow(batch);
    w.offerNow([put("/b/q", 9), put("/c/r", 10)]);
    w.offerNow([put("/a/old", 8), put("/b/s", 11), put("/a/new", 12)]);
    assert.deepEqual(batches, [[3, 5, 8], [12]]);
    // The batch it wanted whole is passed on as it is (shared, not copied).
    const whole = [put("/a/1", 13), put("/a/2", 14)];
    let got: readonly WatchEvent[] | undefined;
    const v = new QueuedWatcher("/a/", 0, { onEvents: (events) => (got = events), onError: () => {} }, () => {});
    v.offerNow(whole);
    assert.equal(got, whole);
  });
});
