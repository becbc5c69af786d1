import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { CoalescedRead, type CoalescedReadOptions } from "./coalesced-read.js";

const turn = () => new Promise((r) => setImmediate(r));

/** A read whose answers the test hands out one at a time; each answers the "writes" made before it was sent. */
function controlledRead(options: CoalescedReadOptions = {}) {
  const pending: (() => void)[] = [];
  let value = 0;
  const read = new CoalescedRead<number>(
    () =>
      new Promise<number>((resolve) => {
        const sentAt = value;
        pending.push(() => resolve(sentAt));
      }),
    options,
  );
  return {
    read,
    /** A "write": what any read sent from now on sees. */
    write: () => ++value,
    /** Answers the oldest read in flight. */
    answer: async () => {
      pending.shift()?.();
      await turn();
    },
    inFlight: () => pending.length,
  };
}

describe("coalesced read", () => {
  test("callers of one event-loop turn share one read, sent at the end of the turn", async () => {
    const c = controlledRead();
    const callers = [c.read.get(), c.read.get(), c.read.get()];
    assert.equal(c.inFlight(), 0, "nothing is sent before the turn ends");
    await turn();
    assert.equal(c.inFlight(), 1);
    await c.answer();
    assert.deepEqual(await Promise.all(callers), [0, 0, 0]);
    assert.equal(c.read.reads, 1);
  });

  test("a caller never gets the answer of a read sent before it asked", async () => {
    const c = controlledRead({ maxInFlight: 1 });
    const first = c.read.get();
    await turn();
    // A write acknowledged after the first read was sent, then three callers.
    c.write();
    const joined = [c.read.get(), c.read.get(), c.read.get()];
    await turn();
    assert.equal(c.inFlight(), 1, "with one read allowed out, the joined callers wait for it to return");
    await c.answer();
    assert.equal(await first, 0);
    assert.equal(c.inFlight(), 1, "then one read serves all three");
    await c.answer();
    assert.deepEqual(await Promise.all(joined), [1, 1, 1], "each sees the write made before it asked");
    assert.equal(c.read.reads, 2);
  });

  test("a second read goes out while the first is in flight, a third waits for room", async () => {
    const c = controlledRead({ maxInFlight: 2 });
    const first = c.read.get();
    await turn();
    c.write();
    const second = c.read.get();
    await turn();
    assert.equal(c.inFlight(), 2, "the second batch did not wait for the first read");
    c.write();
    const third = [c.read.get(), c.read.get()];
    await turn();
    assert.equal(c.inFlight(), 2, "no more than two reads out");
    c.write();
    const alsoThird = c.read.get();
    await c.answer();
    assert.equal(await first, 0);
    assert.equal(c.inFlight(), 2, "the waiting batch went out as soon as there was room");
    await c.answer();
    assert.equal(await second, 1);
    await c.answer();
    assert.deepEqual(await Promise.all([...third, alsoThird]), [3, 3, 3], "sent after all three writes");
    assert.equal(c.read.reads, 3);
  });

  test("a failed read fails only its callers; the next batch still goes out", async () => {
    let calls = 0;
    const read = new CoalescedRead<number>(async () => {
      calls++;
      if (calls === 1) throw new Error("unavailable");
      return calls;
    });
    const failed = assert.rejects(read.get(), /unavailable/);
    await turn();
    const next = read.get();
    await failed;
    assert.equal(await next, 2);
    assert.equal(await read.get(), 3);
  });

  test("a read that throws at once is a failed read, not a crash", async () => {
    let calls = 0;
    const read = new CoalescedRead<number>(() => {
      calls++;
      if (calls === 1) throw new Error("closed");
      return Promise.resolve(calls);
    });
    await assert.rejects(read.get(), /closed/);
    assert.equal(await read.get(), 2);
  });

  test("under load reads are paced: none sooner than minIntervalMs after the previous", async () => {
    const c = controlledRead({ minIntervalMs: 150, loaded: () => true });
    const busy = [c.read.get(), c.read.get(), c.read.get()];
    await turn();
    assert.equal(c.inFlight(), 1, "the first read goes out at the end of the turn");
    const sentAt = performance.now();
    await c.answer();
    assert.deepEqual(await Promise.all(busy), [0, 0, 0]);
    // The server is loaded: the next waits out the interval, and callers meanwhile join it.
    c.write();
    const next = [c.read.get()];
    await turn();
    assert.equal(c.inFlight(), 0, "not sent yet: paced");
    c.write();
    next.push(c.read.get());
    while (c.inFlight() === 0) await new Promise((r) => setTimeout(r, 5));
    assert.ok(performance.now() - sentAt >= 145, "sent once the interval had passed");
    await c.answer();
    assert.deepEqual(await Promise.all(next), [2, 2], "one read for both, sent after both writes");
    assert.equal(c.read.reads, 2);
  });

  test("a server with time to spare is never paced", async () => {
    const c = controlledRead({ minIntervalMs: 10_000, loaded: () => false });
    for (let i = 1; i <= 3; i++) {
      const one = c.read.get();
      await turn();
      assert.equal(c.inFlight(), 1, `read ${i} went out at the end of its turn`);
      await c.answer();
      assert.equal(await one, i - 1);
      c.write();
    }
    assert.equal(c.read.reads, 3);
  });
});
