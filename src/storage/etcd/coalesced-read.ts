/**
 * Many callers, few round trips: a read that every caller needs to have *started after it
 * asked* (a linearizable "what is the store's revision now?"), shared between the callers that
 * ask at about the same time.
 *
 * A caller that arrives while a read is in flight cannot use that read's answer: it was sent
 * before the caller asked, so a write acknowledged in between might be missing from it. It joins
 * the batch that has not been sent yet instead. A batch is sent at the end of the event loop's
 * current turn (so every request parsed in that turn shares it), unless `maxInFlight` reads are
 * already out: then it goes as soon as one returns. Every answer is at least as new as anything
 * acknowledged before its caller asked (kube-apiserver's consistent reads from cache rest on the
 * same rule).
 *
 * Why more than one in flight: with one, a caller that arrives just after a read was sent waits
 * for that read and then for its own, about 1.5 round trips on average, and under a steady load
 * the server sits idle while every connection waits for the same answer.
 *
 * Pacing under load: a read costs far more than a request it serves (on etcd, about a
 * millisecond of CPU between the client and etcd against a fraction of that per GET), and a
 * saturated server sends one per event-loop turn. So while the server is saturated (`loaded()`:
 * its event loop busy 90% of the time, until it is below 80%, event-loop-saturation.ts), a batch is not sent sooner
 * than `minIntervalMs` after the previous one; the callers of the turns in between join it.
 * Their requests would have waited in the queue anyway, and the CPU saved serves more of them.
 * A server with time to spare never waits: its answers come as soon as one round trip allows.
 */
import { eventLoopSaturation } from "./event-loop-saturation.js";

export interface CoalescedReadOptions {
  /** Reads out at once (default 2). */
  readonly maxInFlight?: number;
  /** Under load, the least time between two reads sent (default 0: no pacing). */
  readonly minIntervalMs?: number;
  /** Whether the server is loaded, so that reads are paced (default: its event loop is saturated). */
  readonly loaded?: () => boolean;
}

export class CoalescedRead<T> {
  private inFlight = 0;
  /** Callers waiting for a read that has not been sent yet. */
  private batch: Batch<T> | undefined;
  /** When the last read was sent (performance.now()). */
  private lastSentAt = Number.NEGATIVE_INFINITY;
  /** The paced send waiting for its time. */
  private pacing: NodeJS.Timeout | undefined;
  private readonly maxInFlight: number;
  private readonly minIntervalMs: number;
  private readonly loaded: () => boolean;
  /** Round trips made (for tests and the bench). */
  reads = 0;

  constructor(
    private readonly read: () => Promise<T>,
    options: CoalescedReadOptions = {},
  ) {
    this.maxInFlight = options.maxInFlight ?? 2;
    this.minIntervalMs = options.minIntervalMs ?? 0;
    this.loaded = this.minIntervalMs > 0 ? (options.loaded ?? eventLoopSaturation()) : () => false;
  }

  /** The answer of a read that started no earlier than this call. */
  get(): Promise<T> {
    if (this.batch) return this.batch.promise;
    const batch = new Batch<T>();
    this.batch = batch;
    if (this.inFlight < this.maxInFlight) setImmediate(() => this.send());
    return batch.promise;
  }

  /** Sends the waiting batch's read, if there is one, room for it, and (under load) its time has come. */
  private send(): void {
    const batch = this.batch;
    if (batch === undefined || this.inFlight >= this.maxInFlight || this.pacing !== undefined) return;
    if (this.loaded()) {
      const wait = this.lastSentAt + this.minIntervalMs - performance.now();
      if (wait > 0) {
        // Whole milliseconds: node keeps one timer list per distinct duration, and a fractional
        // wait would make (and drop) a list for nearly every paced read.
        this.pacing = setTimeout(() => {
          this.pacing = undefined;
          this.send();
        }, Math.ceil(wait));
        return;
      }
    }
    this.batch = undefined;
    this.inFlight++;
    this.reads++;
    this.lastSentAt = performance.now();
    const done = (): void => {
      this.inFlight--;
      this.send();
    };
    let answer: Promise<T>;
    try {
      answer = this.read();
    } catch (err) {
      answer = Promise.reject(err);
    }
    answer.then(
      (value) => {
        done();
        batch.resolve(value);
      },
      (err: unknown) => {
        done();
        batch.reject(err);
      },
    );
  }
}

/** The callers of one read. */
class Batch<T> {
  readonly promise: Promise<T>;
  resolve!: (value: T) => void;
  reject!: (err: unknown) => void;

  constructor() {
    this.promise = new Promise<T>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }
}
