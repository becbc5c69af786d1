import { type ControllerLog, failureLogging } from "./controller-log.js";
import { WorkQueue } from "./work-queue.js";

/** What start() waits for before the first keys are queued: an informer's first list. */
export interface SyncedSource {
  synced(): Promise<void>;
}

/**
 * What a controller that works from a queue of string keys tells its wiring; every such
 * controller is wired by ControllerWiring (controller-wiring.test.ts checks no other file makes a
 * work queue without a reason named there).
 */
export interface ControllerWiringOptions {
  /** The controller's name in failure logs. */
  controller: string;
  log: ControllerLog;
  process(key: string): Promise<void>;
  /** Keys processed at once at most (the queue's default, one, when absent). */
  concurrency?: number;
  /** Longest wait before a failed key is tried again (the queue's default, a minute, when absent). */
  retryMaxMs?: number;
  /** The informers the controller reads: waited for before the first keys are queued. */
  informers?: readonly SyncedSource[];
  /** Adds the controller's event handlers, which queue keys; returns their removals. */
  subscribe(queue: WorkQueue<string>): Array<() => void>;
  /** The keys of the first pass (and of each resync): at hand, or read from storage. */
  keys(): Iterable<string> | Promise<Iterable<string>>;
  /**
   * Every key queued again this often (repairs what was changed by hand on a connected cluster,
   * or checks again); no resync when absent.
   */
  resyncMs?: number;
}

/**
 * The start and stop of a controller that works from a queue of string keys: a work queue (its
 * backoff of failed keys, its failure logging) processing `process`; on start, the event
 * handlers that add keys to it, then, once the informers have synced, every key of `keys()`,
 * and again every `resyncMs` when it is set; on stop, the handlers removed, the resync timer
 * cleared and the queue drained. A start that fails is undone, so a later start begins afresh.
 */
export class ControllerWiring {
  private queue?: WorkQueue<string>;
  private timer?: NodeJS.Timeout;
  private unsubscribe: Array<() => void> = [];
  private stopped = true;

  constructor(private readonly options: ControllerWiringOptions) {}

  /** False once stop() began: a pass in flight then writes nothing more. */
  get running(): boolean {
    return !this.stopped;
  }

  /** Queues `key` again once `ms` have passed (something on the cluster is still going). */
  addAfter(key: string, ms: number): void {
    this.queue?.addAfter(key, ms);
  }

  /**
   * Resolves when no key waits or is processed (tests, orderly stops); keys waiting for a retry
   * or an addAfter do not count.
   */
  settled(): Promise<void> {
    return this.queue?.idle() ?? Promise.resolve();
  }

  /**
   * Subscribes, waits for the informers and queues every key. With no informers and keys at
   * hand, the keys are queued before it returns.
   */
  async start(): Promise<void> {
    if (!this.stopped) return;
    this.stopped = false;
    const { options } = this;
    const queue = new WorkQueue<string>({
      process: (key) => options.process(key),
      ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
      ...(options.retryMaxMs !== undefined ? { maxDelayMs: options.retryMaxMs } : {}),
      ...failureLogging(options.log, options.controller),
    });
    this.queue = queue;
    // False once stopped while waiting (and maybe started again, with a queue of its own).
    const current = () => !this.stopped && this.queue === queue;
    try {
      this.unsubscribe.push(...options.subscribe(queue));
      const informers = options.informers ?? [];
      if (informers.length > 0) await Promise.all(informers.map((i) => i.synced()));
      if (!current()) return;
      await this.queueKeys(queue);
    } catch (err) {
      if (current()) await this.stop();
      throw err;
    }
    if (!current() || options.resyncMs === undefined) return;
    this.timer = setInterval(() => this.resync(queue), options.resyncMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.timer);
    this.timer = undefined;
    for (const u of this.unsubscribe.splice(0)) u();
    await this.queue?.shutdown();
  }

  /** Adds every key; synchronous when the keys are at hand. */
  private queueKeys(queue: WorkQueue<string>): Promise<void> | undefined {
    const keys = this.options.keys();
    if (!(keys instanceof Promise)) {
      for (const key of keys) queue.add(key);
      return undefined;
    }
    return keys.then((read) => {
      for (const key of read) queue.add(key);
    });
  }

  /** A resync whose keys could not be read is logged; the next one tries again. */
  private resync(queue: WorkQueue<string>): void {
    const { controller, log } = this.options;
    const logFailure = (err: unknown) =>
      log.error({ err, controller }, `${controller} could not read its keys to resync; the next resync tries again`);
    try {
      this.queueKeys(queue)?.catch(logFailure);
    } catch (err) {
      logFailure(err);
    }
  }
}
