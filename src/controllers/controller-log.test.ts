import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { test } from "node:test";
import { pino } from "pino";
import { failureLogging } from "./controller-log.js";
import { ControllerWiring } from "./controller-wiring.js";
import { type QueueTimers, WorkQueue } from "./work-queue.js";

/** Timers that never fire: the test adds the key again by hand, as a resync would. */
const frozen: QueueTimers = { now: () => 0, set: () => 0, clear: () => {} };

/** A pino logger at the server's default level, and the JSON lines it wrote. */
function capturedLog(): { log: pino.Logger; entries: () => Array<Record<string, unknown>> } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).trim().split("\n"));
      done();
    },
  });
  return { log: pino({ level: "warn" }, sink), entries: () => lines.map((l) => JSON.parse(l)) };
}

test("a key failing the same way is one JSON line, another failure one more, and its recovery one", async () => {
  const { log, entries } = capturedLog();
  const outcomes = ["down", "down", "down", "refused", "refused", "ok", "down"];
  const queue = new WorkQueue<string>({
    timers: frozen,
    baseDelayMs: 100,
    process: async () => {
      const outcome = outcomes.shift();
      if (outcome !== "ok") throw new Error(`cluster ${outcome}`);
    },
    ...failureLogging(log, "cluster-access"),
  });
  for (let pass = 0; pass < 7; pass++) {
    queue.add("prod");
    await queue.idle();
  }
  assert.deepEqual(outcomes, [], "every pass ran");
  assert.deepEqual(
    entries().map((e) => [
      e.level,
      e.controller,
      e.key,
      e.attempt ?? e.failedAttempts,
      (e.err as { message?: string } | undefined)?.message,
    ]),
    [
      [50, "cluster-access", "prod", 1, "cluster down"],
      [50, "cluster-access", "prod", 4, "cluster refused"],
      [40, "cluster-access", "prod", 5, undefined],
      [50, "cluster-access", "prod", 1, "cluster down"],
    ],
  );
  assert.equal(
    entries()[0]!.msg,
    "cluster-access failed on prod; retrying in 100 ms (the same failure again is not logged)",
  );
  assert.equal(entries()[2]!.msg, "cluster-access succeeded on prod after 5 failed attempts");
  await queue.shutdown();
});

test("a resyncing controller failing the same way at every resync logs it once", async () => {
  const { log, entries } = capturedLog();
  let passes = 0;
  let enough: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    enough = resolve;
  });
  const loop = new ControllerWiring({
    controller: "project-secret-spaces",
    concurrency: 1,
    // Short resyncs: the test waits for passes, counted, never for a time.
    resyncMs: 5,
    log,
    informers: [],
    subscribe: () => [],
    keys: () => ["p-web/dev"],
    process: async () => {
      if (++passes === 8) enough();
      throw new Error('secrets is forbidden: cannot list resource "secrets" in the namespace "web-dev"');
    },
  });
  // The queue's timers do not hold the process open; this one does while the passes run.
  const alive = setInterval(() => {}, 60_000);
  await loop.start();
  await done;
  await loop.stop();
  clearInterval(alive);
  assert.equal(entries().filter((e) => e.key === "p-web/dev").length, 1, JSON.stringify(entries()));
});
