import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { CoalescedRead } from "./coalesced-read.js";

/** A read whose answers the test hands out one at a time. */
function controlledRead() {
  const pending: ((value: number) => void)[] = [];
  let value = 0;
  const read = new CoalescedRead<number>(
    () =>
      new Promise<number>((resolve) => {
        const startedAt = value;
        pending.push(() => resolve(startedAt));
      }),
  );
  return {
    read,
    /** A "write": what any read started from now on sees. */
    write: () => ++value,
    /** Answers the oldest read in flight. */
    answer: async () => {
      pending.shift()?.(0);
      await new Promise((r) => setImmediate(r));
    },
    inFlight: () => pending.length,
  };
}

describe("coalesced read", () => {
  test("callers that arrive during a read share the next one, never the one in flight", async () => {
    const c = controlledRead();
    const first = c.read.get();
    // A write acknowledged after the first read was sent, then three callers.
    c.write();
    const joined = [c.read.get(), c.read.get(), c.read.get()];
    assert.equal(c.inFlight(), 1, "the joined callers wait for the first read to return");
    await c.answer();
    assert.equal(await first, 0);
    assert.equal(c.inFlight(), 1, "one read serves all three");
    await c.answer();
    assert.deepEqual(await Promise.all(joined), [1, 1, 1], "each sees the write made before it asked");
    assert.equal(c.read.reads, 2);
  });

  test("a caller after everything settled starts a fresh read; a failed read fails only its callers", async () => {
    let calls = 0;
    const read = new CoalescedRead<number>(async () => {
      calls++;
      if (calls === 1) throw new Error("unavailable");
      return calls;
    });
    const failed = read.get();
    const next = read.get();
    await assert.rejects(failed, /unavailable/);
    assert.equal(await next, 2);
    assert.equal(await read.get(), 3);
  });
});
