/**
 * `platform start --workers N`: one server process per core on the same listening address, as
 * node:cluster runs them. The primary does the first start's one-time work (primary-bootstrap.ts),
 * forks N workers that each run the normal server (each a replica on the shared etcd: its own
 * leader-election identity, caches and watches), restarts a worker that dies, and on SIGTERM or
 * SIGINT stops them all gracefully. The primary serves no request itself; the kernel connections
 * it accepts are handed to the workers in turn (node:cluster's round-robin).
 *
 * Only etcd storage: the embedded SQLite store is owned by one process (its lock and revision).
 */
import cluster, { type Worker } from "node:cluster";
import { availableParallelism } from "node:os";

/** What a worker tells the primary once it serves: the banner text (same for every worker). */
interface ReadyMessage {
  type: "platform-worker-ready";
  text: string;
}

/** Restart delays of a worker that keeps dying: 1 s, doubling, at most 30 s. */
const RESTART_FIRST_MS = 1000;
const RESTART_MAX_MS = 30_000;
/** A worker that served this long before it died counts as healthy: its next restart is quick again. */
const HEALTHY_AFTER_MS = 60_000;

/** `--workers`: a positive whole number, or `auto` (one per CPU this process may use). */
export function parseWorkers(value: string | undefined): number {
  if (value === undefined) return 1;
  if (value === "auto") return availableParallelism();
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
  const message: ReadyMessage = { type: "platform-worker-ready", text };
  process.send?.(message);
}

interface Slot {
  index: number;
  worker: Worker | undefined;
  readyAt: number | undefined;
  failures: number;
  timer: NodeJS.Timeout | undefined;
}

/**
 * The primary: runs `bootstrap`, forks `count` workers (they run this same command line), prints
 * the first worker's banner with the workers' pids once all serve, then keeps them running until
 * a stop signal. Rejects when a worker exits before the first start is complete.
 */
export async function runPrimary(count: number, bootstrap: () => Promise<void>, graceSeconds: number): Promise<void> {
  await bootstrap();
  const slots: Slot[] = Array.from({ length: count }, (_, index) => ({
    index,
    worker: undefined,
    readyAt: undefined,
    failures: 0,
    timer: undefined,
  }));
  const note = (line: string) => process.stderr.write(`${line}\n`);
  let stopping = false;
  let banner: string | undefined;
  let startFailed: ((err: Error) => void) | undefined;
  const allReady = new Promise<void>((resolve, reject) => {
    startFailed = reject;
    const fork = (slot: Slot) => {
      const worker = cluster.fork();
      slot.worker = worker;
      slot.readyAt = undefined;
      worker.on("message", (message: ReadyMessage) => {
        if (message?.type !== "platform-worker-ready") return;
        slot.readyAt = Date.now();
        banner ??= message.text;
        if (slots.every((s) => s.readyAt !== undefined) && startFailed) {
          startFailed = undefined;
          resolve();
        } else if (!startFailed) {
          note(`worker ${slot.index + 1} serves again (pid ${worker.process.pid})`);
        }
      });
    };
    cluster.on("exit", (worker, code, signal) => {
      const slot = slots.find((s) => s.worker === worker);
      if (!slot || stopping) return;
      slot.worker = undefined;
      const how = signal ? `signal ${signal}` : `code ${code}`;
      if (startFailed) {
        // The first start fails as a single-process start would: with the worker's error above.
        startFailed(new Error(`worker ${slot.index + 1} exited (${how}) before it served`));
        return;
      }
      const served = slot.readyAt === undefined ? 0 : Date.now() - slot.readyAt;
      slot.failures = served >= HEALTHY_AFTER_MS ? 0 : slot.failures + 1;
      const delay = Math.min(RESTART_MAX_MS, RESTART_FIRST_MS * 2 ** Math.max(0, slot.failures - 1));
      note(`worker ${slot.index + 1} (pid ${worker.process.pid}) exited (${how}); restarting it in ${delay / 1000} s`);
      slot.timer = setTimeout(() => {
        slot.timer = undefined;
        if (!stopping) fork(slot);
      }, delay);
    });
    for (const slot of slots) fork(slot);
  });
  const stop = (signal: string): Promise<boolean> => {
    const again = stopping;
    stopping = true;
    return stopWorkers(slots, signal, graceSeconds, again);
  };
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.on(signal, () => void stop(signal).then((clean) => process.exit(clean ? 0 : 1)));
  }
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
 * Stops every worker with SIGTERM (each finishes its in-flight requests and closes its store, as
 * a single server does on SIGTERM); resolves true when all stopped cleanly. A second signal, or
 * workers still running after the grace period, ends them with SIGKILL.
 */
async function stopWorkers(slots: Slot[], signal: string, graceSeconds: number, again: boolean): Promise<boolean> {
  const live = () => slots.map((s) => s.worker).filter((w): w is Worker => w !== undefined && !w.isDead());
  const kill = () => {
    for (const w of live()) w.process.kill("SIGKILL");
  };
  if (again) {
    process.stderr.write(`${signal} again: ending the workers now\n`);
    kill();
    return false;
  }
  for (const s of slots) clearTimeout(s.timer);
  const running = live();
  process.stderr.write(`${signal}: stopping ${running.length} workers (each finishes its in-flight requests)\n`);
  const grace = setTimeout(() => {
    process.stderr.write(`workers did not stop within ${graceSeconds} s; ending them\n`);
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
