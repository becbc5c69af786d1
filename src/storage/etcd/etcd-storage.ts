/**
 * The etcd v3 backend. The Storage interface was shaped after etcd, so this maps almost 1:1:
 * revisions are etcd's revisions (resourceVersion = mod revision), conditional writes are
 * transactions comparing create/mod revisions, lists are ranges at a revision.
 *
 * Calls: Range, Txn and Compact go over gRPC with the platform's own etcd client (./client/,
 * whose README says why it exists) on HTTP/2 connections of its own; the watch stream and leader
 * election's leases run on the same client's connections.
 *
 * Watches: one gRPC stream over the whole key space per storage, fanned out locally
 * (watch-hub.ts, watch-stream.ts). The store's current revision, which every consistent read
 * from the watch cache needs, is asked with one count-only range shared by every caller that
 * arrives while the previous one is in flight (coalesced-read.ts).
 */
import { StorageError } from "../errors.js";
import type {
  DeleteResult,
  KeyValue,
  ListOptions,
  ListResult,
  Storage,
  TxnOp,
  TxnResult,
  WatchCallbacks,
  Watcher,
  WatchOptions,
} from "../interface.js";
import { keyBefore, prefixEnd } from "../key-range.js";
import {
  type Compare,
  DEFAULT_MAX_RECEIVE_MESSAGE_BYTES,
  EtcdClient,
  MessageTooLargeError,
  type RangeResponse,
  type RequestOp,
  type TxnResponse,
} from "./client/index.js";
import { CoalescedRead } from "./coalesced-read.js";
import { EtcdWatchHub } from "./watch-hub.js";
import { ALL_KEYS } from "./watch-stream.js";

/** Keys per range request of a list (see list()). */
const LIST_PAGE = 1000;

/** About the bytes a page of keys and values took in its answer (keys as UTF-16 units: an estimate). */
function pageBytes(kvs: readonly KeyValue[]): number {
  let bytes = 0;
  for (const kv of kvs) bytes += kv.key.length + kv.value.length;
  return bytes;
}

/** etcd's range_end of a prefix: its end in key order as bytes, or "every key >= start". */
function prefixRangeEnd(prefix: string): Buffer {
  const end = prefixEnd(prefix);
  return end === undefined ? ALL_KEYS : Buffer.from(end);
}

function isCompactedError(err: unknown): boolean {
  return err instanceof Error && /required revision has been compacted/.test(err.message);
}

/** Errors of the connection (no leader, member down, timeout) become StorageError "Unavailable". */
function storageFailure(err: unknown, key: string): Error {
  if (err instanceof StorageError) return err;
  if (isCompactedError(err)) return new StorageError("Compacted", key);
  const message = err instanceof Error ? err.message : String(err);
  if (/closed/i.test(message) && /client/i.test(message)) return closedError(`: ${message}`);
  return new StorageError("Unavailable", key, `etcd: ${message}`);
}

/**
 * A call after close(): the server is stopping. Unavailable, as a store that cannot be reached:
 * a request still in flight then gets 503 with Retry-After (and retries elsewhere), never a 500.
 */
function closedError(detail = ""): StorageError {
  return new StorageError("Unavailable", "", `etcd storage is closed${detail}`);
}

export interface EtcdStorageOptions {
  /** host:port endpoints (or http(s)://host:port). */
  readonly endpoints: readonly string[];
  /** TLS: CA certificate (PEM) to verify the etcd members; enables TLS. */
  readonly ca?: Buffer;
  /** TLS client certificate and key (PEM), for etcd's --client-cert-auth. */
  readonly cert?: Buffer;
  readonly key?: Buffer;
  /** etcd authentication (etcd user / password). */
  readonly user?: string;
  readonly password?: string;
  /** Use TLS with the system's trust roots even without `ca`. */
  readonly tls?: boolean;
  /**
   * Under load, the least time between two revision checks of consistent reads (coalesced-read.ts;
   * default REVISION_CHECK_INTERVAL_MS; 0: a check every event-loop turn, for the lowest latency).
   */
  readonly revisionCheckIntervalMs?: number;
  /** The largest message taken from etcd (grpc-unary.ts DEFAULT_MAX_RECEIVE_MESSAGE_BYTES unless given). */
  readonly maxReceiveMessageBytes?: number;
  /** Where warnings for the operator go (the server passes its log; default console.warn). */
  readonly onWarning?: (message: string) => void;
}

/**
 * The least time between two revision checks while the event loop is saturated: short beside a
 * GET's own round trip to etcd, long enough that one check serves many GETs of a busy server
 * (the bench's etcd GET part shows fewer checks per GET and more GETs a second with it than
 * without). `?revision-check-interval-ms=N` on the etcd URL sets another.
 */
export const REVISION_CHECK_INTERVAL_MS = 4;

