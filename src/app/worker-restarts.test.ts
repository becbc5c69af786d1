import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { afterExit, type ExitCounts, MAX_START_FAILURES } from "./worker-restarts.js";

describe("restarting a worker that exited", () => {
  it("waits 1 s, doubling up to 30 s while it keeps dying soon after serving", () => {
    const counts: ExitCounts = { failures: 0, startFailures: 0 };
    const delays = Array.from({ length: 7 }, () => afterExit(counts, 5_000));
    assert.deepEqual(
      delays,
      [1, 2, 4, 8, 16, 30, 30].map((s) => ({ restartInMs: s * 1000 })),
    );
    // A worker that served a minute or more is restarted quickly again.
    assert.deepEqual(afterExit(counts, 60_000), { restartInMs: 1000 });
  });

  it("gives up on a worker that exits again and again before it serves", () => {
    const counts: ExitCounts = { failures: 0, startFailures: 0 };
    for (let i = 1; i < MAX_START_FAILURES; i++) assert.ok("restartInMs" in afterExit(counts, undefined));
    assert.deepEqual(afterExit(counts, undefined), {
      giveUp: `it exited ${MAX_START_FAILURES} times in a row before it served`,
    });
  });

  it("counts only exits in a row before serving towards giving up", () => {
    const counts: ExitCounts = { failures: 0, startFailures: 0 };
    for (let round = 0; round < 3; round++) {
      for (let i = 1; i < MAX_START_FAILURES; i++) assert.ok("restartInMs" in afterExit(counts, undefined));
      // It served in between (briefly): the next failures start a new count.
      assert.ok("restartInMs" in afterExit(counts, 1_000));
    }
  });
});
