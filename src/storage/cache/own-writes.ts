/**
 * The revision at which this process last wrote each key, for as long as the watch cache may
 * not have applied it yet: what CachedStorage.getRecent must wait for before it hands out the
 * cache's copy of that key ("never older than this process's own acknowledged writes").
 *
 * Per key, not one "latest write anywhere": with the latter, an update of one object waited
 * for the watch to echo this replica's write of any other object, so concurrent updates of
 * different objects queued behind each other's echoes (one etcd round trip plus one watch
 * delivery each), and a replica busy with writes made its own read-modify-writes slow.
 *
 * Bounded: entries the caches have passed are pruned once the map grows past PRUNE_AT; if
 * that frees too little (a cache far behind), every entry is replaced by one floor, the
 * highest revision written, which every key then waits for (the old rule, as a fallback).
 */
const PRUNE_AT = 4096;

export class OwnWrites {
  private readonly revisions = new Map<string, number>();
  private floor = 0;
  private highest = 0;
  private pruneAt = PRUNE_AT;

  /** `revisionOf(key)`: how far the cache holding `key` has applied the store's writes. */
  constructor(private readonly revisionOf: (key: string) => number) {}

  wrote(key: string, revision: number): void {
    if (revision > this.highest) this.highest = revision;
    if (revision > (this.revisions.get(key) ?? 0)) this.revisions.set(key, revision);
    if (this.revisions.size > this.pruneAt) this.prune();
  }

  /** The revision the cache of `key` must have reached before its copy of `key` may be used. */
  needed(key: string): number {
    const own = this.revisions.get(key);
    if (own !== undefined && this.revisionOf(key) >= own) {
      this.revisions.delete(key);
      return this.floor;
    }
    return Math.max(own ?? 0, this.floor);
  }

  private prune(): void {
    for (const [key, revision] of this.revisions) {
      if (this.revisionOf(key) >= revision) this.revisions.delete(key);
    }
    if (this.revisions.size > PRUNE_AT / 2) {
      this.revisions.clear();
      this.floor = this.highest;
    }
    this.pruneAt = this.revisions.size + PRUNE_AT;
  }
}