export class EtcdStorage implements Storage {
  /**
   * The etcd client (./client/): every KV call (Range, Txn, Compact), the watch stream, and
   * leader election's leases and transaction (../leader-election.ts).
   */
  readonly kv: EtcdClient;
  /** The one etcd watch stream of this storage, fanned out to every watch. */
  readonly hub: EtcdWatchHub;
  /** Revision checks shared by the callers that arrive while one is in flight. */
  readonly revisionCheck: CoalescedRead<number>;
  private closed = false;
  /** The largest message the etcd clients take from etcd. */
  private readonly maxMessageBytes: number;
  private readonly warn: (message: string) => void;

  constructor(options: EtcdStorageOptions) {
    this.warn = options.onWarning ?? ((message) => console.warn(message));
    this.maxMessageBytes = options.maxReceiveMessageBytes ?? DEFAULT_MAX_RECEIVE_MESSAGE_BYTES;
    this.kv = new EtcdClient(options);
    this.hub = new EtcdWatchHub(this.kv, undefined, options.onWarning);
    this.revisionCheck = new CoalescedRead(() => this.readRevision(), {
      minIntervalMs: options.revisionCheckIntervalMs ?? REVISION_CHECK_INTERVAL_MS,
    });
  }

  private checkOpen(): void {
    if (this.closed) throw closedError();
  }

  async create(key: string, value: Buffer): Promise<number> {
    return (await this.txn([{ type: "create", key, value }])).revision;
  }

  async get(key: string): Promise<KeyValue | undefined> {
    this.checkOpen();
    try {
      const res = await this.kv.range({ key });
      return res.kvs[0];
    } catch (err) {
      throw storageFailure(err, key);
    }
  }

