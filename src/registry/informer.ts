import type { KubeObject } from "../api/object.js";
import type { KeyValue, WatchEvent, Watcher } from "../storage/interface.js";
import { RevisionWaiters } from "../support/revision-waiters.js";
import { type InformerRetryOptions, type OnInformerOutage, relistDelayMs } from "./informer-relist.js";
import { resourcePrefix } from "./keys.js";
import type { Store } from "./store.js";
import { decodeOrReason, type OnUndecodable } from "./undecodable.js";

/**
 * A change to the copy. The informer has parsed the new value once already, to check that it
 * decodes (undecodable.ts); listeners get that parse through the store's shared decodes
 * (SharedDecodes) on first access, so a listener that looks away costs nothing more and none parses again.
 */
export interface InformerEvent {
  readonly type: "upsert" | "delete";
  /** The storage key. */
  readonly key: string;
  /** The object as stored now (upsert), or as it was last (delete). */
  readonly object: KubeObject;
  readonly bytes: Buffer;
  /** The object before an upsert that replaced it. */
  readonly old?: KubeObject;
  readonly oldBytes?: Buffer;
}

class DecodedOnAccess implements InformerEvent {
  private decoded?: KubeObject;
  private decodedOld?: KubeObject;

  constructor(
    readonly type: "upsert" | "delete",
    private readonly kv: KeyValue,
    private readonly oldKv: KeyValue | undefined,
    private readonly decode: (kv: KeyValue) => KubeObject,
  ) {}

  get key(): string {
    return this.kv.key;
  }
  get bytes(): Buffer {
    return this.kv.value;
  }
  get oldBytes(): Buffer | undefined {
    return this.oldKv?.value;
  }
  get object(): KubeObject {
    this.decoded ??= this.decode(this.kv);
    return this.decoded;
  }
  get old(): KubeObject | undefined {
    if (this.oldKv) this.decodedOld ??= this.decode(this.oldKv);
    return this.decodedOld;
  }
}

/**
 * An in-memory copy of every object of one kind, kept current from the store's watch
 * (client-go's informer, inside the server). Used where a lookup per request must not
 * touch the database: access keys by hash, users and teams for identity.
 *
 * One per kind per replica, shared by every consumer through SharedInformers
 * (shared-informers.ts); each consumer adds its handlers with onChange().
 *
 * It keeps each object's stored bytes (the KeyValue the watch cache already holds, so no
 * second copy), not decoded objects: a decoded object costs several times its JSON size, and a
 * server with 100,000 objects cannot afford one per informer. A value is parsed when a consumer
 * first asks for it, or when it arrives by the watch (the check below); only the most recent
 * parses are remembered (shared-codec.ts).
 *
 * A stored value that does not decode (undecodable.ts) is never handed to a consumer: get(),
 * list(), listWhere() and entriesWhere() skip it as absent, and events carry only values that
 * decode. A value from the watch is checked as it arrives (one at a time); the values of a list
 * are checked when first read, not all at once, so a start does not parse 100,000 objects nobody
 * asks for (names() may therefore still name one until it is read: its get() answers undefined,
 * as for a name deleted meanwhile). A value found undecodable leaves the copy and is reported once
 * to `onUndecodable` (key, revision, reason), and the events around it go on. It replaces what it
 * overwrites: the previous copy of that object is dropped and its consumers hear a delete, so
 * nothing acts on a stale version of an object whose current version nobody can read (an access
 * key damaged in the store stops authenticating rather than keep its old hash).
 *
 * A watch that ends with an error (history compacted, the store gone, a consumer that threw) is
 * followed by a relist and a new watch; a relist that fails is tried again with backoff until one
 * works or the informer stops (informer-relist.ts), and the owner hears of the outage once
 * (`onOutage`). Meanwhile the copy stays as it was and says so: currentRevision does not move, so
 * waitForRevision()/reach() wait (access decisions fail closed: access-write-barrier.ts), while
 * hasSynced stays true (the copy still exists and is read; it is not a copy that was never filled).
 */
