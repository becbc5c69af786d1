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
 * It asks etcd to split a large response into parts (`fragment`, etcd 3.4+): without it one
 * revision's events, or a catch-up response of up to 1,000 revisions, come as one message of any
 * size, which the client's largest message (max-receive-message-bytes) would refuse again on
 * every restart. The parts are joined here and handed on as the one response they make.
 *
 * The stream is a gRPC stream on the storage's own etcd client (client/etcd-client.ts: its HTTP/2 session,
 * TLS, auth token and failover), decoded field by field (watch-response.ts): etcd3's generic
 * decoder and grpc-js's per-message path were most of the CPU a replica spent on each event.
 */
import { jitteredBackoffMs } from "../../support/jittered-backoff.js";
import { StorageError } from "../errors.js";
import type { WatchEvent } from "../interface.js";
import {
  type BidiHandlers,
  CODE_RESOURCE_EXHAUSTED,
  type EtcdRequestError,
  encodeWatchCreate,
  type GrpcBidiStream,
  type WatchResponse,
  WatchResponseDecoder,
} from "./client/index.js";

/**
 * Reconnection backoff bounds: 50 ms doubling to 2 s, each delay drawn from the upper half of its
 * step (jittered-backoff.ts), so the replicas that lost etcd together do not reconnect in step.
 */
const RETRY_MIN_MS = 50;
const RETRY_MAX_MS = 2_000;
/** A stream that stayed up this long after etcd created it was healthy: its loss starts the backoff afresh. */
const HEALTHY_STREAM_MS = 10_000;

/** The delay before the reconnection that follows `failures` failed or lost streams in a row. */
export function watchReconnectDelayMs(failures: number, random = Math.random): number {
  return jitteredBackoffMs(failures, RETRY_MIN_MS, RETRY_MAX_MS, random);
}

export const ALL_KEYS = Buffer.from([0]);

const WATCH_METHOD = "/etcdserverpb.Watch/Watch";

export interface WatchStreamSink {
  /** The events of one response under the stream's prefix (possibly none), and the revision reached. */
  onResponse(events: WatchEvent[], revision: number): void;
  /** The stream cannot go on (its start revision was compacted); nothing more follows. */
  onCompacted(err: StorageError): void;
  /** Something an operator should see in the server's log (a message over the size limit). */
  onWarning(message: string): void;
}

/** What a watch stream needs of the etcd client (client/etcd-client.ts EtcdClient; tests drive it with their own). */
export interface WatchStreamKv {
  openStream(path: string, handlers: BidiHandlers): Promise<Pick<GrpcBidiStream, "write" | "cancel">>;
  /** The token was refused: the next stream is opened with a fresh one. */
  forgetToken(): void;
}

type Stream = Awaited<ReturnType<WatchStreamKv["openStream"]>>;

export class EtcdWatchStream {
  /** Revision of the last event delivered (or the start point): where a new stream resumes. */
  lastRevision: number;
  private stream: Stream | undefined;
  private readonly decoder: WatchResponseDecoder;
  private closed = false;
  /** Streams lost or refused in a row since the last response (0: none). */
  private failures = 0;
  /** When etcd created the current stream's watch (Date.now()), if it did. */
  private createdAt: number | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  /** The parts so far of a response etcd split (its last part has not come yet). */
  private parts: WatchResponse[] | undefined;

