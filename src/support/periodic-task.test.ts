import assert from "node:assert/strict";
import { afterEach, describe, it, mock } from "node:test";
import { PeriodicTask } from "./periodic-task.js";

/** A promise with its resolve and reject at hand. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** The onError of tasks that must not fail. */
const unexpected = (err: unknown) => assert.fail(`unexpected error: ${String(err)}`);

/** Lets pending promise callbacks run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("PeriodicTask", () => {
  afterEach(() => mock.timers.reset());

  it("runs at most once at a time: callers asking meanwhile join the run and get its result", async () => {
    const gate = deferred<number>();
    let calls = 0;
    const task = new PeriodicTask(
      () => {
        calls++;
        return gate.promise;
      },
      { onError: unexpected },
    );
    const first = task.run();
    const second = task.run();
    task.trigger();
    assert.equal(calls, 1);
    gate.resolve(7);
    assert.deepEqual(await Promise.all([first, second]), [7, 7]);
    // Done: the next ask starts a new run.
    assert.equal(await task.run(), 7);
    assert.equal(calls, 2);
  });

  it("run() rejects with the work's error; trigger() hands it to onError; the next run starts afresh", async () => {
    const errors: unknown[] = [];
    let fail = true;
    const task = new PeriodicTask(
      async () => {
        if (fail) throw new Error("store down");
        return "ok";
      },
      { onError: (err) => errors.push(err) },
    );
    await assert.rejects(task.run(), /store down/);
    task.trigger();
    await task.idle();
    assert.deepEqual(
      errors.map((e) => (e as Error).message),
      ["store down"],
    );
    fail = false;
    assert.equal(await task.run(), "ok");
  });

  it("a work that throws before its first await rejects like one that fails later", async () => {
    const errors: unknown[] = [];
    const task = new PeriodicTask<void>(
      () => {
        throw new Error("at once");
      },
      { onError: (err) => errors.push(err) },
    );
    await assert.rejects(task.run(), /at once/);
    task.trigger();
    await task.idle();
    assert.equal(errors.length, 1);
  });

  it("runs on its interval once started, skips ticks while a run is under way, reports their errors", async () => {
    mock.timers.enable({ apis: ["setInterval"] });
    const errors: unknown[] = [];
    let gate = deferred<void>();
    let calls = 0;
    const task = new PeriodicTask(
      () => {
        calls++;
        return gate.promise;
      },
      { intervalMs: 1000, onError: (err) => errors.push(err) },
    );
    mock.timers.tick(5000);
    assert.equal(calls, 0, "nothing before start()");
    task.start();
    task.start(); // a second start adds no second timer
    mock.timers.tick(999);
    assert.equal(calls, 0);
    mock.timers.tick(1);
    assert.equal(calls, 1);
    mock.timers.tick(3000);
    assert.equal(calls, 1, "ticks during a run join it");
    gate.reject(new Error("tick failed"));
    await task.idle();
    assert.deepEqual(
      errors.map((e) => (e as Error).message),
      ["tick failed"],
    );
    gate = deferred<void>();
    mock.timers.tick(1000);
    assert.equal(calls, 2);
    gate.resolve();
    await task.stop();
  });

  it("stop() cancels the timer and waits for the run under way", async () => {
    mock.timers.enable({ apis: ["setInterval"] });
    const gate = deferred<void>();
    let calls = 0;
    let finished = false;
    const task = new PeriodicTask(
      async () => {
        calls++;
        await gate.promise;
        finished = true;
      },
      { intervalMs: 1000, onError: unexpected },
    );
    task.start();
    mock.timers.tick(1000);
    assert.equal(calls, 1);
    let stopped = false;
    const stopping = task.stop().then(() => {
      stopped = true;
    });
    await settle();
    assert.equal(stopped, false, "stop() returned before the run ended");
    gate.resolve();
    await stopping;
    assert.equal(finished, true);
    mock.timers.tick(10_000);
    assert.equal(calls, 1, "the timer still ticks after stop()");
    // Asked for after stop(), it still runs (on demand only), and start() starts the timer again.
    await task.run();
    assert.equal(calls, 2);
    task.start();
    mock.timers.tick(1000);
    await task.stop();
    assert.equal(calls, 3);
  });

  it("its timer does not keep the process alive", async () => {
    const timers: NodeJS.Timeout[] = [];
    const real = globalThis.setInterval;
    const spy = mock.method(globalThis, "setInterval", (...args: Parameters<typeof setInterval>) => {
      const timer = real(...args);
      timers.push(timer);
      return timer;
    });
    const task = new PeriodicTask(async () => {}, { intervalMs: 3_600_000, onError: unexpected });
    try {
      task.start();
    } finally {
      spy.mock.restore();
    }
    assert.equal(timers.length, 1);
    assert.equal(timers[0]!.hasRef(), false);
    await task.stop();
  });
});
