export interface PeriodicTaskOptions {
  /** Also run every this many ms between start() and stop(); without it, only when asked. */
  readonly intervalMs?: number;
  /** Gets the error of every run the timer or trigger() began or joined (run() rejects instead). */
  readonly onError: (err: unknown) => void;
}

/**
 * A piece of background work that runs at most once at a time: on an interval, and whenever asked.
 * Asked while it runs, the caller joins the run under way (and gets its result) rather than
 * starting another; a tick that comes while it runs is skipped the same way. stop() cancels the
 * timer and waits for the run under way, so nothing it started outlives it. The timer is unref'd:
 * it never keeps a process alive on its own.
 */
export class PeriodicTask<T = void> {
  #timer?: NodeJS.Timeout;
  #running?: Run<T>;

  constructor(
    private readonly work: () => Promise<T>,
    private readonly options: PeriodicTaskOptions,
  ) {}

  /** Starts the timer (nothing without an interval, or when started already). */
  start(): void {
    if (this.#timer || this.options.intervalMs === undefined) return;
    this.#timer = setInterval(() => this.trigger(), this.options.intervalMs);
    this.#timer.unref();
  }

  /** Runs the work now, or joins the run under way: resolves with its result, rejects with its error. */
  run(): Promise<T> {
    return this.#current().promise;
  }

  /** Like run(), for callers that do not wait: the run's error goes to onError (once, however many joined). */
  trigger(): void {
    const run = this.#current();
    if (run.reported) return;
    run.reported = true;
    run.promise.catch((err: unknown) => this.options.onError(err));
  }

  /** Resolves once no run is under way (whatever their outcome). */
  async idle(): Promise<void> {
    while (this.#running) await this.#running.promise.catch(() => undefined);
  }

  /** Cancels the timer and waits for the run under way; run() and trigger() still work after. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.idle();
  }

  #current(): Run<T> {
    if (this.#running) return this.#running;
    // An async wrapper: a work that throws before its first await rejects like any other.
    const promise = (async () => this.work())().finally(() => {
      this.#running = undefined;
    });
    this.#running = { promise, reported: false };
    return this.#running;
  }
}

/** The run under way, and whether its error goes to onError already. */
interface Run<T> {
  readonly promise: Promise<T>;
  reported: boolean;
}
