import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { setTimeout } from "node:timers/promises";
import { eventLoopSaturation } from "./event-loop-saturation.js";

function spin(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy: the event loop runs this callback the whole time
  }
}

/** A wait long against the 50 ms windows, so that its share of busy time is small however loaded the machine. */
const WAIT_MS = 500;

describe("eventLoopSaturation", () => {
  test("says saturated after a window spent running code, and not after one spent waiting", async () => {
    const saturated = eventLoopSaturation(0.9, 0.9, 50);
    assert.equal(saturated(), false, "nothing measured yet");
    spin(120);
    assert.equal(saturated(), true, "a window of running code");
    // Waiting much longer than the window: on a loaded machine (CI) a callback around the wait
    // can be descheduled while it runs, which counts as busy; 120 ms was not always enough.
    await setTimeout(WAIT_MS);
    assert.equal(saturated(), false, "a window of waiting");
    spin(120);
    assert.equal(saturated(), true, "busy again");
  });

  test("keeps its answer until a whole window has passed", () => {
    const saturated = eventLoopSaturation(0.9, 0.8, 60_000);
    spin(20);
    assert.equal(saturated(), false, "the first window has not ended: still the initial answer");
  });

  test("once saturated, stays so until a window is busy less than `off`", async () => {
    // off = 0: no window is busy less than nothing, so once on it never turns off.
    const sticky = eventLoopSaturation(0.9, 0, 50);
    spin(120);
    assert.equal(sticky(), true);
    await setTimeout(120);
    assert.equal(sticky(), true, "a window of waiting does not turn it off below `off`");
    // And it takes `on` to turn it on in the first place.
    const fresh = eventLoopSaturation(0.9, 0, 50);
    await setTimeout(WAIT_MS);
    assert.equal(fresh(), false);
  });
});
