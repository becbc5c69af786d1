/**
 * One gRPC watch stream over etcd's whole key space, re-established after failures.
 *
 * Not etcd3's Watcher: that one resumes after a disconnect from the *header* revision of the
 * last response, which during a catch-up (or right after creation) is ahead of the events
 * actually delivered, so it could skip events. Here the resume point is the revision of the
 * last event delivered.
 *
 * It covers the whole key space and filters by prefix on our side. That makes progress exact:
 * every etcd revision is made by at least one key change, so a stream that has delivered an
 * event at revision R (for any key) has delivered everything under any prefix up to R. Caches
 * and informers rely on that (onProgress); etcd 3.4's own progress requests are not ordered
 * with events.
 */
import type { Etcd3 } from "etcd3";
import type * as RPC from "etcd3/lib/rpc.js";
import { StorageError } from "../errors.js";
import type { KeyValue, WatchEvent } from "../interface.js";

/** Reconnection backoff bounds. */
const RETRY_MIN_MS = 50;
const RETRY_MAX_MS = 2_000;

export const ALL_KEYS = Buffer.from([0]);

export function toKv(kv: RPC.IKeyValue): KeyValue {
  return {
    key: kv.key.toString(),
    value: Buffer.from(kv.value),
    createRevision: Number(kv.create_revision),
    modRevision: Number(kv.mod_revision),
  };
}

export interface WatchStreamSink {
  /** The events of one response under the stream's prefix (possibly none), and the revision reached. */
  onResponse(events: WatchEvent[], revision: number): void;
  /** The stream cannot go on (its start revision was compacted); nothing more follows. */
  onCompacted(err: StorageError): void;
}

export class EtcdWatchStream {
  /** Revision of the last event delivered (or the start point): where a new stream resumes. */
  lastRevision: number;
  private stream: RPC.IDuplexStream<RPC.IWatchRequest, RPC.IWatchResponse> | undefined;
  private closed = false;
  private retryMs = RETRY_MIN_MS;
  private retryTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly client: Etcd3,
    /** Only keys under this prefix are decoded and passed on ("" for all). */
    private readonly prefix: string,
    afterRevision: number,
    private readonly sink: WatchStreamSink,
  ) {
    this.lastRevision = afterRevision;
  }

  start(): void {
    if (this.closed) return;
    this.client.watchClient.watch().then(
      (stream) => {
        if (this.closed) {
          stream.cancel();
          return;
        }
        this.stream = stream;
        stream.on("data", (res: RPC.IWatchResponse) => {
          if (this.stream === stream) this.onResponse(res);
        });
        const lost = (): void => {
          if (this.stream !== stream) return;
          this.stream = undefined;
          stream.cancel();
          this.retry();
        };
        stream.on("error", lost);
        stream.on("end", lost);
        stream.write({
          create_request: {
            key: ALL_KEYS,
            range_end: ALL_KEYS,
            start_revision: this.lastRevision + 1,
            prev_kv: true,
            progress_notify: true,
          },
        });
      },
      () => this.retry(),
    );
  }

  /** Breaks the current gRPC stream as a network failure would (tests): it resumes by itself. */
  breakStream(): void {
    (this.stream as unknown as { emit(e: string): void } | undefined)?.emit("end");
  }

  private retry(): void {
    if (this.closed) return;
    const delay = this.retryMs;
    this.retryMs = Math.min(RETRY_MAX_MS, this.retryMs * 2);
    this.retryTimer = setTimeout(() => this.start(), delay);
  }

  private onResponse(res: RPC.IWatchResponse): void {
    if (this.closed) return;
    const compacted = Number(res.compact_revision);
    if (compacted > 0) {
      const from = this.lastRevision + 1;
      this.close();
      this.sink.onCompacted(
        new StorageError("Compacted", this.prefix, `revision ${from} was compacted (oldest kept: ${compacted})`),
      );
      return;
    }
    if (res.canceled) {
      // Cancelled by the server for another reason (e.g. auth revoked): reconnect and resume.
      this.stream?.cancel();
      this.stream = undefined;
      this.retry();
      return;
    }
    this.retryMs = RETRY_MIN_MS;
    if (res.created) return;
    if (res.events.length === 0) {
      // A progress notification: sent only to a watcher that has delivered everything so far.
      const revision = Number(res.header.revision);
      if (revision > this.lastRevision) {
        this.lastRevision = revision;
        this.sink.onResponse([], revision);
      }
      return;
    }
    const events: WatchEvent[] = [];
    let revision = this.lastRevision;
    for (const ev of res.events) {
      const rev = Number(ev.kv.mod_revision);
      // After a reconnection the stream resumes at lastRevision + 1, so nothing repeats; this
      // guard only protects the contract should a response ever overlap.
      if (rev <= this.lastRevision) continue;
      revision = rev;
      if (this.prefix !== "" && !ev.kv.key.toString().startsWith(this.prefix)) continue;
      const prevKv = ev.prev_kv ? toKv(ev.prev_kv) : undefined;
      if (ev.type === "Delete") {
        if (!prevKv) continue; // cannot happen with prev_kv requested, unless that revision's value is compacted
        events.push({ type: "delete", kv: { ...prevKv, modRevision: rev }, prevKv, revision: rev });
      } else {
        const kv = toKv(ev.kv);
        events.push(prevKv ? { type: "put", kv, prevKv, revision: rev } : { type: "put", kv, revision: rev });
      }
    }
    this.lastRevision = revision;
    this.sink.onResponse(events, revision);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.stream?.cancel();
    this.stream = undefined;
  }
}
