import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { histogramSince, histogramSummary, readHistogram } from "./prom-histogram.js";

const text = (fast: number, slow: number) => `# TYPE d histogram
d_bucket{operation="update",type="teams",le="0.005"} ${fast}
d_bucket{operation="update",type="teams",le="0.025"} ${fast + slow}
d_bucket{operation="update",type="teams",le="+Inf"} ${fast + slow}
d_bucket{operation="get",type="teams",le="0.005"} 100
d_bucket{operation="get",type="teams",le="0.025"} 100
d_bucket{operation="get",type="teams",le="+Inf"} 200
d_sum{operation="update",type="teams"} 1
d_count{operation="update",type="teams"} ${fast + slow}
`;

describe("prom-histogram", () => {
  it("reads the chosen series' buckets and what was observed between two reads", () => {
    const before = readHistogram(text(10, 0), "d", 'operation="update"');
    assert.deepEqual(before.cumulative, [10, 10, 10]);
    const after = readHistogram(text(108, 2), "d", 'operation="update"');
    const since = histogramSince(before, after);
    assert.deepEqual(since.cumulative, [98, 100, 100]);
    // 98 of 100 under 5 ms: the p99 falls in the 25 ms bucket, and so does the largest.
    assert.deepEqual(histogramSummary(since, 99), { count: 100, pMs: 25, maxMs: 25 });
    assert.deepEqual(histogramSummary(since, 50), { count: 100, pMs: 5, maxMs: 25 });
  });

  it("sums every series when no label is chosen, and says nothing of an empty one", () => {
    assert.deepEqual(readHistogram(text(1, 1), "d").cumulative, [101, 102, 202]);
    const none = histogramSummary(readHistogram("", "d"), 99);
    assert.equal(none.count, 0);
    assert.ok(Number.isNaN(none.pMs));
  });
});
