import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cpuTimes, stealShare } from "./host-steal.js";

describe("host steal", () => {
  it("is the steal share of the CPU time between two reads", () => {
    assert.equal(stealShare({ steal: 10, total: 1000 }, { steal: 30, total: 1200 }), 0.1);
    assert.ok(Number.isNaN(stealShare(undefined, { steal: 1, total: 2 })));
    assert.ok(Number.isNaN(stealShare({ steal: 1, total: 2 }, { steal: 1, total: 2 })));
  });

  it("reads this machine's /proc/stat", () => {
    const t = cpuTimes();
    assert.ok(t !== undefined && t.total > 0 && t.steal >= 0 && t.steal <= t.total);
  });
});
