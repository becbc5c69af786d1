import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type QueueTimers, type RetryInfo, WorkQueue } from "./work-queue.js";

/** A clock the test moves by hand: timers fire only in advance(). */
class ManualTimers implements QueueTimers {
  private time = 0;
  private readonly pending = new Map<number, { at: number; fn: () => void }>();
  private next = 1;
  now(): number {
    return this.time;
  }
  set(fn: () => void, ms: number): unknown {
    const id = this.next++;
    this.pending.set(id, { at: this.time + ms, fn });
    return id;
  }
  clear(handle: unknown): void {
    this.pending.delete(handle as number);
  }
  /** Delays of the timers armed now, shortest first. */
  get delays(): number[] {
    return [...this.pending.values()].map((p) => p.at - this.time).sort((a, b) => a - b);
  }
  advance(ms: number): void {
    this.time += ms;
    for (const [id, p] of [...this.pending]) {
      if (p.at <= this.time) {
        this.pending.delete(id);
        p.fn();
      }
    }
  }
}

/** A promise the test resolves or rejects when it likes. */
function gate() {
  let open!: () => void;
  let fail!: (err: Error) => void;
  const promise = new Promise<void>((resolve, reject) => {
    open = resolve;
    fail = reject;
  });
  return { promise, open, fail };
}

const turn = () => new Promise((r) => setImmediate(r));

