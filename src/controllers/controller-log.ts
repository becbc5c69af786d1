import type { RetryInfo, WorkQueueOptions } from "./work-queue.js";

/** Where controllers report failures: the server's JSON logger (pino's `error(obj, msg)` and `warn`). */
export interface ControllerLog {
  error(obj: unknown, msg: string): void;
  warn(obj: unknown, msg: string): void;
}

export const silentLog: ControllerLog = { error: () => {}, warn: () => {} };

/**
 * A controller's WorkQueue `onError` and `onRecovered`: one JSON line when a key starts failing,
 * naming the controller, the key, the attempt and when it is tried again; one more only if it
 * then fails otherwise (another message), and one when it succeeds again. The same failure
 * retried (the queue's backoff, the next resync) is not logged again: a cluster that stays
 * unreachable, or a right the platform keeps lacking, is one line, not one a minute.
 */
export function failureLogging<K>(
  log: ControllerLog,
  controller: string,
): Required<Pick<WorkQueueOptions<K>, "onError" | "onRecovered">> {
  /** What each failing key's last logged failure said. */
  const failing = new Map<K, string>();
  return {
    onError(err: unknown, key: K, retry: RetryInfo) {
      const said = err instanceof Error ? err.message : String(err);
      if (failing.get(key) === said) return;
      failing.set(key, said);
      log.error(
        { err, controller, key: String(key), attempt: retry.attempt, retryInMs: retry.delayMs },
        `${controller} failed on ${String(key)}; retrying in ${retry.delayMs} ms (the same failure again is not logged)`,
      );
    },
    onRecovered(key: K, failures: number) {
      if (!failing.delete(key)) return;
      // At warn, not info: the failure it ends shows at the default level (warn), so must its end.
      log.warn(
        { controller, key: String(key), failedAttempts: failures },
        `${controller} succeeded on ${String(key)} after ${failures} failed attempts`,
      );
    },
  };
}
