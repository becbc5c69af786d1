/**
 * One watch of any backend or cache: a per-watcher queue of event batches delivered on the
 * microtask queue, so callbacks never run inside a storage transaction and a slow or throwing
 * consumer cannot disturb the writer or other watchers. (A fan-out that runs outside any
 * transaction already — the watch cache's, the etcd watch hub's — delivers in its own pass with
 * offerNow.)
 */
import type { WatchCallbacks, WatchEvent, Watcher } from "./interface.js";
import { hasPrefix } from "./key-range.js";

const NONE: readonly WatchEvent[] = [];

export class QueuedWatcher implements Watcher {
  /** Highest revision already queued: the guard that makes replay→live free of duplicates. */
  private lastRevision: number;
  /** Event batches, and progress marks (a revision number) delivered in the same order. */
  private readonly pending: (readonly WatchEvent[] | number)[] = [];
  private error: Error | undefined;
  private scheduled = false;
  /** Delivering: an offerNow() from a consumer's callback only queues (delivered by the same loop). */
  private draining = false;
  /** No more events are accepted; what is queued is still delivered (graceful end). */
  private ending = false;
  /** Nothing more is delivered. */
  private closed = false;

  constructor(
    private readonly prefix: string,
    afterRevision: number,
    private readonly callbacks: WatchCallbacks,
    private readonly onClosed: (watcher: QueuedWatcher) => void,
  ) {
    this.lastRevision = afterRevision;
  }

  /**
   * Offer events in revision order (a transaction's events share one revision). Events at or
   * below what this watcher already has, or outside its prefix, are dropped.
   */
  offer(events: readonly WatchEvent[]): void {
    if (this.queue(events)) this.schedule();
  }

  /**
   * Offer events and deliver them now, after what is already queued, in the caller's turn: for
   * a fan-out that runs outside any transaction already (the watch cache's), one pass over its
   * watchers costs less than a microtask per watcher. A throwing consumer still ends only its
   * own watch.
   */
  offerNow(events: readonly WatchEvent[]): void {
    if (this.queue(events)) this.run();
  }

  /** Queues the events this watcher has not seen; false when there were none. */
  private queue(events: readonly WatchEvent[]): boolean {
    if (this.ending) return false;
    // Usually every event is fresh: the batch itself is queued (read-only for consumers).
    let fresh = events;
    for (let i = 0; i < events.length; i++) {
      if (!this.wants(events[i]!)) {
        fresh = this.wantedFrom(events, i);
        break;
      }
    }
    if (fresh.length === 0) return false;
    this.lastRevision = fresh[fresh.length - 1]!.revision;
    this.pending.push(fresh);
    return true;
  }

  private wants(e: WatchEvent): boolean {
    return e.revision > this.lastRevision && hasPrefix(e.kv.key, this.prefix);
  }

  /**
   * The wanted events of a batch whose events before `first` were all wanted and `first` is not.
   * No array is made when none is wanted: a shared stream (the etcd hub) offers every event to
   * every watcher, most of which want none of it.
   */
  private wantedFrom(events: readonly WatchEvent[], first: number): readonly WatchEvent[] {
    let out: WatchEvent[] | undefined = first > 0 ? events.slice(0, first) : undefined;
    for (let i = first + 1; i < events.length; i++) {
      const e = events[i]!;
      if (!this.wants(e)) continue;
      if (out === undefined) out = [e];
      else out.push(e);
    }
    return out ?? NONE;
  }

  /** Every event up to `revision` has been offered: tell the consumer, after the queued events. */
  progress(revision: number): void {
    if (this.ending || !this.callbacks.onProgress) return;
    this.pending.push(revision);
    this.schedule();
  }

  /**
   * progress() delivered in the caller's turn, for the fan-outs that use offerNow(): a
   * microtask per watcher and write (the etcd hub has one subscriber per cache and informer,
   * about 30) cost more than the progress itself.
   */
  progressNow(revision: number): void {
    if (this.ending || !this.callbacks.onProgress) return;
    this.pending.push(revision);
    this.run();
  }

  /** End with an error after the events already queued. */
  fail(err: Error): void {
    if (this.ending) return;
    this.ending = true;
    this.error = err;
    this.schedule();
  }

  /** End without error after the events already queued (the store is closing). */
  end(): void {
    if (this.ending) return;
    this.ending = true;
    this.schedule();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.ending = true;
    this.pending.length = 0;
    this.onClosed(this);
  }

  private schedule(): void {
    if (this.scheduled || this.closed) return;
    this.scheduled = true;
    queueMicrotask(() => this.drain());
  }

  private drain(): void {
    this.scheduled = false;
    this.run();
  }

  private run(): void {
    if (this.draining) return;
    this.draining = true;
    try {
      this.deliver();
    } finally {
      this.draining = false;
    }
  }

  private deliver(): void {
    while (!this.closed && this.pending.length > 0) {
      const batch = this.pending.shift()!;
      try {
        if (typeof batch === "number") this.callbacks.onProgress?.(batch);
        else this.callbacks.onEvents(batch);
      } catch (err) {
        // A consumer that throws has lost events; ending its watch is the only honest answer.
        this.pending.length = 0;
        this.error = err instanceof Error ? err : new Error(String(err));
        this.ending = true;
      }
    }
    if (this.closed || !this.ending) return;
    const error = this.error;
    this.close();
    if (error !== undefined) this.callbacks.onError(error);
  }
}
