import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { watchReconnectDelayMs } from "./watch-stream.js";

describe("the etcd watch stream's reconnection delay", () => {
  it("is 50 ms doubling to 2 s, jittered within the upper half of each step", () => {
    const ceilings = [1, 2, 3, 4, 5, 6, 7, 100].map((n) => watchReconnectDelayMs(n, () => 1));
    assert.deepEqual(ceilings, [50, 100, 200, 400, 800, 1600, 2000, 2000]);
    const floors = [1, 2, 6, 100].map((n) => watchReconnectDelayMs(n, () => 0));
    assert.deepEqual(floors, [25, 50, 800, 1000]);
  });

  it("differs between replicas that lost etcd at the same moment", () => {
    const draws = new Set(Array.from({ length: 20 }, () => watchReconnectDelayMs(7)));
    assert.ok(draws.size > 1, "every replica would reconnect at the same instant");
    for (const d of draws) assert.ok(d >= 1000 && d <= 2000, String(d));
  });
});
