/**
 * When the primary of `platform start --workers N` restarts a worker that exited on its own, and
 * when it stops trying: a worker that keeps exiting before it serves (a broken configuration, a
 * port or memory limit) would otherwise be restarted forever while the server runs short of a
 * worker; the primary stops the server with an error instead, which its supervisor (systemd,
 * Kubernetes) reports and handles like any failed start.
 */

/** Restart delays of a worker that keeps dying: 1 s, doubling, at most 30 s. */
const RESTART_FIRST_MS = 1000;
const RESTART_MAX_MS = 30_000;
/** A worker that served this long before it died counts as healthy: its next restart is quick again. */
const HEALTHY_AFTER_MS = 60_000;
/** Exits in a row before serving after which the primary gives up (after about 15 s of restarts). */
export const MAX_START_FAILURES = 5;
/**
 * `--worker-start-timeout`'s default: how long a worker may take from its fork to serving. A start
 * lists every kind into its informers, so a large store takes a while; one that has not served
 * after two minutes hangs (a store that accepts connections but never answers, a stuck disk),
 * and is killed and counted as an exit before serving.
 */
export const DEFAULT_WORKER_START_TIMEOUT_SECONDS = 120;

/** One worker slot's exits so far (the slot keeps them across the processes started in it). */
export interface ExitCounts {
  /** Exits since the slot last served a minute or more: they set the restart delay. */
  failures: number;
  /** Exits in a row of processes that never served. */
  startFailures: number;
}

export type AfterExit = { restartInMs: number } | { giveUp: string };

/** Counts an exit of a worker that served `servedMs` (undefined: never served) and says what to do next. */
export function afterExit(counts: ExitCounts, servedMs: number | undefined): AfterExit {
  counts.failures = servedMs !== undefined && servedMs >= HEALTHY_AFTER_MS ? 0 : counts.failures + 1;
  counts.startFailures = servedMs === undefined ? counts.startFailures + 1 : 0;
  if (counts.startFailures >= MAX_START_FAILURES) {
    return { giveUp: `it exited ${counts.startFailures} times in a row before it served` };
  }
  return { restartInMs: Math.min(RESTART_MAX_MS, RESTART_FIRST_MS * 2 ** Math.max(0, counts.failures - 1)) };
}
