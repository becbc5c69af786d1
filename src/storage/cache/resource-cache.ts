/**
 * The watch cache of one resource (one key prefix): every current object as its stored bytes
 * (one Buffer, shared by every reader and watcher, never re-encoded), a ring of recent events,
 * and the revision up to which it has seen everything. It is fed by one storage watch; the
 * storage's progress notifications move its revision forward when writes land elsewhere, which
 * is what lets a consistent read wait only until the cache has caught up.
 */

import { RevisionWaiters } from "../../support/revision-waiters.js";
import { EventRing } from "../event-ring.js";
import type { KeyValue, ListOptions, ListResult, Storage, WatchCallbacks, WatchEvent, Watcher } from "../interface.js";
import { hasPrefix, keyBefore, prefixEnd } from "../key-range.js";
import { QueuedWatcher } from "../queued-watcher.js";
import { SortedKeys } from "./sorted-keys.js";

export interface ResourceCacheOptions {
  /** Events kept for watches that start from a recent revision (default 4096). */
  readonly ringSize?: number;
  /**
   * How long a consistent read waits for the cache to reach the store's revision before it is
   * served by the storage instead (a backend without progress notifications never catches up
   * on writes to other prefixes).
   */
  readonly syncTimeoutMs?: number;
}

const DEFAULT_RING = 4096;
const DEFAULT_SYNC_TIMEOUT_MS = 200;

export class ResourceCache {
  /** Current objects by key. */
  private readonly items = new Map<string, KeyValue>();
  /** The same keys in order, for ranges and pagination. */
  private readonly sorted = new SortedKeys();
  private readonly ring: EventRing;
  /** Everything under the prefix up to this revision has been applied. */
  revision = 0;
  private readonly waiters = new RevisionWaiters();
  private readonly watchers = new Set<QueuedWatcher>();
  private feed: Watcher | undefined;
  private broken: Error | undefined;
  readonly ready: Promise<void>;
  /** Filled: set with the initial list, before any reader can see the cache as current. */
  private started = false;
  /** start() finished: the feed runs (it may fail later: `broken`). */
  private running = false;
  private closed = false;
  /** The last revision check asked for, and what sync() made of it. */
  private lastCheck: Promise<number> | undefined;
  private lastCheckSynced: Promise<boolean> | undefined;
  private readonly syncTimeoutMs: number;

  constructor(
    readonly prefix: string,
    private readonly inner: Storage,
    options: ResourceCacheOptions = {},
    private readonly onBroken: (cache: ResourceCache) => void = () => {},
  ) {
    this.ring = new EventRing(Math.max(16, options.ringSize ?? DEFAULT_RING));
    this.syncTimeoutMs = options.syncTimeoutMs ?? DEFAULT_SYNC_TIMEOUT_MS;
    this.ready = this.start();
    // A failed start (the store unavailable for its list) is reported to the first reader, which
    // falls back to storage; never unhandled. The cache counts as broken, so the owner makes a new
    // one on the next use: else that resource would never be cached again until a restart.
    this.ready.catch((err: unknown) => this.fail(err instanceof Error ? err : new Error(String(err))));
  }

  private async start(): Promise<void> {
    const initial = await this.inner.list(this.prefix);
    this.started = true;
    for (const kv of initial.items) this.items.set(kv.key, kv);
    // Storage lists are in key order already.
    this.sorted.reset(initial.items.map((kv) => kv.key));
    this.revision = initial.revision;
    this.ring.reset(initial.revision);
    this.feed = this.inner.watch(
      this.prefix,
      { afterRevision: initial.revision },
      {
        onEvents: (events) => this.apply(events),
        onProgress: (revision) => this.advance(revision),
        onError: (err) => this.fail(err),
      },
    );
    this.running = true;
  }

  /** True when the cache can no longer be trusted (its feed failed); the owner drops it. */
  get failed(): boolean {
    return this.broken !== undefined;
  }

  private apply(events: readonly WatchEvent[]): void {
    for (const ev of events) {
      if (ev.type === "put") {
        if (!this.items.has(ev.kv.key)) this.sorted.add(ev.kv.key);
        this.items.set(ev.kv.key, ev.kv);
      } else if (this.items.delete(ev.kv.key)) {
        this.sorted.remove(ev.kv.key);
      }
      this.ring.push(ev);
    }
    // This runs in the feed's delivery, outside any storage transaction: deliver in this pass.
    for (const w of this.watchers) w.offerNow(events);
    const last = events[events.length - 1];
    if (last) this.advance(last.revision);
  }

