/**
 * The storage interface: keys, serialized objects and revisions, nothing more.
 *
 * It is shaped after etcd v3 so that the etcd backend implements it as it is:
 * - every write bumps one global, monotonically increasing revision;
 * - a key's `modRevision` is the revision of its last write, `createRevision` the
 *   revision that created it (both as etcd reports them);
 * - the registry uses `modRevision` as the object's resourceVersion.
 *
 * The storage knows nothing about Kubernetes objects: values are opaque bytes
 * (the registry stores JSON).
 */

export interface KeyValue {
  readonly key: string;
  readonly value: Buffer;
  readonly createRevision: number;
  readonly modRevision: number;
}

/** A KeyValue as the storages make them: every version with the same members in the same order (one shape). */
export function newKeyValue(key: string, value: Buffer, createRevision: number, modRevision: number): KeyValue {
  return { key, value, createRevision, modRevision };
}

export interface ListOptions {
  /** Read the state as of this revision (0/undefined: current). Older than the compacted revision: StorageError "Compacted". */
  readonly revision?: number;
  /** Return only keys strictly greater than this one (for pagination). */
  readonly after?: string;
  /** At most this many items (0/undefined: no limit). */
  readonly limit?: number;
  /**
   * False: leave `remaining` at 0. A caller that walks the whole key space page by page (backup,
   * migrate-storage) does not need it, and counting it on every page makes the walk quadratic
   * on a store that has to count (SQLite).
   */
  readonly countRemaining?: boolean;
}

export interface ListResult {
  readonly items: KeyValue[];
  /** The revision the list was read at (the store's current revision when none was asked for). */
  readonly revision: number;
  /** True when `limit` cut the list short. */
  readonly more: boolean;
  /** How many keys remain after the last returned one (only meaningful when `more`, and 0 when `countRemaining` was false). */
  readonly remaining: number;
}

export interface DeleteResult {
  /** The revision of the deletion. */
  readonly revision: number;
  /** The key as it was just before the deletion. */
  readonly prev: KeyValue;
}

/** One operation of a multi-key transaction. All of them apply, or none does. */
export type TxnOp =
  | { readonly type: "create"; readonly key: string; readonly value: Buffer }
  | {
      readonly type: "update";
      readonly key: string;
      readonly value: Buffer;
      readonly expectedModRevision: number;
    }
  | { readonly type: "delete"; readonly key: string; readonly expectedModRevision?: number };

export interface TxnResult {
  /** The revision at which every operation of the transaction became visible. */
  readonly revision: number;
}

export type WatchEventType = "put" | "delete";

export interface WatchEvent {
  readonly type: WatchEventType;
  /**
   * For "put": the key as written (modRevision = event revision; createRevision === modRevision on creation).
   * For "delete": the key's value just before the deletion, with modRevision set to the deletion revision.
   */
  readonly kv: KeyValue;
  /** The value before this write (absent for a creation). */
  readonly prevKv?: KeyValue;
  /** The revision of this event. Events of one watch are delivered in strictly increasing revision order. */
  readonly revision: number;
}

export interface WatchOptions {
  /** Deliver every event with revision > afterRevision. Older than the compacted revision: onError(Compacted). */
  readonly afterRevision: number;
}

export interface Watcher {
  /** Stop delivering events. Idempotent. */
  close(): void;
}

export interface WatchCallbacks {
  /** Events in revision order, possibly several per call (one transaction, or a catch-up batch). */
  onEvents(events: readonly WatchEvent[]): void;
  /** The watch ended with an error (for example Compacted); no more events follow. */
  onError(err: Error): void;
  /**
   * Progress: every event under the prefix with revision <= `revision` has been delivered,
   * even when the writes at those revisions were elsewhere. Lets caches answer "have I seen
   * everything up to the store's current revision?" (etcd's progress notifications).
   */
  onProgress?(revision: number): void;
}

/** Storage.getFromMemory's "memory cannot answer this now: use get()". */
export const NOT_NOW: unique symbol = Symbol("not now");

/** What Storage.getFromMemory answers: the value (undefined: no such key), or NOT_NOW. */
export type MemoryRead = KeyValue | undefined | typeof NOT_NOW;

export interface Storage {
  /** Create a key. It must not exist: StorageError "KeyExists". Returns the new revision. */
  create(key: string, value: Buffer): Promise<number>;
  /** The current value of a key, or undefined. */
  get(key: string): Promise<KeyValue | undefined>;
  /** Keys starting with `prefix`, in key order. */
  list(prefix: string, options?: ListOptions): Promise<ListResult>;
  /**
   * Replace the value of an existing key whose modRevision is `expectedModRevision`.
   * Missing: "NotFound". Other modRevision: "Conflict". Returns the new revision.
   */
  update(key: string, value: Buffer, expectedModRevision: number): Promise<number>;
  /**
   * Delete a key; when `expectedModRevision` is given it must match ("Conflict").
   * Missing: "NotFound".
   */
  delete(key: string, expectedModRevision?: number): Promise<DeleteResult>;
  /** Apply all operations atomically at one revision, or none (the first failing op's StorageError is thrown). */
  txn(ops: readonly TxnOp[]): Promise<TxnResult>;
  /** Stream changes under `prefix` after a revision. */
  watch(prefix: string, options: WatchOptions, callbacks: WatchCallbacks): Watcher;
  /** The store's current revision (the revision of the last write). */
  currentRevision(): Promise<number>;
  /**
   * The same, when the backend knows it without asking anyone (the embedded store does; etcd
   * must ask the cluster): lets a cached read prove it is current without waiting.
   */
  currentRevisionNow?(): number;
  /**
   * Optional, for a storage that keeps current values in memory (the watch cache,
   * storage/cache/): the value of `key` from memory once memory is provably current — at once
   * when the backend knows its revision synchronously, else a promise after one revision check —
   * or NOT_NOW when memory cannot answer (then use get()). A storage that has it answers get()
   * from memory too whenever it can, so a read costs no round trip.
   */
  getFromMemory?(key: string): MemoryRead | Promise<MemoryRead>;
  /**
   * Optional, for the same kind of storage: its copy of `key` without a revision check —
   * possibly older than another replica's write, never older than this process's own write of it — or
   * undefined when it has none it can vouch for. Only for a read-modify-write whose write is
   * conditional on the copy's modRevision (registry/cached-copy.ts).
   */
  getRecent?(key: string): Promise<KeyValue | undefined>;
  /** The oldest revision still readable (0 when nothing was compacted). */
  compactedRevision(): Promise<number>;
  /** Drop history older than `revision`: lists and watches from before it become "Compacted". */
  compact(revision: number): Promise<void>;
  /** Flush and release everything. Pending watches end without error. */
  close(): Promise<void>;
}