  constructor(
    private readonly kv: WatchStreamKv,
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
    let stream: Stream | undefined;
    // The stream can end before openStream's promise hands it over: the HTTP/2 connection ends
    // its streams synchronously, while it reads a chunk of frames (a GOAWAY refusing the new
    // stream, a protocol error failing the connection). A stream opened from within that read
    // (a watch a consumer starts from its event callback, which the hub calls synchronously from
    // another stream's message; with no token to wait for, openStream opens it synchronously)
    // ends before the promise's callback runs, a microtask later (h2/raw-peer.test.ts shows the
    // connection do so). Then the hand-over cancels it and retries once (watch-stream.test.ts).
    let endedEarly = false;
    const lost = (err: EtcdRequestError): void => {
      // A message over the limit comes again on every restart: each is logged, and the backoff
      // (not reset by the restarted stream's "created") keeps the restarts at one per 2 s at most.
      if (err.code === CODE_RESOURCE_EXHAUSTED && !this.closed) {
        this.sink.onWarning(
          `etcd watch stream failed: ${err.message}; restarting at revision ${this.lastRevision + 1}`,
        );
      }
      if (stream === undefined) {
        endedEarly = true;
        return;
      }
      if (this.stream !== stream) return;
      this.stream = undefined;
      this.retry();
    };
    this.kv
      .openStream(WATCH_METHOD, {
        onMessage: (message) => {
          if (stream !== undefined && this.stream === stream) this.onResponse(this.decoder.decode(message));
        },
        onEnd: lost,
      })
      .then(
        (opened) => {
          stream = opened;
          if (this.closed || endedEarly) {
            opened.cancel();
            if (!this.closed) this.retry();
            return;
          }
          this.stream = opened;
          opened.write(
            encodeWatchCreate({
              key: ALL_KEYS,
              rangeEnd: ALL_KEYS,
              startRevision: this.lastRevision + 1,
              prevKv: true,
              progressNotify: true,
              fragment: true,
            }),
          );
        },
        () => this.retry(),
      );
  }

  /** Breaks the current stream as a network failure would (tests): it resumes by itself. */
  breakStream(): void {
    const stream = this.stream;
    if (stream === undefined) return;
    this.stream = undefined;
    stream.cancel();
    this.retry();
  }

  private retry(): void {
    // The parts of a response cut short: the next stream resumes before it and sends it whole.
    this.parts = undefined;
    if (this.closed) return;
    if (this.createdAt !== undefined && Date.now() - this.createdAt >= HEALTHY_STREAM_MS) this.failures = 0;
    this.createdAt = undefined;
    this.failures++;
    this.retryTimer = setTimeout(() => this.start(), watchReconnectDelayMs(this.failures));
  }

  private onResponse(part: WatchResponse): void {
    if (this.closed) return;
    if (part.fragment) {
      // Held until the last part: a revision's events may straddle two parts, and none of them
      // may be delivered (nor its revision reported reached) before all are.
      if (this.parts === undefined) this.parts = [part];
      else this.parts.push(part);
      return;
    }
    const res = this.parts === undefined ? part : joinParts(this.parts, part);
    this.parts = undefined;
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
      // Cancelled by the server for another reason: e.g. the token the stream was opened with had
      // expired (etcd then refuses the watch as not permitted), or auth was revoked. Reconnect
      // with a fresh token and resume.
      this.kv.forgetToken();
      this.stream?.cancel();
      this.stream = undefined;
      this.retry();
      return;
    }
    // Progress resets the backoff, and so does a stream that stayed up a while (retry()); a new
    // stream's "created" does not: one that fails again at once (a message over the limit, which
    // etcd sends again on every restart) must not restart at full speed.
    if (res.created) {
      this.createdAt = Date.now();
      return;
    }
    this.failures = 0;
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
    this.parts = undefined;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.stream?.cancel();
    this.stream = undefined;
  }
}

/** The response that etcd split into `parts` and `last`: their events in order, the last part's header. */
function joinParts(parts: readonly WatchResponse[], last: WatchResponse): WatchResponse {
  const events: WatchEvent[] = [];
  let eventCount = 0;
  let lastEventRevision = 0;
  for (const part of [...parts, last]) {
    for (const ev of part.events) events.push(ev);
    eventCount += part.eventCount;
    lastEventRevision = Math.max(lastEventRevision, part.lastEventRevision);
  }
  return { ...last, events, eventCount, lastEventRevision };
}