  /**
   * Runs in the feed's delivery (its onProgress, or apply), outside any storage transaction, so
   * the watchers are told in this pass, as apply() does with events: a microtask per watcher
   * (queueMicrotask makes an AsyncResource each time) on every write to any resource was most of
   * what a progress cost, since the etcd hub passes each write's revision to every cache.
   */
  private advance(revision: number): void {
    if (revision > this.revision) this.revision = revision;
    for (const w of this.watchers) w.progressNow(this.revision);
    this.waiters.release(this.revision);
  }

  private fail(err: Error): void {
    this.broken = err;
    for (const w of [...this.watchers]) w.fail(err);
    this.watchers.clear();
    this.waiters.releaseAll();
    this.onBroken(this);
  }

  /**
   * Waits until the cache has seen the store's current revision. False when it could not
   * (broken, or no progress within the timeout): the caller reads from storage instead.
   */
  sync(): Promise<boolean> {
    if (!this.running)
      return this.ready.then(
        () => this.syncRunning(),
        () => false,
      );
    return this.syncRunning();
  }

  /**
   * sync() once started. Written with one `then` rather than as an async function: on etcd every
   * consistent read from memory passes here, and each await is a promise and a microtask more.
   */
  private syncRunning(): Promise<boolean> {
    if (this.broken) return Promise.resolve(false);
    const check = this.inner.currentRevision();
    // Callers that share one revision check (etcd coalesces them) share its outcome too: what it
    // resolves to depends only on the check's answer and on this cache when it comes.
    if (check === this.lastCheck) return this.lastCheckSynced!;
    this.lastCheck = check;
    this.lastCheckSynced = check.then((target) =>
      this.broken ? false : this.revision >= target || this.reach(target),
    );
    return this.lastCheckSynced;
  }

  /**
   * Waits until the cache has applied everything up to `target` (call after `ready`). False
   * when it could not (broken, or not within the timeout).
   */
  async reach(target: number): Promise<boolean> {
    if (this.broken) return false;
    if (this.revision >= target) return true;
    const reached = await this.waiters.wait(target, this.syncTimeoutMs);
    return reached && !this.broken;
  }

  /**
   * sync() without waiting: true when the cache is filled, healthy and provably at the store's
   * current revision right now (only backends that know it synchronously can say so).
   */
  isCurrentNow(): boolean {
    if (!this.started || this.broken) return false;
    const target = this.inner.currentRevisionNow?.();
    return target !== undefined && this.revision >= target;
  }

  /** The current value of a key (call after sync()). */
  get(key: string): KeyValue | undefined {
    return this.items.get(key);
  }

  /** Whether `kv` is still this cache's current version of its key (and the cache still in use). */
  holds(kv: KeyValue): boolean {
    return !this.closed && !this.broken && this.items.get(kv.key) === kv;
  }

  /** How many objects are cached. */
  get size(): number {
    return this.items.size;
  }

  /**
   * A list at the cache's revision (call after sync(); only when options.revision is absent
   * or equal to `revision`, otherwise the storage serves the older snapshot).
   */
  list(prefix: string, options: ListOptions): ListResult {
    const after = options.after ?? "";
    const from = keyBefore(after, prefix) ? prefix : after;
    const sorted = this.sorted.keys();
    let i = this.sorted.lowerBound(from);
    if (i < sorted.length && sorted[i] === after) i++;
    const endKey = prefixEnd(prefix);
    const end = endKey === undefined ? sorted.length : this.sorted.lowerBound(endKey, i);
    const limit = options.limit ?? 0;
    const stop = limit > 0 ? Math.min(end, i + limit) : end;
    const items: KeyValue[] = new Array(stop - i);
    for (let j = i; j < stop; j++) items[j - i] = this.items.get(sorted[j]!)!;
    return { items, revision: this.revision, more: stop < end, remaining: end - stop };
  }

  /**
   * A watch served from the ring and the live feed, or undefined when the revision is older
   * than the ring (the storage serves it from its history, or answers Compacted).
   */
  watch(prefix: string, afterRevision: number, callbacks: WatchCallbacks): Watcher | undefined {
    if (this.broken || this.feed === undefined || afterRevision < this.ring.floor) return undefined;
    // Every event of this cache is under its prefix: a watch of all of it (the usual one) needs
    // no key check per event and watcher ("" is a prefix of every key).
    const own = hasPrefix(this.prefix, prefix) ? "" : prefix;
    const watcher = new QueuedWatcher(own, afterRevision, callbacks, (w) => this.watchers.delete(w));
    const replay = this.ring.after(afterRevision);
    if (replay.length > 0) watcher.offer(replay);
    this.watchers.add(watcher);
    return watcher;
  }

  close(): void {
    this.closed = true;
    this.feed?.close();
    for (const w of [...this.watchers]) w.end();
    this.watchers.clear();
    this.waiters.releaseAll();
  }
}
