import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type ChangeSource, RecentSessions } from "./recent-sessions.js";

/** A store's change reports, driven by the test. */
class FakeSource implements ChangeSource {
  changed?: (ids: string[]) => void;
  failed?: (err: Error) => void;
  watches = 0;
  closed = 0;

  async watchIds(changed: (ids: string[]) => void, failed: (err: Error) => void) {
    this.watches++;
    this.changed = changed;
    this.failed = failed;
    return { close: () => this.closed++ };
  }
}

describe("RecentSessions: what a replica remembers of sessions", () => {
  it("keeps nothing before it follows the store, then keeps until the time is up", async () => {
    const source = new FakeSource();
    const recent = new RecentSessions<string>(source, 5000, 10, () => {});
    recent.keep("a", "A", recent.ticket(), 0);
    assert.equal(recent.get("a", 1), undefined);
    await recent.start();
    recent.keep("a", "A", recent.ticket(), 0);
    assert.equal(recent.get("a", 4999), "A");
    assert.equal(recent.get("a", 5000), undefined);
    recent.stop();
    assert.equal(source.closed, 1);
  });

  it("drops a lookup begun while the watch was starting: a removal before the watch is never reported", async () => {
    let begin: () => void = () => {};
    const source = new FakeSource();
    const watchIds = source.watchIds.bind(source);
    source.watchIds = async (changed, failed) => {
      await new Promise<void>((resolve) => {
        begin = resolve;
      });
      return watchIds(changed, failed);
    };
    const recent = new RecentSessions<string>(source, 5000, 10, () => {});
    const started = recent.start();
    // Read from the store now; signed out on another replica before the watch begins.
    const ticket = recent.ticket();
    begin();
    await started;
    recent.keep("a", "signed out", ticket, 0);
    assert.equal(recent.get("a", 1), undefined);
    recent.keep("a", "A", recent.ticket(), 0);
    assert.equal(recent.get("a", 1), "A", "a lookup begun once the watch runs is kept");
    recent.stop();
  });

  it("forgets a session the store reports changed, and drops a lookup that raced a change", async () => {
    const source = new FakeSource();
    const recent = new RecentSessions<string>(source, 5000, 10, () => {});
    await recent.start();
    recent.keep("a", "A", recent.ticket(), 0);
    recent.keep("b", "B", recent.ticket(), 0);
    source.changed!(["a"]);
    assert.equal(recent.get("a", 1), undefined);
    assert.equal(recent.get("b", 1), "B");
    const ticket = recent.ticket();
    source.changed!(["c"]);
    recent.keep("c", "stale", ticket, 1);
    assert.equal(recent.get("c", 2), undefined);
    recent.forget("b");
    assert.equal(recent.get("b", 2), undefined);
    recent.stop();
  });

  it("a lost watch forgets everything and keeps nothing until it follows the store again", async () => {
    const source = new FakeSource();
    const errors: unknown[] = [];
    const recent = new RecentSessions<string>(source, 5000, 10, (err) => errors.push(err));
    await recent.start();
    recent.keep("a", "A", recent.ticket(), 0);
    source.failed!(new Error("compacted"));
    assert.equal(errors.length, 1);
    assert.equal(recent.get("a", 1), undefined);
    recent.keep("a", "A", recent.ticket(), 1);
    assert.equal(recent.get("a", 2), undefined);
    await recent.start();
    assert.equal(source.watches, 2);
    recent.keep("a", "A", recent.ticket(), 2);
    assert.equal(recent.get("a", 3), "A");
    recent.stop();
  });

  it("holds at most `max` sessions, the oldest go first", async () => {
    const recent = new RecentSessions<number>(new FakeSource(), 5000, 3, () => {});
    await recent.start();
    for (let i = 0; i < 5; i++) recent.keep(`s${i}`, i, recent.ticket(), 0);
    assert.deepEqual(
      [0, 1, 2, 3, 4].map((i) => recent.get(`s${i}`, 1)),
      [undefined, undefined, 2, 3, 4],
    );
    recent.stop();
  });
});
