/**
 * `platform start --workers N`: one server process per core on the same listening address, as
 * node:cluster runs them. The primary does the first start's one-time work (primary-bootstrap.ts),
 * forks N workers that each run the normal server (each a replica on the shared etcd: its own
 * leader-election identity, caches and watches), restarts a worker that dies, and on SIGTERM or
 * SIGINT stops them all gracefully. The primary serves no request itself; the kernel connections
 * it accepts are handed to the workers in turn (node:cluster's round-robin). It merges the
 * workers' metrics for a scrape (src/metrics/primary-scrape.ts), and numbers them (1…N, kept by a
 * worker restarted in its place) for their log lines and its own.
 *
 * Only etcd storage: the embedded SQLite store is owned by one process (its lock and revision).
 */
import cluster, { type Worker } from "node:cluster";
import { availableParallelism } from "node:os";
import type { Logger } from "pino";
import { type ServingWorker, WorkerMetrics } from "../metrics/primary-scrape.js";
import { serveMetricsToPrimary, type WorkerMessage } from "../metrics/worker-scrape.js";
import { createLogger } from "../server/request-log.js";
import { WORKER_NUMBER_ENV } from "../server/worker-number.js";
import { containerCpuLimit } from "./cpu-quota.js";
import {
  afterExit,
  DEFAULT_WORKER_START_TIMEOUT_SECONDS,
  type ExitCounts,
  MAX_START_FAILURES,
} from "./worker-restarts.js";

/** What a worker tells the primary once it serves: the banner text (same for every worker). */
interface ReadyMessage {
  type: "platform-worker-ready";
  text: string;
}

/** `--workers`: a positive whole number, or `auto` (one per CPU this process may use, within a container's CPU limit). */
export function parseWorkers(value: string | undefined): number {
  if (value === undefined) return 1;
  if (value === "auto") return Math.min(availableParallelism(), containerCpuLimit() ?? Number.POSITIVE_INFINITY);
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`--workers must be a positive whole number or auto, got "${value}"`);
  return n;
}

/**
 * Refuses several workers where they cannot work: on a store only one process may open; and with
 * a rotated audit log, which each process would rotate on its own count of the shared file's size.
 */
export function assertWorkersAllowed(
  workers: number,
  given: { storage: string | undefined; auditLogRotation: boolean },
): void {
  if (workers <= 1) return;
  const { storage } = given;
  if (storage === undefined || !/^etcds?:/i.test(storage)) {
    throw new Error(
      `--workers ${workers} needs etcd storage (--storage etcd://host:2379): the embedded SQLite store ` +
        "is owned by one server process (it holds the database's lock and its revision), so it runs with one worker",
    );
  }
  if (given.auditLogRotation) {
    throw new Error(
      `--workers ${workers} does not work with --audit-log-maxsize: each worker appends to the same audit ` +
        "log file, and each would rotate it on its own count; rotate it outside (logrotate with copytruncate) instead",
    );
  }
}

/** True in a process forked by the primary: it runs the server and reports to the primary. */
export function isServerWorker(): boolean {
  return cluster.isWorker;
}

/** In a worker: tells the primary that this replica serves, with the banner it would print. */
export function reportWorkerReady(text: string): void {
  // From now on the primary asks this worker for its metrics, and its /metrics shows every worker's.
  serveMetricsToPrimary();
  const message: ReadyMessage = { type: "platform-worker-ready", text };
  process.send?.(message);
}

interface Slot extends ExitCounts {
  /** 1…N: the worker's number in logs and metrics, kept by the processes restarted in its place. */
  number: number;
  worker: Worker | undefined;
  readyAt: number | undefined;
  timer: NodeJS.Timeout | undefined;
  /** Kills the process of this slot that has not served within the start timeout. */
  startTimer: NodeJS.Timeout | undefined;
  /** Set when the start timeout killed this slot's process: its exit is told as such. */
  startTimedOut: boolean;
}

export interface PrimaryOptions {
  /** How long the workers get to stop on SIGTERM before they are killed. */
  graceSeconds: number;
  /** `--log-level` of the primary's own JSON lines (each worker start, exit and restart). */
  logLevel: string;
  /** `--worker-start-timeout`: seconds from a worker's fork to its serving before it is killed (default 120). */
  startTimeoutSeconds?: number;
}

/**
 * The primary: runs `bootstrap`, forks `count` workers (they run this same command line), prints
 * the first worker's banner with the workers' pids once all serve, then keeps them running until
 * a stop signal. Rejects when a worker exits before the first start is complete.
 */
