/**
 * The controllers' work queue (client-go's rate-limited workqueue, by hand): event handlers add
 * keys, workers process them.
 *
 * - A key waiting is waiting once: adding it again changes nothing (dedupe).
 * - A key is never processed twice at once. Added while it is processed, it is processed once
 *   more after, from the back of the line (so a slow key cannot keep a worker while others wait).
 * - At most `concurrency` keys are processed at once, oldest first.
 * - A failure is reported with the attempt and the delay, and the key is added again after an
 *   exponential backoff per key (base × 2^(failures−1), capped); a success forgets its failures,
 *   and is reported when there were any.
 * - shutdown() stops taking keys, drops the waiting and delayed ones (whoever starts the
 *   controller again rebuilds them from its informers) and resolves when the keys being processed
 *   are done.
 */

/** The timers the queue delays with; tests pass a clock they move by hand. */
export interface QueueTimers {
  now(): number;
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export interface RetryInfo {
  /** Failures of this key in a row, this one included. */
  readonly attempt: number;
  /** When the key is tried again. */
  readonly delayMs: number;
}

export interface WorkQueueOptions<K> {
  process(key: K): Promise<void>;
  /** Keys processed at once at most (default 1). */
  concurrency?: number;
  /** First retry delay (default 250 ms); doubles with each failure in a row. */
  baseDelayMs?: number;
  /** Longest retry delay (default one minute). */
  maxDelayMs?: number;
  onError?(err: unknown, key: K, retry: RetryInfo): void;
  /** A key that had failed succeeded: `failures`, how many times in a row before. */
  onRecovered?(key: K, failures: number): void;
  timers?: QueueTimers;
}

/** Node's setTimeout overflows beyond ~24.8 days; longer delays are re-armed. */
const MAX_TIMER_MS = 60 * 60 * 1000;

export const realTimers: QueueTimers = {
  now: () => Date.now(),
  set(fn, ms) {
    const t = setTimeout(fn, ms);
    t.unref();
    return t;
  },
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export class WorkQueue<K> {
  /** Keys waiting for a worker, oldest first (a Set keeps insertion order). */
  private readonly waiting = new Set<K>();
  private readonly processing = new Map<K, Promise<void>>();
  /** Keys added while they were processed: back in line when that is done. */
  private readonly again = new Set<K>();
  private readonly failures = new Map<K, number>();
  private readonly delayed = new Map<K, { due: number; handle: unknown }>();
  private readonly idleWaiters: Array<() => void> = [];
  private readonly concurrency: number;
  private readonly timers: QueueTimers;
  private kicked = false;
  private shut = false;

  constructor(private readonly options: WorkQueueOptions<K>) {
    this.concurrency = Math.max(1, options.concurrency ?? 1);
    this.timers = options.timers ?? realTimers;
  }

  add(key: K): void {
    if (this.shut || this.waiting.has(key) || this.again.has(key)) return;
    if (this.processing.has(key)) this.again.add(key);
    else {
      this.waiting.add(key);
      this.kick();
    }
  }

  /** Adds the key once `ms` have passed; a key already delayed keeps the earlier time. */
  addAfter(key: K, ms: number): void {
    if (this.shut) return;
    if (ms <= 0) {
      this.add(key);
      return;
    }
    const due = this.timers.now() + ms;
    const existing = this.delayed.get(key);
    if (existing && existing.due <= due) return;
    if (existing) this.timers.clear(existing.handle);
    this.arm(key, due);
  }

  /** Keys waiting to be processed (a metric). */
  get length(): number {
    return this.waiting.size + this.again.size;
  }

  /** Keys waiting for a delay (a retry or an addAfter). */
  get delayedCount(): number {
    return this.delayed.size;
  }

  /** Failures in a row of the key (0 after a success). */
  failuresOf(key: K): number {
    return this.failures.get(key) ?? 0;
  }

  /** Resolves when no key waits or is processed; delayed keys do not count (tests, orderly stops). */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  async shutdown(): Promise<void> {
    this.shut = true;
    this.waiting.clear();
    this.again.clear();
    for (const { handle } of this.delayed.values()) this.timers.clear(handle);
    this.delayed.clear();
    await Promise.allSettled([...this.processing.values()]);
    this.releaseIdle();
  }

  private arm(key: K, due: number): void {
    const wait = Math.min(Math.max(due - this.timers.now(), 0), MAX_TIMER_MS);
    const handle = this.timers.set(() => {
      if (this.delayed.get(key)?.handle !== handle) return;
      if (due > this.timers.now()) {
        this.arm(key, due); // a long delay, re-armed in steps
        return;
      }
      this.delayed.delete(key);
      this.add(key);
    }, wait);
    this.delayed.set(key, { due, handle });
  }

  /** Starts the workers on the next turn, so that a burst of events lands (and dedupes) first. */
  private kick(): void {
    if (this.kicked) return;
    this.kicked = true;
    setImmediate(() => {
      this.kicked = false;
      this.pump();
    });
  }

  private pump(): void {
    while (!this.shut && this.processing.size < this.concurrency && this.waiting.size > 0) {
      const key = this.waiting.values().next().value as K;
      this.waiting.delete(key);
      this.processing.set(key, this.run(key));
    }
    if (this.isIdle()) this.releaseIdle();
  }

  private async run(key: K): Promise<void> {
    // Start on a later tick, so `processing` holds the key before process() can re-add it.
    await Promise.resolve();
    try {
      await this.options.process(key);
      const failures = this.failures.get(key);
      if (failures !== undefined) {
        this.failures.delete(key);
        this.options.onRecovered?.(key, failures);
      }
    } catch (err) {
      this.retry(key, err);
    } finally {
      this.processing.delete(key);
      if (this.again.delete(key) && !this.shut) this.waiting.add(key);
      this.pump();
    }
  }

  private retry(key: K, err: unknown): void {
    if (this.shut) return;
    const attempt = (this.failures.get(key) ?? 0) + 1;
    this.failures.set(key, attempt);
    const base = this.options.baseDelayMs ?? 250;
    const delayMs = Math.min(base * 2 ** Math.min(attempt - 1, 52), this.options.maxDelayMs ?? 60_000);
    this.options.onError?.(err, key, { attempt, delayMs });
    this.addAfter(key, delayMs);
  }

  private isIdle(): boolean {
    return this.waiting.size === 0 && this.processing.size === 0 && this.again.size === 0 && !this.kicked;
  }

  private releaseIdle(): void {
    for (const w of this.idleWaiters.splice(0)) w();
  }
}