export class Informer {
  /**
   * The values of the last list and of the watch since. A list's values are checked when first
   * read; one that fails leaves the map then (deleting while iterating a Map is safe).
   */
  private readonly objects = new Map<string, KeyValue>();
  /**
   * The revision of each key's undecodable value last reported: a relist meets it again, reported
   * once. A key leaves when it is deleted or a value that decodes replaces it, so the map holds
   * only keys whose current value is damaged, not every key ever damaged.
   */
  private readonly reported = new Map<string, number>();
  private readonly listeners = new Set<(e: InformerEvent) => void>();
  private readonly relistListeners = new Set<() => void>();
  private readonly waiters = new RevisionWaiters();
  private watcher?: Watcher;
  private revision = 0;
  private stopped = false;
  private listed = false;
  private started?: Promise<void>;
  /** Which watch is current: callbacks of an earlier one (ended, closed) are ignored. */
  private generation = 0;
  /** Failed relists in a row, in the outage now (0: none). */
  private failures = 0;
  private retryTimer?: NodeJS.Timeout;

  constructor(
    private readonly store: Store,
    private readonly onUndecodable: OnUndecodable = () => {},
    private readonly options: InformerOptions = {},
  ) {}

  /** Whether kv decodes; when not, reports it (never its bytes) and says so. */
  private decodes(kv: KeyValue): boolean {
    return this.checked(kv) !== undefined;
  }

  /**
   * kv decoded, or undefined when it does not decode: then it is reported, once per version
   * (never its bytes), and leaves the copy if the copy holds it.
   */
  private checked(kv: KeyValue): KubeObject | undefined {
    const result = decodeOrReason(kv, this.decodeKv);
    if (typeof result !== "string") {
      // A good version after a damaged one: the damage is gone (an older good one changes nothing).
      if ((this.reported.get(kv.key) ?? Number.POSITIVE_INFINITY) < kv.modRevision) this.reported.delete(kv.key);
      return result;
    }
    if (this.objects.get(kv.key) === kv) this.objects.delete(kv.key);
    if (this.reported.get(kv.key) !== kv.modRevision) {
      this.reported.set(kv.key, kv.modRevision);
      this.onUndecodable({ resource: this.store.rt.plural, key: kv.key, revision: kv.modRevision, reason: result });
    }
    return undefined;
  }

  private decode(kv: KeyValue): KubeObject {
    return this.store.versions.decodes.of(kv, (k) => this.store.decodeForWatch(k));
  }

  /**
   * Starts the informer the first time anyone asks (a list, then a watch from its revision) and
   * resolves once the copy is complete; later calls share that start. Consumers of a shared
   * informer (shared-informers.ts) add their handlers, then await this.
   */
  synced(): Promise<void> {
    if (!this.started) {
      const start = this.listAndWatch();
      this.started = start;
      // A first list that failed (storage unavailable) is tried again by the next consumer to ask.
      start.catch(() => {
        if (this.started === start) this.started = undefined;
      });
    }
    return this.started;
  }

  /** Whether the first list has been applied (client-go's HasSynced). */
  get hasSynced(): boolean {
    return this.listed;
  }

  private async listAndWatch(): Promise<void> {
    const prefix = resourcePrefix(this.store.rt);
    const list = await this.store.storage.list(prefix);
    if (this.stopped) return;
    const previous = new Map(this.objects);
    this.objects.clear();
    // Not decoded here: each value is checked when a consumer first reads it (checked()).
    for (const kv of list.items) this.objects.set(kv.key, kv);
    // A damaged value deleted while the watch was down: nothing to remember of it.
    for (const key of this.reported.keys()) if (!this.objects.has(key)) this.reported.delete(key);
    // A relist (after a watch that ended with an error) replaces the copy: listeners hear of every
    // difference, as client-go's Replace does, so the indexes they keep stay true. Only the
    // differences are checked, as the watch's events are: an event carries only values that decode.
    if (this.listed) {
      // Before the differences: a consumer that cannot tell what a gap hid hears of it first.
      for (const l of this.relistListeners) this.notify(l);
      for (const kv of list.items) {
        const old = previous.get(kv.key);
        previous.delete(kv.key);
        if (old?.modRevision !== kv.modRevision) this.replaced(kv, old);
      }
      for (const gone of previous.values()) if (this.decodes(gone)) this.emit(this.event("delete", gone));
    }
    this.listed = true;
    this.revision = list.revision;
    const generation = ++this.generation;
    this.watcher = this.store.storage.watch(
      prefix,
      { afterRevision: list.revision },
      {
        onEvents: (events) => {
          if (generation === this.generation) this.apply(events);
        },
        onProgress: (revision) => {
          if (generation !== this.generation) return;
          if (revision > this.revision) this.revision = revision;
          this.release();
        },
        onError: () => {
          if (generation === this.generation) this.relist();
        },
      },
    );
    this.release();
  }

