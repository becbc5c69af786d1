import { type EventLoopUtilization, performance } from "node:perf_hooks";

/**
 * Whether this thread's event loop was busy at least `threshold` of the time lately: over the
 * last full window of `windowMs`, measured when asked (node's event-loop utilization, the share
 * of time spent running callbacks rather than waiting for I/O). Cheap enough to ask per batch.
 */
export function eventLoopSaturation(threshold = 0.9, windowMs = 100): () => boolean {
  let since: EventLoopUtilization = performance.eventLoopUtilization();
  let sinceAt = performance.now();
  let saturated = false;
  return () => {
    const now = performance.now();
    if (now - sinceAt >= windowMs) {
      const current = performance.eventLoopUtilization();
      saturated = performance.eventLoopUtilization(current, since).utilization >= threshold;
      since = current;
      sinceAt = now;
    }
    return saturated;
  };
}
