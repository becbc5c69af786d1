import cluster from "node:cluster";

/** The variable through which the primary of `platform start --workers N` numbers the workers it forks. */
export const WORKER_NUMBER_ENV = "PLATFORM_WORKER";

/**
 * This process's number (1…N) among the workers of `platform start --workers N`: the same for a
 * worker restarted in its place, so that logs and metrics name a stable worker. Undefined in a
 * single server process (the variable counts only in a node:cluster worker).
 */
export function workerNumber(): number | undefined {
  if (!cluster.isWorker) return undefined;
  const n = Number(process.env[WORKER_NUMBER_ENV]);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}
