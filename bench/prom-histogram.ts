/**
 * A Prometheus histogram read from a /metrics text, summed over every series whose labels
 * contain `labelsInclude`, and the difference of two such reads: what was observed in between.
 * The bench uses it to say where a tail came from (etcd's WAL fsyncs, replica A's etcd calls)
 * without adding timers of its own to the processes it measures.
 */
export interface HistogramCounts {
  /** Upper bounds (seconds), ascending, +Inf last. */
  bounds: number[];
  /** Cumulative counts per bound. */
  cumulative: number[];
}

export function readHistogram(text: string, name: string, labelsInclude = ""): HistogramCounts {
  const byBound = new Map<number, number>();
  const line = new RegExp(`^${name}_bucket\\{([^}]*)\\} (\\S+)$`, "gm");
  for (const m of text.matchAll(line)) {
    const labels = m[1]!;
    if (!labels.includes(labelsInclude)) continue;
    const le = /le="([^"]+)"/.exec(labels)?.[1];
    if (le === undefined) continue;
    const bound = le === "+Inf" ? Number.POSITIVE_INFINITY : Number(le);
    byBound.set(bound, (byBound.get(bound) ?? 0) + Number(m[2]));
  }
  const bounds = [...byBound.keys()].sort((a, b) => a - b);
  return { bounds, cumulative: bounds.map((b) => byBound.get(b)!) };
}

/** What `after` observed since `before` (same metric, same labels). */
export function histogramSince(before: HistogramCounts, after: HistogramCounts): HistogramCounts {
  const earlier = new Map(before.bounds.map((b, i) => [b, before.cumulative[i]!]));
  return {
    bounds: after.bounds,
    cumulative: after.cumulative.map((c, i) => c - (earlier.get(after.bounds[i]!) ?? 0)),
  };
}

/** How many observations; the bucket bound (ms) under which `p`% of them fell; the largest bound any reached (ms). */
export function histogramSummary(h: HistogramCounts, p: number): { count: number; pMs: number; maxMs: number } {
  const count = h.cumulative.at(-1) ?? 0;
  const rank = Math.ceil((p / 100) * count);
  const at = h.cumulative.findIndex((c) => c >= rank);
  const firstFull = h.cumulative.findIndex((c) => c >= count);
  const ms = (i: number) => (i < 0 ? Number.NaN : 1000 * h.bounds[i]!);
  return { count, pMs: count ? ms(at) : Number.NaN, maxMs: count ? ms(firstFull) : Number.NaN };
}
