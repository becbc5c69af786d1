import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { test } from "node:test";
import { pino } from "pino";
import { logRetry } from "./controller-log.js";
import { type QueueTimers, WorkQueue } from "./work-queue.js";

/** Timers that never fire: the test looks only at the first failures. */
const frozen: QueueTimers = { now: () => 0, set: () => 0, clear: () => {} };

test("a controller's failure is one JSON line on the server's logger, with the key, the attempt and the retry", async () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).trim().split("\n"));
      done();
    },
  });
  const log = pino({ level: "warn" }, sink);
  let calls = 0;
  const queue = new WorkQueue<string>({
    timers: frozen,
    baseDelayMs: 100,
    process: async () => {
      calls++;
      throw new Error(`storage unavailable (${calls})`);
    },
    onError: logRetry(log, "garbage-collector"),
  });
  queue.add("OwnedAccessKey//k1");
  await queue.idle();
  queue.add("OwnedAccessKey//k1"); // asked again before its retry: fails a second time
  await queue.idle();
  const entries = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.equal(entries.length, 2);
  assert.deepEqual(
    entries.map((e) => [e.level, e.controller, e.key, e.attempt, e.retryInMs, (e.err as { message: string }).message]),
    [
      [50, "garbage-collector", "OwnedAccessKey//k1", 1, 100, "storage unavailable (1)"],
      [50, "garbage-collector", "OwnedAccessKey//k1", 2, 200, "storage unavailable (2)"],
    ],
  );
  assert.equal(entries[1]!.msg, "garbage-collector failed on OwnedAccessKey//k1; retrying in 200 ms");
  await queue.shutdown();
});
