/**
 * How a server started by `platform start` stops: on SIGTERM (and SIGINT from a terminal) it
 * drains and closes within a limit, a second signal exits at once, and a start that failed ends
 * the process.
 */

/**
 * How long a stop signal waits, beyond the grace period given to requests in flight, for the
 * rest of the shutdown (controllers, the store) before exiting anyway.
 */
const SHUTDOWN_SLACK_SECONDS = 10;

/** The whole shutdown's limit, in seconds: the delay, the requests' grace period, then the rest. */
export function shutdownLimitSeconds(delaySeconds: number, graceSeconds: number): number {
  return delaySeconds + graceSeconds + SHUTDOWN_SLACK_SECONDS;
}

export interface StopOnSignals {
  /** The running server's close (RunningServer.close). */
  close(hooks: { draining: () => void }): Promise<void>;
  /** A worker's notes name it (`worker N (pid P) `); empty for a single process. */
  who: string;
  /** `--shutdown-delay`, in seconds. */
  delaySeconds: number;
  /** shutdownLimitSeconds: past it the process exits whatever the shutdown is waiting for. */
  limitSeconds: number;
  /** A worker stops when its primary says so (SIGTERM); a terminal's Ctrl-C reaches the primary too. */
  isWorker: boolean;
}

/** Installs the SIGTERM and SIGINT handlers of a serving process. */
export function stopOnSignals(server: StopOnSignals): void {
  const { who, delaySeconds, limitSeconds } = server;
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      // A second signal: the operator does not want to wait.
      process.stderr.write(`${signal} again: exiting now\n`);
      process.exit(1);
    }
    stopping = true;
    if (delaySeconds > 0) {
      process.stderr.write(
        `${who}${signal}: /readyz fails from now on; serving ${delaySeconds} s more (--shutdown-delay)\n`,
      );
    }
    const draining = () =>
      process.stderr.write(`${who}${signal}: finishing in-flight requests and closing the store\n`);
    // A shutdown that does not finish (a stuck client connection or controller) must not
    // leave a process that holds the data dir's lock: give up after the grace period.
    setTimeout(() => {
      process.stderr.write(`${who}shutdown did not finish within ${limitSeconds} s; exiting\n`);
      process.exit(1);
    }, limitSeconds * 1000).unref();
    server.close({ draining }).then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(err);
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => (server.isWorker ? undefined : stop("SIGINT")));
}

/**
 * A start that failed: main prints why (a worker's message naming it), and the process ends even
 * when the failed start left a handle open (a store's connections, a worker's channel to its
 * primary), which would otherwise keep it, and the primary waiting for it, alive for good.
 */
export function failedStart(who: string) {
  return (err: unknown): never => {
    setTimeout(() => process.exit(1), 1000).unref();
    if (!who) throw err;
    throw new Error(`${who.trim()}: ${err instanceof Error ? err.message : String(err)}`);
  };
}