  /**
   * A range, read in pages of at most LIST_PAGE keys at one revision: etcd's gateway passes each
   * answer through one gRPC message, and a whole resource can be far larger than one should be
   * (a cache or informer starting on 40,000 objects of 1 KiB failed to start the server once).
   *
   * A page over the client's largest message (max-receive-message-bytes) is read again with half
   * as many keys, down to one. The pages after it keep the smaller size while their objects take
   * more than a quarter of the limit (a page of large objects is usually followed by more of
   * them, and each refused page costs etcd the whole page), and double again once a page took
   * less. Only one object over the limit by itself fails the list.
   */
  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    this.checkOpen();
    const end = prefixRangeEnd(prefix);
    const wanted = options.limit ?? 0;
    let after = options.after;
    let revision = options.revision ?? 0;
    let page = LIST_PAGE;
    const items: KeyValue[] = [];
    try {
      for (;;) {
        const start = after !== undefined && !keyBefore(after, prefix) ? `${after}\0` : prefix;
        const pageLimit = wanted > 0 ? Math.min(page, wanted - items.length) : page;
        const key = prefix === "" && start === "" ? ALL_KEYS : start;
        let res: RangeResponse;
        try {
          res = await this.kv.range({ key, range_end: end, limit: pageLimit, ...(revision ? { revision } : {}) });
        } catch (err) {
          if (!(err instanceof MessageTooLargeError)) throw err;
          if (pageLimit === 1) throw await this.objectTooLarge(prefix, key, end, revision, err);
          page = Math.ceil(pageLimit / 2);
          continue;
        }
        // Every later page is read at the first one's revision: one consistent snapshot.
        if (!revision) revision = res.revision;
        for (const kv of res.kvs) items.push(kv);
        const done = !res.more || (wanted > 0 && items.length >= wanted);
        if (done) {
          const remaining = res.more ? res.count - res.kvs.length : 0;
          return { items, revision, more: res.more, remaining };
        }
        after = items[items.length - 1]!.key;
        if (page < LIST_PAGE && pageBytes(res.kvs) * 4 < this.maxMessageBytes) page = Math.min(LIST_PAGE, page * 2);
      }
    } catch (err) {
      throw storageFailure(err, prefix);
    }
  }

  /**
   * The list's error for one object over the client's largest message: it names the storage URL
   * option that raises the limit, never the object. Its key (read without its value) goes to the
   * server's log only: the list's caller may not be allowed to read every name under the prefix
   * (the watch cache lists a whole resource).
   */
  private async objectTooLarge(
    prefix: string,
    key: Buffer | string,
    end: Buffer,
    revision: number,
    err: MessageTooLargeError,
  ): Promise<StorageError> {
    const detail = `alone is ${err.length} bytes, over the etcd client's largest message of ${err.limit} bytes (the etcd storage URL's max-receive-message-bytes=)`;
    try {
      const res = await this.kv.range({
        key,
        range_end: end,
        limit: 1,
        keys_only: true,
        ...(revision ? { revision } : {}),
      });
      const name = res.kvs[0]?.key;
      if (name !== undefined) this.warn(`etcd list of ${prefix} failed: the object ${name} ${detail}`);
    } catch {
      // The error below still says what to do.
    }
    return new StorageError("Unavailable", prefix, `etcd: an object under ${prefix} ${detail}`);
  }

  async update(key: string, value: Buffer, expectedModRevision: number): Promise<number> {
    return (await this.txn([{ type: "update", key, value, expectedModRevision }])).revision;
  }

  async delete(key: string, expectedModRevision?: number): Promise<DeleteResult> {
    this.checkOpen();
    const op: TxnOp =
      expectedModRevision === undefined ? { type: "delete", key } : { type: "delete", key, expectedModRevision };
    const res = await this.runTxn([op], true);
    const prev = res.responses[0]?.deleteRange?.prevKvs[0];
    if (!prev) throw new StorageError("NotFound", key);
    return { revision: res.revision, prev };
  }

  async txn(ops: readonly TxnOp[]): Promise<TxnResult> {
    this.checkOpen();
    if (ops.length === 0) return { revision: await this.currentRevision() };
    const res = await this.runTxn(ops, false);
    return { revision: res.revision };
  }

  /**
   * One etcd transaction: compares for every op's precondition, the writes on success, and on
   * failure a read of every key (keys_only: its existence and mod revision are all that name the
   * failing op, and a value can be megabytes) so the first failing op can be named precisely. A
   * lone create reads nothing: its one compare is its key's absence, so a failure can only mean
   * KeyExists.
   */
  private async runTxn(ops: readonly TxnOp[], prevKv: boolean): Promise<TxnResponse> {
    const compare: Compare[] = [];
    const success: RequestOp[] = [];
    for (const op of ops) {
      const key = op.key;
      if (op.type === "create") {
        compare.push({ key, target: "CREATE", result: "EQUAL", revision: 0 });
        success.push({ put: { key, value: op.value } });
      } else if (op.type === "update") {
        compare.push({ key, target: "CREATE", result: "GREATER", revision: 0 });
        compare.push({ key, target: "MOD", result: "EQUAL", revision: op.expectedModRevision });
        success.push({ put: { key, value: op.value } });
      } else {
        compare.push({ key, target: "CREATE", result: "GREATER", revision: 0 });
        if (op.expectedModRevision !== undefined) {
          compare.push({ key, target: "MOD", result: "EQUAL", revision: op.expectedModRevision });
        }
        success.push({ deleteRange: { key, prev_kv: prevKv } });
      }
    }
    const loneCreate = ops.length === 1 && ops[0]!.type === "create";
    const failure: RequestOp[] = loneCreate ? [] : ops.map((op) => ({ range: { key: op.key, keys_only: true } }));
    let res: TxnResponse;
    try {
      res = await this.kv.txn({ compare, success, failure });
    } catch (err) {
      throw storageFailure(err, ops[0]!.key);
    }
    if (res.succeeded) return res;
    if (loneCreate) throw new StorageError("KeyExists", ops[0]!.key);
    ops.forEach((op, i) => {
      const current = res.responses[i]?.range?.kvs[0];
      if (op.type === "create") {
        if (current) throw new StorageError("KeyExists", op.key);
      } else {
        if (!current) throw new StorageError("NotFound", op.key);
        const expected = op.expectedModRevision;
        if (expected !== undefined && current.modRevision !== expected) {
          throw new StorageError("Conflict", op.key);
        }
      }
    });
    // Every compare held when re-read: a concurrent writer changed things in between. Callers
    // retry conflicts, so that is the honest answer.
    throw new StorageError("Conflict", ops[0]!.key, "transaction preconditions changed concurrently");
  }

  watch(prefix: string, options: WatchOptions, callbacks: WatchCallbacks): Watcher {
    this.checkOpen();
    return this.hub.watch(prefix, options.afterRevision, callbacks);
  }

  /** Linearizable: at least the revision of every write acknowledged before the call. */
  currentRevision(): Promise<number> {
    if (this.closed) return Promise.reject(closedError());
    return this.revisionCheck.get();
  }

  private async readRevision(): Promise<number> {
    try {
      // A count-only read of one key: the header carries the store's revision, linearizably.
      return (await this.kv.range({ key: ALL_KEYS, count_only: true })).revision;
    } catch (err) {
      throw storageFailure(err, "");
    }
  }

  /**
   * etcd has no call for it. A read at a revision below the compacted one is refused, so a binary
   * search over reads at past revisions finds it (about log2(current revision) count-only reads).
   */
  async compactedRevision(): Promise<number> {
    this.checkOpen();
    const readable = async (revision: number): Promise<boolean> => {
      try {
        await this.kv.range({ key: ALL_KEYS, count_only: true, revision });
        return true;
      } catch (err) {
        if (isCompactedError(err)) return false;
        throw storageFailure(err, "");
      }
    };
    if (await readable(1)) return 0;
    // Invariant: lo is not readable, hi is.
    let lo = 1;
    let hi = await this.currentRevision();
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (await readable(mid)) hi = mid;
      else lo = mid;
    }
    return hi;
  }

  async compact(revision: number): Promise<void> {
    this.checkOpen();
    try {
      await this.kv.compact(revision);
    } catch (err) {
      // Compacting to a revision already compacted is a no-op, as for SQLite.
      if (isCompactedError(err)) return;
      throw storageFailure(err, "");
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.hub.close();
    await this.kv.close();
  }
}
