/**
 * A Storage that serves reads and watches of each resource from a ResourceCache and passes
 * writes through. The registry sees the same Storage interface, so store.ts, store-list.ts and
 * store-watch.ts keep their semantics unchanged (resourceVersion/resourceVersionMatch, continue
 * tokens, 410 for compacted revisions, selectors): what the cache cannot answer exactly (a list
 * at an older revision, a watch from before the event ring) goes to the storage.
 */
import type {
  DeleteResult,
  KeyValue,
  ListOptions,
  ListResult,
  MemoryRead,
  Storage,
  TxnOp,
  TxnResult,
  WatchCallbacks,
  Watcher,
  WatchOptions,
} from "../interface.js";
import { NOT_NOW } from "../interface.js";
import { OwnWrites } from "./own-writes.js";
import { ResourceCache, type ResourceCacheOptions } from "./resource-cache.js";

export interface CachedStorageOptions extends ResourceCacheOptions {
  /**
   * The cache partition a key or prefix belongs to (a prefix ending in "/"), or undefined when
   * it is not cached. The key layout is the caller's (the registry caches one partition per
   * resource: registry/keys.ts registryPartition).
   */
  readonly partition: (keyOrPrefix: string) => string | undefined;
}

/** Partitions of `root` followed by `segments` path segments. */
export function partitionBySegments(root: string, segments: number): (keyOrPrefix: string) => string | undefined {
  return (k) => {
    if (!k.startsWith(root)) return undefined;
    let at = root.length;
    for (let i = 0; i < segments; i++) {
      const slash = k.indexOf("/", at);
      if (slash < 0) return undefined;
      at = slash + 1;
    }
    return k.slice(0, at);
  };
}

/**
 * Told of each write this process makes, once the store acknowledged it and before it is
 * answered: its key, operation, revision and (create, update) value. The answer waits for the
 * promise it returns; undefined answers at once (auth/access-write-barrier.ts).
 */
export type WriteBarrier = (
  key: string,
  op: TxnOp["type"],
  revision: number,
  value: Buffer | undefined,
) => Promise<void> | undefined;

/**
 * Told of a cache's objects once it is filled (its first list, or a new cache's after the last one
 * failed): the partition, its current versions in key order, and whether a version is still the
 * cache's current one (false once replaced, deleted, or the cache dropped or closed).
 */
export type FillListener = (partition: string, items: readonly KeyValue[], holds: (kv: KeyValue) => boolean) => void;

export class CachedStorage implements Storage {
  private readonly caches = new Map<string, ResourceCache>();
  private readonly partition: (keyOrPrefix: string) => string | undefined;
  private barrier: WriteBarrier | undefined;
  private fillListener: FillListener | undefined;

  constructor(
    readonly inner: Storage,
    private readonly options: CachedStorageOptions,
  ) {
    this.partition = options.partition;
  }

  /** The cache of a partition, started on first use. */
  cacheFor(keyOrPrefix: string): ResourceCache | undefined {
    const p = this.partition(keyOrPrefix);
    if (p === undefined) return undefined;
    let cache = this.caches.get(p);
    if (cache === undefined || cache.failed) {
      cache?.close();
      cache = new ResourceCache(p, this.inner, this.options, (broken) => {
        if (this.caches.get(p) === broken) this.caches.delete(p);
      });
      this.caches.set(p, cache);
      this.tellFilled(p, cache);
    }
    return cache;
  }

  /**
   * Tells `listener` of each cache's objects once it is filled, those filled already included.
   * The cache knows bytes, not resource types: what to do with them ahead of any read is its
   * owner's (the server checks stored bytes in the background: registry/stored-bytes-precheck.ts).
   */
  whenFilled(listener: FillListener): void {
    this.fillListener = listener;
    for (const [p, cache] of this.caches) this.tellFilled(p, cache);
  }

  /** Caches whose fill the listener heard of: once each, though whenFilled may ask again while one fills. */
  private readonly told = new WeakSet<ResourceCache>();

  private tellFilled(p: string, cache: ResourceCache): void {
    cache.ready.then(
      () => {
        if (!this.fillListener || cache.failed || this.told.has(cache)) return;
        this.told.add(cache);
        this.fillListener(p, cache.list(p, {}).items, (kv) => cache.holds(kv));
      },
      () => {}, // A failed start is reported to its readers (cacheFor's caller).
    );
  }

  /** Starts (and fills) the caches of these partitions now rather than on first use. */
  async prime(prefixes: readonly string[]): Promise<void> {
    await Promise.all(prefixes.map((p) => this.cacheFor(p)?.ready));
  }

