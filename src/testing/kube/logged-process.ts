/**
 * A control plane binary running as a child of the test process, its output appended to a log
 * file (what failed is read from there: a start that never gets ready, a crash). Every one still
 * running is killed when the test process exits or is stopped by a signal, so no kube-apiserver
 * outlives the test that started it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import { constants } from "node:os";

/** How much of the end of a log an error message carries. */
const LOG_TAIL_CHARS = 6_000;

export class LoggedProcess {
  private readonly child: ChildProcess;
  /** Resolves once the process has ended. */
  readonly exited: Promise<void>;

  constructor(
    readonly name: string,
    binary: string,
    args: string[],
    private readonly logPath: string,
  ) {
    const log = openSync(logPath, "a");
    try {
      this.child = spawn(binary, args, { stdio: ["ignore", log, log] });
    } finally {
      closeSync(log);
    }
    this.exited = new Promise((resolve) => {
      this.child.once("exit", () => resolve());
      // A binary that cannot be started at all (ENOENT, EACCES) emits "error" and never "exit".
      this.child.once("error", () => resolve());
    });
    running.add(this);
    void this.exited.then(() => running.delete(this));
    installExitHooks();
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get isRunning(): boolean {
    return this.child.pid !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Why it is not running, for error messages (`exited with 1`, `killed by SIGKILL`). */
  get endState(): string {
    if (this.child.signalCode) return `killed by ${this.child.signalCode}`;
    if (this.child.exitCode !== null) return `exited with ${this.child.exitCode}`;
    return this.child.pid === undefined ? "could not be started" : "running";
  }

  /** The last part of its output. */
  logTail(): string {
    try {
      return readFileSync(this.logPath, "utf8").slice(-LOG_TAIL_CHARS);
    } catch {
      return "(no log)";
    }
  }

  /** Kills it at once (SIGKILL: tests need it gone, not a graceful shutdown) and waits until it has ended. */
  async kill(): Promise<void> {
    this.killNow();
    await this.exited;
  }

  killNow(): void {
    if (this.isRunning) this.child.kill("SIGKILL");
  }
}

const running = new Set<LoggedProcess>();
let hooksInstalled = false;

function killAll(): void {
  for (const p of running) p.killNow();
}

function installExitHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.once("exit", killAll);
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    const onSignal = (): void => {
      killAll();
      process.removeListener(signal, onSignal);
      // Nobody else handles this signal: end the process as the signal would have without this
      // hook, through exit() so the other exit hooks (etcd-cluster.ts's) run too.
      if (process.listenerCount(signal) === 0) process.exit(128 + constants.signals[signal]);
    };
    process.on(signal, onSignal);
  }
}
