import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { jitteredBackoffMs } from "./jittered-backoff.js";

describe("jitteredBackoffMs", () => {
  it("doubles from min to max, each delay drawn from the upper half of its step", () => {
    const ceilings = [1, 2, 3, 4, 5, 6, 7, 50].map((n) => jitteredBackoffMs(n, 50, 2000, () => 1));
    assert.deepEqual(ceilings, [50, 100, 200, 400, 800, 1600, 2000, 2000]);
    const floors = [1, 2, 3, 7, 50].map((n) => jitteredBackoffMs(n, 50, 2000, () => 0));
    assert.deepEqual(floors, [25, 50, 100, 1000, 1000]);
    assert.equal(
      jitteredBackoffMs(3, 50, 2000, () => 0.5),
      150,
    );
  });

  it("stays within its bounds for any draw and any count of failures", () => {
    for (const failures of [0, 1, 2, 10, 1000, Number.MAX_SAFE_INTEGER]) {
      for (let i = 0; i < 50; i++) {
        const d = jitteredBackoffMs(failures, 50, 2000);
        assert.ok(d >= 25 && d <= 2000, `${failures} failures: ${d}`);
      }
    }
  });

  it("treats a max below min as min", () => {
    assert.equal(
      jitteredBackoffMs(5, 100, 10, () => 1),
      100,
    );
  });
});