  /** Holds the answer of every write from now on until `barrier` lets it go. */
  holdWrites(barrier: WriteBarrier): void {
    this.barrier = barrier;
  }

  async create(key: string, value: Buffer): Promise<number> {
    const revision = await this.inner.create(key, value);
    const held = this.acknowledged(key, "create", revision, value);
    if (held) await held;
    return revision;
  }

  async update(key: string, value: Buffer, expectedModRevision: number): Promise<number> {
    const revision = await this.inner.update(key, value, expectedModRevision);
    const held = this.acknowledged(key, "update", revision, value);
    if (held) await held;
    return revision;
  }

  async delete(key: string, expectedModRevision?: number): Promise<DeleteResult> {
    const res = await this.inner.delete(key, expectedModRevision);
    const held = this.acknowledged(key, "delete", res.revision, undefined);
    if (held) await held;
    return res;
  }

  async txn(ops: readonly TxnOp[]): Promise<TxnResult> {
    const res = await this.inner.txn(ops);
    const held = ops.map((op) =>
      this.acknowledged(op.key, op.type, res.revision, op.type === "delete" ? undefined : op.value),
    );
    if (held.some((h) => h !== undefined)) await Promise.all(held);
    return res;
  }

  /** What this process wrote, per key, that getRecent must wait for the cache to apply. */
  private readonly ownWrites = new OwnWrites((key) => {
    const p = this.partition(key);
    // No cache yet: one started later fills at a revision after every acknowledged write.
    return (p === undefined ? undefined : this.caches.get(p)?.revision) ?? Number.POSITIVE_INFINITY;
  });

  /**
   * A write of `key` the store acknowledged at `revision`: remembered for getRecent, and passed to
   * the write barrier, whose promise (if any) the answer waits for.
   */
  private acknowledged(
    key: string,
    op: TxnOp["type"],
    revision: number,
    value: Buffer | undefined,
  ): Promise<void> | undefined {
    this.ownWrites.wrote(key, revision);
    return this.barrier?.(key, op, revision, value);
  }

  /**
   * The cache's copy of a key, with no revision check (no etcd round trip): possibly older
   * than a write another replica just made, never older than this process's own acknowledged
   * writes of that key (own-writes.ts). For the first attempt of a read-modify-write whose write is conditional on the
   * key's modRevision (that condition catches a stale copy), as kube-apiserver's updates start
   * from the watch cache's copy. Undefined when the cache has no copy or cannot vouch for one
   * (then read consistently).
   */
  async getRecent(key: string): Promise<KeyValue | undefined> {
    const cache = this.cacheFor(key);
    if (cache === undefined) return undefined;
    try {
      await cache.ready;
    } catch {
      return undefined;
    }
    return (await cache.reach(this.ownWrites.needed(key))) ? cache.get(key) : undefined;
  }

  /**
   * The cached value at once when the cache can prove right now that it is current (the
   * embedded store knows its revision), else after the store's revision check (etcd must be
   * asked): no promise is made when none is needed, this is the hot GET's read.
   */
  getFromMemory(key: string): MemoryRead | Promise<MemoryRead> {
    const cache = this.cacheFor(key);
    if (cache === undefined) return NOT_NOW;
    if (cache.isCurrentNow()) return cache.get(key);
    return cache.sync().then((current) => (current ? cache.get(key) : NOT_NOW));
  }

  async get(key: string): Promise<KeyValue | undefined> {
    const cache = this.cacheFor(key);
    if (cache && (await cache.sync())) return cache.get(key);
    return this.inner.get(key);
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    const cache = this.cacheFor(prefix);
    const asked = options.revision ?? 0;
    if (cache && (asked === 0 || asked === cache.revision)) {
      if (asked === 0 ? await cache.sync() : true) {
        // The revision may have moved while waiting; an explicit one must still match exactly.
        if (asked === 0 || asked === cache.revision) return cache.list(prefix, options);
      }
    }
    return this.inner.list(prefix, options);
  }

  watch(prefix: string, options: WatchOptions, callbacks: WatchCallbacks): Watcher {
    const cache = this.cacheFor(prefix);
    return cache?.watch(prefix, options.afterRevision, callbacks) ?? this.inner.watch(prefix, options, callbacks);
  }

  currentRevision(): Promise<number> {
    return this.inner.currentRevision();
  }

  compactedRevision(): Promise<number> {
    return this.inner.compactedRevision();
  }

  compact(revision: number): Promise<void> {
    return this.inner.compact(revision);
  }

  async close(): Promise<void> {
    for (const cache of this.caches.values()) cache.close();
    this.caches.clear();
    await this.inner.close();
  }
}
