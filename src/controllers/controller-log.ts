import type { RetryInfo } from "./work-queue.js";

/** Where controllers report failures: the server's JSON logger (pino's `error(obj, msg)`). */
export interface ControllerLog {
  error(obj: unknown, msg: string): void;
}

export const silentLog: ControllerLog = { error: () => {} };

/**
 * A controller's WorkQueue `onError`: one JSON line per failure, naming the controller, the key,
 * the attempt and when it is tried again, so a failure that keeps coming back shows as such.
 */
export function logRetry<K>(log: ControllerLog, controller: string): (err: unknown, key: K, retry: RetryInfo) => void {
  return (err, key, retry) =>
    log.error(
      { err, controller, key: String(key), attempt: retry.attempt, retryInMs: retry.delayMs },
      `${controller} failed on ${String(key)}; retrying in ${retry.delayMs} ms`,
    );
}
