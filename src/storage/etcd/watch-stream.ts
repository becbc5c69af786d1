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
 *
 * The stream runs on etcd3's connection (its channel, TLS credentials and auth token) but is
 * opened here with a decoder of its own (watch-response.ts): etcd3's generic one cost a replica
 * a fifth to a quarter of its CPU per event (the rest is mostly grpc-js).
 */
import type { ClientDuplexStream } from "@grpc/grpc-js";
import type { Etcd3 } from "etcd3";
import type { ConnectionPool } from "etcd3/lib/connection-pool.js";
import { StorageError } from "../errors.js";
import type { WatchEvent } from "../interface.js";
import { encodeWatchCreate, type WatchResponse, WatchResponseDecoder } from "./watch-response.js";

/** Reconnection backoff bounds. */
const RETRY_MIN_MS = 50;
const RETRY_MAX_MS = 2_000;

export const ALL_KEYS = Buffer.from([0]);

const WATCH_METHOD = "/etcdserverpb.Watch/Watch";

type RawWatchStream = ClientDuplexStream<Buffer, WatchResponse>;

/** etcd3's connection pool of a client (a protected member of its typings; the watch runs on it). */
const poolOf = (client: Etcd3): ConnectionPool => (client as unknown as { pool: ConnectionPool }).pool;

/**
 * A raw Watch stream on the client's connection, as etcd3's own watchClient.watch() opens it (the
 * host's Watch service client, its auth metadata and call options; a failed host is marked), but
 * with `decode` for the responses.
 */
function openWatch(client: Etcd3, decode: (message: Buffer) => WatchResponse): Promise<RawWatchStream> {
  const pool = poolOf(client);
  return pool.withConnection("Watch", ({ resource, client: grpc, metadata }) => {
    const factory = pool.callOptionsFactory;
    const options =
      typeof factory === "function" ? factory({ service: "Watch", method: "watch", isStream: true }) : factory;
    const stream = grpc.makeBidiStreamRequest(WATCH_METHOD, (b: Buffer) => b, decode, metadata, options);
    stream.on("error", (err) => stream.writable && pool.markFailed(resource, err));
    return stream;
  });
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
  private stream: RawWatchStream | undefined;
  private readonly decoder: WatchResponseDecoder;
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
    this.decoder = new WatchResponseDecoder(Buffer.from(prefix));
  }

  start(): void {
    if (this.closed) return;
    openWatch(this.client, (message) => this.decoder.decode(message)).then(
      (stream) => {
        if (this.closed) {
          stream.cancel();
          return;
        }
        this.stream = stream;
        stream.on("data", (res: WatchResponse) => {
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
        stream.write(
          encodeWatchCreate({
            key: ALL_KEYS,
            rangeEnd: ALL_KEYS,
            startRevision: this.lastRevision + 1,
            prevKv: true,
            progressNotify: true,
          }),
        );
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

  private onResponse(res: WatchResponse): void {
    if (this.closed) return;
    const compacted = res.compactRevision;
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
    if (res.eventCount === 0) {
      // A progress notification: sent only to a watcher that has delivered everything so far.
      if (res.revision > this.lastRevision) {
        this.lastRevision = res.revision;
        this.sink.onResponse([], res.revision);
      }
      return;
    }
    // After a reconnection the stream resumes at lastRevision + 1, so nothing repeats; this
    // guard only protects the contract should a response ever overlap.
    const after = this.lastRevision;
    const first = res.events[0];
    const events =
      first === undefined || first.revision > after ? res.events : res.events.filter((ev) => ev.revision > after);
    this.lastRevision = Math.max(after, res.lastEventRevision);
    this.sink.onResponse(events, this.lastRevision);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.stream?.cancel();
    this.stream = undefined;
  }
}
