import { type EventLoopUtilization, performance } from "node:perf_hooks";

/**
 * Whether this thread's event loop is saturated, judged over the last full window of `windowMs`
 * when asked (node's event-loop utilization: the share of time spent running callbacks rather
 * than waiting for I/O). Cheap enough to ask per batch.
 *
 * With hysteresis: saturated once a window was busy `on` of the time or more, and until one is
 * busy less than `off`. What this decides (coalesced-read.ts: pacing the revision checks) lowers
 * the load it is judged on: a server paced at full load idles a little while its requests wait,
 * and a single threshold then turned the pacing off every other window.
 */
export function eventLoopSaturation(on = 0.9, off = 0.8, windowMs = 100): () => boolean {
  let since: EventLoopUtilization = performance.eventLoopUtilization();
  let sinceAt = performance.now();
  let saturated = false;
  return () => {
    const now = performance.now();
    if (now - sinceAt >= windowMs) {
      const current = performance.eventLoopUtilization();
      const busy = performance.eventLoopUtilization(current, since).utilization;
      saturated = busy >= (saturated ? off : on);
      since = current;
      sinceAt = now;
    }
    return saturated;
  };
}