export async function runPrimary(
  count: number,
  bootstrap: () => Promise<void>,
  options: PrimaryOptions,
): Promise<void> {
  await bootstrap();
  const log = createLogger(options.logLevel);
  const startTimeout = options.startTimeoutSeconds ?? DEFAULT_WORKER_START_TIMEOUT_SECONDS;
  const slots = Array.from({ length: count }, (_, index): Slot => {
    return {
      number: index + 1,
      worker: undefined,
      readyAt: undefined,
      timer: undefined,
      startTimer: undefined,
      startTimedOut: false,
      failures: 0,
      startFailures: 0,
    };
  });
  const metrics = new WorkerMetrics(() => serving(slots));
  let stopping = false;
  const stop = (signal: string): Promise<boolean> => {
    const again = stopping;
    stopping = true;
    return stopWorkers(slots, signal, options.graceSeconds, again, log);
  };
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.on(signal, () => void stop(signal).then((clean) => process.exit(clean ? 0 : 1)));
  }
  let banner: string | undefined;
  let startFailed: ((err: Error) => void) | undefined;
  const allReady = new Promise<void>((resolve, reject) => {
    startFailed = reject;
    const fork = (slot: Slot) => {
      const worker = cluster.fork({ [WORKER_NUMBER_ENV]: String(slot.number) });
      slot.worker = worker;
      slot.readyAt = undefined;
      log.info(about(slot, worker), `worker ${slot.number} started (pid ${worker.process.pid})`);
      watchStart(slot, worker, startTimeout, log);
      worker.on("message", (message: ReadyMessage | WorkerMessage) => {
        if (message?.type !== "platform-worker-ready") return void metrics.handle(worker, message);
        slot.readyAt = Date.now();
        clearTimeout(slot.startTimer);
        banner ??= message.text;
        const again = startFailed ? "" : " again";
        log.info(about(slot, worker), `worker ${slot.number} serves${again} (pid ${worker.process.pid})`);
        if (startFailed && slots.every((s) => s.readyAt !== undefined)) {
          startFailed = undefined;
          resolve();
        }
      });
    };
    cluster.on("exit", (worker, code, signal) => {
      const slot = slots.find((s) => s.worker === worker);
      metrics.exited(worker);
      if (!slot || stopping) return;
      slot.worker = undefined;
      clearTimeout(slot.startTimer);
      const how = slot.startTimedOut
        ? `killed after ${startTimeout} s without serving`
        : signal
          ? `signal ${signal}`
          : `code ${code}`;
      slot.startTimedOut = false;
      if (startFailed) {
        // The first start fails as a single-process start would: with the worker's error above.
        startFailed(new Error(`worker ${slot.number} exited (${how}) before it served`));
        return;
      }
      const next = afterExit(slot, slot.readyAt === undefined ? undefined : Date.now() - slot.readyAt);
      const exited = `worker ${slot.number} (pid ${worker.process.pid}) exited (${how})`;
      if ("giveUp" in next) {
        log.error(about(slot, worker), `${exited}; ${next.giveUp}: giving up, stopping every worker`);
        void stop("giving up").then(() => process.exit(1));
        return;
      }
      // A failed start says how many in a row it is: the primary gives up at MAX_START_FAILURES.
      const inARow =
        slot.startFailures > 0 ? ` (${slot.startFailures} of ${MAX_START_FAILURES} failed starts in a row)` : "";
      log.warn(about(slot, worker), `${exited}; restarting it in ${next.restartInMs / 1000} s${inARow}`);
      slot.timer = setTimeout(() => {
        slot.timer = undefined;
        if (!stopping) fork(slot);
      }, next.restartInMs);
    });
    for (const slot of slots) fork(slot);
  });
  try {
    await allReady;
  } catch (err) {
    await stop("a failed start");
    throw err;
  }
  const pids = slots.map((s) => s.worker?.process.pid).join(", ");
  process.stdout.write(`${banner ?? ""}workers:           ${count} processes (pids ${pids})\n`);
}

/**
 * Kills `worker` (SIGKILL: a hung process may not heed SIGTERM) when it has not served within
 * `seconds` of its fork. Its exit then counts as any exit before serving: it fails the first
 * start, and later is restarted with backoff until the primary gives up (worker-restarts.ts).
 */
function watchStart(slot: Slot, worker: Worker, seconds: number, log: Logger): void {
  clearTimeout(slot.startTimer);
  slot.startTimedOut = false;
  slot.startTimer = setTimeout(() => {
    slot.startTimer = undefined;
    if (slot.worker !== worker || slot.readyAt !== undefined || worker.isDead()) return;
    slot.startTimedOut = true;
    log.error(
      about(slot, worker),
      `worker ${slot.number} (pid ${worker.process.pid}) did not serve within ${seconds} s of its start; killing it`,
    );
    worker.process.kill("SIGKILL");
  }, seconds * 1000);
}

/** The workers that serve now: those a scrape collects from. */
function serving(slots: Slot[]): ServingWorker[] {
  return slots.flatMap((s) =>
    s.worker?.isConnected() && s.readyAt !== undefined ? [{ worker: s.worker, number: s.number }] : [],
  );
}

/** The fields of the primary's lines about a worker: its number, as in the worker's own lines, and its pid. */
function about(slot: Slot, worker: Worker): { worker: number; workerPid: number | undefined } {
  return { worker: slot.number, workerPid: worker.process.pid };
}

/**
 * Stops every worker with SIGTERM (each finishes its in-flight requests and closes its store, as
 * a single server does on SIGTERM); resolves true when all stopped cleanly. A second signal, or
 * workers still running after the grace period, ends them with SIGKILL.
 */
async function stopWorkers(
  slots: Slot[],
  signal: string,
  graceSeconds: number,
  again: boolean,
  log: Logger,
): Promise<boolean> {
  const live = () => slots.map((s) => s.worker).filter((w): w is Worker => w !== undefined && !w.isDead());
  const kill = () => {
    for (const w of live()) w.process.kill("SIGKILL");
  };
  if (again) {
    log.warn(`${signal} again: ending the workers now`);
    kill();
    return false;
  }
  for (const s of slots) {
    clearTimeout(s.timer);
    clearTimeout(s.startTimer);
  }
  const running = live();
  log.info(`${signal}: stopping ${running.length} workers (each finishes its in-flight requests)`);
  const grace = setTimeout(() => {
    log.warn(`workers did not stop within ${graceSeconds} s; ending them`);
    kill();
  }, graceSeconds * 1000);
  const codes = await Promise.all(
    running.map((w) => {
      const exited = new Promise<number | null>((resolve) => w.once("exit", (code) => resolve(code)));
      w.process.kill("SIGTERM");
      return exited;
    }),
  );
  clearTimeout(grace);
  return codes.every((code) => code === 0);
}