  /**
   * The watch ended with an error: whatever the error (compacted history; a store that went away;
   * a consumer that threw, which lost events), the copy can only be trusted again from a new list.
   */
  private relist(): void {
    this.generation++;
    this.watcher?.close();
    this.watcher = undefined;
    if (this.stopped) return;
    this.listAndWatch().then(
      () => {
        if (!this.stopped) this.countRelist("ok");
        this.recovered();
      },
      (err: unknown) => {
        if (!this.stopped) this.countRelist("failed");
        this.retryLater(err);
      },
    );
  }

  private retryLater(err: unknown): void {
    if (this.stopped) return;
    this.failures++;
    if (this.failures === 1) {
      const error = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
      this.reportOutage({ phase: "failing", error });
    }
    const delay = relistDelayMs(this.failures, this.options);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.relist();
    }, delay);
  }

  private recovered(): void {
    if (this.stopped || this.failures === 0) return;
    this.reportOutage({ phase: "recovered" });
    this.failures = 0;
  }

  private countRelist(result: "ok" | "failed"): void {
    try {
      this.options.onRelistAttempt?.(this.store.rt.plural, result);
    } catch {
      // Counting must not stop the retries.
    }
  }

  private reportOutage(what: { phase: "failing" | "recovered"; error?: string }): void {
    try {
      this.options.onOutage?.({
        resource: this.store.rt.plural,
        failedAttempts: this.failures,
        revision: this.revision,
        ...what,
      });
    } catch {
      // Reporting must not stop the retries.
    }
  }

  /** Whether the copy is being kept current by a watch now (false while a relist is pending or failing). */
  get watching(): boolean {
    return this.watcher !== undefined && !this.stopped;
  }

  /** Stops the watch: for the owner of the informer (SharedInformers), never for one of its consumers. */
  stop(): void {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.watcher?.close();
    this.waiters.releaseAll();
  }

  get currentRevision(): number {
    return this.revision;
  }

  /** How many keys hold a damaged value reported and remembered (reported once per version): for tests. */
  get undecodableKeys(): number {
    return this.reported.size;
  }

  /** Every object, decoded now: O(objects), for controllers' passes, not per request. */
  list(): KubeObject[] {
    const out: KubeObject[] = [];
    for (const kv of this.objects.values()) {
      const obj = this.checked(kv);
      if (obj) out.push(obj);
    }
    return out;
  }

  /**
   * Every object's name (a namespaced kind's as `namespace/name`), none decoded: for queuing them
   * all. May name an undecodable value no one has read yet: get() answers undefined for it.
   */
  names(): string[] {
    const skip = resourcePrefix(this.store.rt).length;
    return [...this.objects.keys()].map((key) => key.slice(skip));
  }

  /**
   * The objects whose stored bytes pass a cheap test (for example "contains this key"), decoded;
   * the others are never parsed. The test may pass objects it need not: callers still check.
   */
  listWhere(mayMatch: (bytes: Buffer) => boolean): KubeObject[] {
    const out: KubeObject[] = [];
    for (const kv of this.objects.values()) {
      const obj = mayMatch(kv.value) ? this.checked(kv) : undefined;
      if (obj) out.push(obj);
    }
    return out;
  }

  /** listWhere() with each object's storage key (the `key` of its events). */
  entriesWhere(mayMatch: (bytes: Buffer) => boolean): Array<{ key: string; object: KubeObject }> {
    const out: Array<{ key: string; object: KubeObject }> = [];
    for (const [key, kv] of this.objects) {
      const object = mayMatch(kv.value) ? this.checked(kv) : undefined;
      if (object) out.push({ key, object });
    }
    return out;
  }

  get(namespace: string | undefined, name: string): KubeObject | undefined {
    const kv = this.objects.get(this.store.key(namespace, name));
    return kv && this.checked(kv);
  }

  /** Adds an event handler (any number, one per consumer); returns its removal. */
  onChange(listener: (e: InformerEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Adds a handler told whenever a relist (after a watch that ended with an error) replaces the
   * copy, before the events of its differences; returns its removal.
   */
  onRelist(listener: () => void): () => void {
    this.relistListeners.add(listener);
    return () => this.relistListeners.delete(listener);
  }

  private notify(listener: () => void): void {
    try {
      listener();
    } catch {
      // A listener's failure must not stop the copy from staying current.
    }
  }

  /** Resolves once every write up to `revision` has been applied to this copy. */
  async waitForRevision(revision: number): Promise<void> {
    if (this.revision >= revision || this.stopped) return;
    await this.waiters.wait(revision);
  }

  /**
   * waitForRevision() for at most `timeoutMs`: whether the copy has applied `revision` by then (a
   * stopped informer serves nobody: true). A waiter that gives up is removed, so a copy stuck
   * behind does not collect them.
   */
  reach(revision: number, timeoutMs: number): Promise<boolean> {
    if (this.revision >= revision || this.stopped) return Promise.resolve(true);
    return this.waiters.wait(revision, timeoutMs);
  }

  /** Waits until this copy has caught up with the store's current revision (a consistent read). */
  async sync(): Promise<void> {
    await this.waitForRevision(await this.store.storage.currentRevision());
  }

  private apply(events: readonly WatchEvent[]): void {
    for (const ev of events) {
      const old = this.objects.get(ev.kv.key);
      if (ev.type === "put") this.replaced(ev.kv, old);
      else {
        // A delete's kv is the object as it was before (etcd's prevKv), the value this copy holds;
        // one never read since a list may not decode: its consumers never had it.
        if (old) {
          this.objects.delete(ev.kv.key);
          if (this.decodes(ev.kv)) this.emit(this.event("delete", ev.kv));
        }
        // Last: decodes() above may just have reported the value deleted.
        this.reported.delete(ev.kv.key);
      }
      this.revision = ev.revision;
    }
    this.release();
  }

  /**
   * `kv` is now stored where the copy held `old`: an upsert when it decodes (`old` only if it
   * does too: a list's value may not have been read yet); otherwise the object leaves the copy
   * as this copy last held it, a delete if that one decodes.
   */
  private replaced(kv: KeyValue, old: KeyValue | undefined): void {
    const previous = old && this.decodes(old) ? old : undefined;
    if (this.decodes(kv)) {
      this.objects.set(kv.key, kv);
      this.emit(this.event("upsert", kv, previous));
    } else {
      this.objects.delete(kv.key);
      if (previous) this.emit(this.event("delete", previous));
    }
  }

  private event(type: "upsert" | "delete", kv: KeyValue, old?: KeyValue): InformerEvent {
    return new DecodedOnAccess(type, kv, old, this.decodeKv);
  }

  /** decode() bound once, for the events (not a closure per event). */
  private readonly decodeKv = (kv: KeyValue): KubeObject => this.decode(kv);

  private emit(e: InformerEvent): void {
    for (const l of this.listeners) {
      try {
        l(e);
      } catch {
        // A listener's failure must not stop the copy from staying current.
      }
    }
  }

  private release(): void {
    this.waiters.release(this.revision);
  }
}

/** What an informer's owner may pass: how it hears of a relist outage, and the retry delays. */
export interface InformerOptions extends InformerRetryOptions {
  readonly onOutage?: OnInformerOutage;
  /** Hears of every relist after a watch ended with an error, and whether it worked (the server counts them). */
  readonly onRelistAttempt?: (resource: string, result: "ok" | "failed") => void;
}
