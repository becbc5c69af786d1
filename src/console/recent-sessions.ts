/** Where changes to the stored sessions are reported from (SealedEntries.watchIds). */
export interface ChangeSource {
  watchIds(changed: (ids: string[]) => void, failed: (err: Error) => void): Promise<{ close(): void }>;
}

/** After a lost watch, the next attempt waits this long (the cache stays off meanwhile). */
const REWATCH_MS = 1000;

/**
 * A few seconds' memory, in this process, of sessions found in the store, so that a busy console
 * does not cost a store read per request. Safe across replicas because it forgets a session as soon
 * as the store reports any change to it (sign-out, a touch, a sweep, on whichever replica), and
 * holds nothing while that report cannot be trusted (no watch running). `ttlMs` bounds what a
 * late report could leave: a session ended elsewhere works here at most that long.
 */
export class RecentSessions<V> {
  readonly #entries = new Map<string, { value: V; until: number }>();
  /** Bumped by every change seen: a lookup that raced one is not kept. */
  #generation = 0;
  #watcher?: { close(): void };
  #retry?: NodeJS.Timeout;
  #stopped = false;

  constructor(
    private readonly source: ChangeSource,
    private readonly ttlMs: number,
    private readonly max: number,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** Starts following changes; until it resolves (or after a failure) nothing is kept. */
  async start(): Promise<void> {
    this.#stopped = false;
    // A restart (after a lost watch, or called again) begins from nothing remembered.
    clearTimeout(this.#retry);
    this.#watcher?.close();
    this.#watcher = undefined;
    this.#forgetAll();
    let failed = false;
    try {
      const watcher = await this.source.watchIds(
        (ids) => this.#changed(ids),
        (err) => {
          failed = true;
          this.#lost(err);
        },
      );
      if (this.#stopped || failed) watcher.close();
      else {
        this.#watcher = watcher;
        // A lookup begun before the watch ran may have read a session removed before it began,
        // which no report will name: its ticket no longer counts.
        this.#generation++;
      }
    } catch (err) {
      this.#lost(err);
    }
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#retry);
    this.#watcher?.close();
    this.#watcher = undefined;
    this.#forgetAll();
  }

  /** Taken before a store read; `keep` uses it to drop what changed while the read was under way. */
  ticket(): number {
    return this.#generation;
  }

  get(id: string, now: number): V | undefined {
    const hit = this.#entries.get(id);
    if (!hit) return undefined;
    if (hit.until > now) return hit.value;
    this.#entries.delete(id);
    return undefined;
  }

  keep(id: string, value: V, ticket: number, now: number): void {
    if (!this.#watcher || ticket !== this.#generation) return;
    // Maps iterate in insertion order: beyond the bound, the oldest go.
    for (const old of this.#entries.keys()) {
      if (this.#entries.size < this.max) break;
      this.#entries.delete(old);
    }
    this.#entries.set(id, { value, until: now + this.ttlMs });
  }

  forget(id: string): void {
    this.#generation++;
    this.#entries.delete(id);
  }

  #changed(ids: string[]): void {
    this.#generation++;
    for (const id of ids) this.#entries.delete(id);
  }

  #lost(err: unknown): void {
    this.#watcher = undefined;
    this.#forgetAll();
    if (this.#stopped) return;
    this.onError(err);
    this.#retry = setTimeout(() => void this.start(), REWATCH_MS);
    this.#retry.unref();
  }

  #forgetAll(): void {
    this.#generation++;
    this.#entries.clear();
  }
}