describe("WorkQueue", () => {
  it("processes a key added several times before it starts once", async () => {
    const seen: string[] = [];
    const q = new WorkQueue<string>({ process: async (k) => void seen.push(k) });
    for (const k of ["a", "b", "a", "a", "c", "b"]) q.add(k);
    assert.equal(q.length, 3);
    await q.idle();
    assert.deepEqual(seen, ["a", "b", "c"]);
    assert.equal(q.length, 0);
  });

  it("never processes one key twice at once; a re-add while processing runs once more after, at the back", async () => {
    const seen: string[] = [];
    const gates = new Map<string, ReturnType<typeof gate>>();
    let inFlight = 0;
    let maxInFlightA = 0;
    const q = new WorkQueue<string>({
      concurrency: 4,
      process: async (k) => {
        seen.push(k);
        if (k === "a") maxInFlightA = Math.max(maxInFlightA, ++inFlight);
        const g = gate();
        gates.set(k, g);
        await g.promise;
        if (k === "a") inFlight--;
      },
    });
    q.add("a");
    await turn();
    await turn();
    assert.deepEqual(seen, ["a"]);
    q.add("a");
    q.add("a"); // once more after, not twice
    q.add("b");
    await turn();
    await turn();
    assert.deepEqual(seen, ["a", "b"], "the second a waits for the first, b does not");
    gates.get("a")!.open();
    await turn();
    await turn();
    assert.deepEqual(seen, ["a", "b", "a"]);
    gates.get("a")!.open();
    gates.get("b")!.open();
    await q.idle();
    assert.deepEqual(seen, ["a", "b", "a"]);
    assert.equal(maxInFlightA, 1);
  });

  it("runs at most `concurrency` keys at once, oldest first, and a re-added key goes behind those waiting", async () => {
    const started: string[] = [];
    const gates = new Map<string, ReturnType<typeof gate>>();
    const q = new WorkQueue<string>({
      concurrency: 2,
      process: async (k) => {
        started.push(k);
        const g = gate();
        gates.set(k, g);
        await g.promise;
      },
    });
    for (const k of ["a", "b", "c", "d"]) q.add(k);
    await turn();
    await turn();
    assert.deepEqual(started, ["a", "b"]);
    q.add("a"); // asked again during its run
    gates.get("a")!.open();
    await turn();
    await turn();
    assert.deepEqual(started, ["a", "b", "c"], "c waited longer than the re-added a");
    gates.get("b")!.open();
    await turn();
    await turn();
    assert.deepEqual(started, ["a", "b", "c", "d"]);
    gates.get("c")!.open();
    await turn();
    await turn();
    assert.deepEqual(started, ["a", "b", "c", "d", "a"]);
    gates.get("d")!.open();
    gates.get("a")!.open();
    await q.idle();
  });

  it("retries a failing key with exponential backoff up to a cap, and forgets its failures on success", async () => {
    const timers = new ManualTimers();
    const errors: Array<{ key: string; retry: RetryInfo }> = [];
    let failUntil = 5;
    let calls = 0;
    const q = new WorkQueue<string>({
      timers,
      baseDelayMs: 100,
      maxDelayMs: 500,
      process: async () => {
        calls++;
        if (calls <= failUntil) throw new Error(`failure ${calls}`);
      },
      onError: (_err, key, retry) => errors.push({ key, retry }),
    });
    q.add("k");
    for (const delay of [100, 200, 400, 500, 500]) {
      await q.idle();
      assert.deepEqual(timers.delays, [delay]);
      assert.equal(q.delayedCount, 1);
      timers.advance(delay - 1);
      await turn();
      assert.equal(q.delayedCount, 1, "not before its time");
      timers.advance(1);
      await turn();
    }
    await q.idle();
    assert.equal(calls, 6);
    assert.deepEqual(
      errors.map((e) => [e.key, e.retry.attempt, e.retry.delayMs]),
      [
        ["k", 1, 100],
        ["k", 2, 200],
        ["k", 3, 400],
        ["k", 4, 500],
        ["k", 5, 500],
      ],
    );
    assert.equal(q.failuresOf("k"), 0, "forgotten on success");
    assert.deepEqual(timers.delays, []);
    // The next failure starts from the base delay again.
    failUntil = 7;
    q.add("k");
    await q.idle();
    assert.deepEqual(timers.delays, [100]);
    assert.equal(q.failuresOf("k"), 1);
  });

  it("addAfter keeps the earlier of two times for one key", async () => {
    const timers = new ManualTimers();
    const seen: string[] = [];
    const q = new WorkQueue<string>({ timers, process: async (k) => void seen.push(k) });
    q.addAfter("k", 1000);
    q.addAfter("k", 300);
    q.addAfter("k", 2000);
    assert.deepEqual(timers.delays, [300]);
    timers.advance(300);
    await q.idle();
    assert.deepEqual(seen, ["k"]);
    assert.equal(q.delayedCount, 0);
  });

  it("a delay longer than one timer may wait is re-armed until it is due", async () => {
    const timers = new ManualTimers();
    const seen: string[] = [];
    const q = new WorkQueue<string>({ timers, process: async (k) => void seen.push(k) });
    const hour = 60 * 60 * 1000;
    q.addAfter("k", 2.5 * hour);
    assert.deepEqual(timers.delays, [hour]);
    timers.advance(hour);
    timers.advance(hour);
    assert.deepEqual(timers.delays, [hour / 2]);
    await turn();
    assert.deepEqual(seen, []);
    timers.advance(hour / 2);
    await q.idle();
    assert.deepEqual(seen, ["k"]);
  });

  it("idle() waits for the keys being processed", async () => {
    const g = gate();
    let done = false;
    const q = new WorkQueue<string>({
      process: async () => {
        await g.promise;
        done = true;
      },
    });
    q.add("k");
    let idle = false;
    const waiting = q.idle().then(() => {
      idle = true;
    });
    await turn();
    await turn();
    assert.equal(idle, false);
    g.open();
    await waiting;
    assert.equal(done, true);
  });

  it("shutdown waits for the keys in flight, drops the waiting and delayed ones, and takes no more", async () => {
    const timers = new ManualTimers();
    const g = gate();
    const seen: string[] = [];
    const q = new WorkQueue<string>({
      timers,
      process: async (k) => {
        seen.push(k);
        if (k === "slow") await g.promise;
      },
    });
    q.add("slow");
    await turn();
    await turn();
    q.add("waiting");
    q.add("slow");
    q.addAfter("later", 100);
    let finished = false;
    const stopping = q.shutdown().then(() => {
      finished = true;
    });
    await turn();
    assert.equal(finished, false, "the key in flight is still running");
    g.open();
    await stopping;
    q.add("after");
    timers.advance(1000);
    await turn();
    await q.idle();
    assert.deepEqual(seen, ["slow"]);
    assert.deepEqual(timers.delays, []);
  });

  it("a failure during shutdown is not retried", async () => {
    const timers = new ManualTimers();
    const g = gate();
    const errors: string[] = [];
    const q = new WorkQueue<string>({
      timers,
      process: () => g.promise,
      onError: (_e, k) => errors.push(k),
    });
    q.add("k");
    await turn();
    await turn();
    const stopping = q.shutdown();
    g.fail(new Error("lost the connection"));
    await stopping;
    assert.deepEqual(errors, []);
    assert.deepEqual(timers.delays, []);
  });
});
