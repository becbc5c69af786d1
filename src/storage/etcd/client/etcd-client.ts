/**
 * The etcd client: the KV calls the storage makes (Range; Txn, which carries its puts and
 * deletes; Compact), leader election's leases and transaction, Put, and bidirectional streams
 * (the watch), over gRPC on HTTP/2 connections of our own (h2/connection.ts, grpc-unary.ts). The
 * storage's Range and Txn messages are encoded in kv-request-frames.ts and decoded in
 * kv-proto.ts; every other message by the generated codec (generated-codec.ts).
 *
 * Why this and not the `etcd3` client or etcd's JSON gateway (client and etcd CPU per call with
 * many create transactions in flight, docs/performance.md, "The etcd client"): `etcd3` (grpc-js)
 * costs the client the most; etcd's JSON gateway is cheap for the client but costs etcd several
 * times as much (etcd decodes the JSON and calls its own gRPC server); gRPC on node:http2 was
 * cheap for both, and node:http2 itself was then most of the client's part (a Duplex stream,
 * header objects and async-context wrappers per call), hence the connection of our own (h2/).
 *
 * One HTTP/2 connection per endpoint carries every call to it concurrently. Failover: one endpoint
 * is used at a time; a transport failure or an etcd "no leader" moves to the next one. A read is
 * then retried there at once, a write only when it surely never reached etcd (the session never
 * connected, or etcd refused the stream): a write whose answer was lost may have been applied,
 * and only the caller can tell whether to retry it.
 *
 * Auth: a client certificate is presented under TLS (etcd takes its CommonName as the user when
 * no token is sent); with a user, a token from Auth/Authenticate goes in the "token" metadata.
 * When etcd says a token is no longer valid (tokens expire, --auth-token-ttl), one fresh token is
 * fetched for everyone and the call is sent again (it was refused, so nothing was applied).
 */
import { CallDeadlines } from "./call-deadlines.js";
import { etcdProto, type etcdserverpb, type GeneratedLong, int64Number } from "./generated-codec.js";
import { type BidiHandlers, GrpcBidiStream } from "./grpc-bidi.js";
import {
  CODE_UNAUTHENTICATED,
  CODE_UNAVAILABLE,
  DEFAULT_MAX_RECEIVE_MESSAGE_BYTES,
  frame,
  type UnaryOutcome,
  unaryCall,
} from "./grpc-unary.js";
import { H2Connection } from "./h2/connection.js";
import { RequestHeaderBlocks } from "./h2/hpack-request.js";
import {
  type EtcdKv,
  EtcdRequestError,
  type RangeRequest,
  type RangeResponse,
  type TxnRequest,
  type TxnResponse,
} from "./kv-calls.js";
import { decodeRangeResponse, decodeTxnResponse } from "./kv-proto.js";
import { rangeRequestFrame, txnRequestFrame } from "./kv-request-frames.js";
import { keepAliveOnce, LEASE_KEEPALIVE_PATH } from "./lease-keepalive.js";

const pb = etcdProto.etcdserverpb;

/**
 * A lease etcd granted: its ID and its TTL in seconds. The ID is an int64 that uses all 64 bits,
 * hence a Long (its toString() is the decimal ID etcdctl shows); pass it back as it is.
 */
export interface Lease {
  readonly id: LeaseId;
  readonly ttlSeconds: number;
}

export type LeaseId = GeneratedLong;

/** gRPC's UNKNOWN: an error etcd reported in the answer rather than as a status. */
const CODE_UNKNOWN = 2;
/** A member that accepted the call but does not answer (stopped, partitioned). */
const ANSWER_TIMEOUT_MS = 30_000;
/** Until the member's first HTTP/2 SETTINGS: a member stopped (SIGSTOP) still accepts TCP connections. */
const CONNECT_TIMEOUT_MS = 5_000;
/**
 * A session with calls or streams open is pinged this often; one whose previous ping has not
 * been answered by then is dead (a member partitioned away, a connection dropped without a
 * reset) and is destroyed, which ends its calls and its watch (which then resumes elsewhere).
 * etcd refuses pings more often than every 5 s (--grpc-keepalive-min-time), and pings on a
 * session without streams far more strictly, so an idle session is not pinged.
 */
const KEEPALIVE_MS = 10_000;
/** On close, streams still open (a watch not cancelled) are cut after this long. */
const CLOSE_GRACE_MS = 2_000;
/**
 * HTTP/2 flow-control windows: a list page (1,000 objects) is often over a MiB, which the
 * default 64 KiB window would deliver in many round trips of window updates.
 */
const STREAM_WINDOW = 4 << 20;
const SESSION_WINDOW = 32 << 20;

export interface EtcdClientOptions {
  /** host:port (or http(s)://host:port) of every member. */
  readonly endpoints: readonly string[];
  readonly tls?: boolean;
  readonly ca?: Buffer;
  readonly cert?: Buffer;
  readonly key?: Buffer;
  readonly user?: string;
  readonly password?: string;
  /** KEEPALIVE_MS unless given (tests). */
  readonly keepaliveMs?: number;
  /** ANSWER_TIMEOUT_MS unless given (tests). */
  readonly answerTimeoutMs?: number;
  /** CONNECT_TIMEOUT_MS unless given (tests). */
  readonly connectTimeoutMs?: number;
  /** The largest message taken from etcd (grpc-unary.ts DEFAULT_MAX_RECEIVE_MESSAGE_BYTES unless given). */
  readonly maxReceiveMessageBytes?: number;
}

interface Session {
  readonly h2: H2Connection;
  /** Request header blocks for this endpoint (:authority, :scheme). */
  readonly blocks: RequestHeaderBlocks;
  /** Calls and streams open on it. */
  streams: number;
  /** A keepalive ping is waiting for its answer. */
  pinging?: boolean;
}

export class EtcdClient implements EtcdKv {
  private readonly origins: string[];
  private readonly sessions: (Session | undefined)[];
  /** Index of the endpoint in use. */
  private current = 0;
  private token: Promise<string> | undefined;
  private closed = false;
  private readonly deadlines: CallDeadlines;
  private readonly maxMessageBytes: number;
  /** Tokens fetched so far (tests). */
  authentications = 0;

  constructor(private readonly options: EtcdClientOptions) {
    const tls = options.tls === true || options.ca !== undefined || options.cert !== undefined;
    this.origins = options.endpoints.map((e) => (/^https?:\/\//.test(e) ? e : `${tls ? "https" : "http"}://${e}`));
    if (this.origins.length === 0) throw new Error("no etcd endpoints");
    this.sessions = this.origins.map(() => undefined);
    this.deadlines = new CallDeadlines(options.answerTimeoutMs ?? ANSWER_TIMEOUT_MS);
    this.maxMessageBytes = options.maxReceiveMessageBytes ?? DEFAULT_MAX_RECEIVE_MESSAGE_BYTES;
  }

  async range(r: RangeRequest): Promise<RangeResponse> {
    return decodeRangeResponse(await this.call("/etcdserverpb.KV/Range", rangeRequestFrame(r), true));
  }

  async txn(t: TxnRequest): Promise<TxnResponse> {
    // A transaction that only reads could be retried, but the storage's all write.
    return decodeTxnResponse(await this.call("/etcdserverpb.KV/Txn", txnRequestFrame(t), false));
  }

  /** Compacting twice to one revision is harmless, so this one is retried like a read. */
  async compact(revision: number): Promise<void> {
    // physical: answer once the compaction is applied.
    const request = pb.CompactionRequest.encode({ revision, physical: true }).finish();
    await this.call("/etcdserverpb.KV/Compact", frame(request), true);
  }

  /**
   * Any Txn etcd takes, as its generated message types (the storage's own transactions go
   * through txn(), whose request is written field by field; this one carries every field, e.g.
   * a put's lease, for leader election).
   */
  async txnMessage(t: etcdserverpb.ITxnRequest): Promise<etcdserverpb.TxnResponse> {
    const answer = await this.call("/etcdserverpb.KV/Txn", frame(pb.TxnRequest.encode(t).finish()), false);
    return pb.TxnResponse.decode(answer);
  }

  /**
   * Creates `key` with `value`, bound to `lease`, unless the key exists (one transaction): whether
   * it did, and otherwise the lease the existing key is bound to (none: undefined).
   */
  async createIfAbsent(
    key: Buffer,
    value: Buffer,
    lease: LeaseId,
  ): Promise<{ created: boolean; holderLease?: LeaseId }> {
    const { CompareResult, CompareTarget } = pb.Compare;
    const res = await this.txnMessage({
      compare: [{ key, target: CompareTarget.CREATE, result: CompareResult.EQUAL, create_revision: 0 }],
      success: [{ request_put: { key, value, lease } }],
      failure: [{ request_range: { key } }],
    });
    if (res.succeeded) return { created: true };
    const holder = res.responses[0]?.response_range?.kvs?.[0]?.lease;
    // A key without a lease decodes its lease as 0, a number; a lease ID is a Long.
    return typeof holder === "object" && holder !== null ? { created: false, holderLease: holder } : { created: false };
  }

  /** One Put (etcd's Put call, not a Txn): the store's revision after it. */
  async put(key: Buffer | string, value: Buffer): Promise<number> {
    const request = pb.PutRequest.encode({ key: typeof key === "string" ? Buffer.from(key) : key, value }).finish();
    const answer = await this.call("/etcdserverpb.KV/Put", frame(request), false);
    return int64Number(pb.PutResponse.decode(answer).header?.revision);
  }

  /** A new lease of `ttlSeconds` (etcd may grant a longer TTL than asked: its minimum). */
  async leaseGrant(ttlSeconds: number): Promise<Lease> {
    const request = pb.LeaseGrantRequest.encode({ TTL: ttlSeconds }).finish();
    // Not retried after it was sent: a second grant would leave the first lease to expire unused.
    const res = pb.LeaseGrantResponse.decode(await this.call("/etcdserverpb.Lease/LeaseGrant", frame(request), false));
    if (res.error) throw new EtcdRequestError(`etcd refused a lease: ${res.error}`, CODE_UNKNOWN);
    if (typeof res.ID === "number") throw new EtcdRequestError("etcd answered a lease without an ID", CODE_UNKNOWN);
    return { id: res.ID, ttlSeconds: int64Number(res.TTL) };
  }

  /** Renews a lease once: its TTL from now on in seconds, or 0 when etcd no longer knows it. */
  leaseKeepAlive(id: LeaseId): Promise<number> {
    const timeoutMs = this.options.answerTimeoutMs ?? ANSWER_TIMEOUT_MS;
    return keepAliveOnce((handlers) => this.openStream(LEASE_KEEPALIVE_PATH, handlers), id, timeoutMs);
  }

  /** Ends a lease and deletes every key attached to it (revoking twice: etcd answers NotFound). */
  async leaseRevoke(id: LeaseId): Promise<void> {
    const request = pb.LeaseRevokeRequest.encode({ ID: id }).finish();
    await this.call("/etcdserverpb.Lease/LeaseRevoke", frame(request), true);
  }

  /**
   * Fetch a fresh auth token for the next call or stream: etcd refuses a watch opened with an
   * expired token by cancelling it, which does not say why the way a refused call does.
   */
  forgetToken(): void {
    this.token = undefined;
  }

  /** The origin calls go to now (tests). */
  get endpoint(): string {
    return this.origins[this.current]!;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const open = this.sessions.filter((s): s is Session => s !== undefined);
    this.sessions.fill(undefined);
    await Promise.all(
      open.map(
        (s) =>
          new Promise<void>((resolve) => {
            const cut = setTimeout(() => s.h2.destroy(), CLOSE_GRACE_MS).unref();
            s.h2.close(() => {
              clearTimeout(cut);
              resolve();
            });
          }),
      ),
    );
  }

  /**
   * A bidirectional stream (etcd's Watch) on the session of the endpoint in use, with the auth
   * token. When it ends for a transport failure, later calls and streams go to the next endpoint;
   * when etcd refused its token, the next one is sent with a fresh token.
   */
  async openStream(path: string, handlers: BidiHandlers): Promise<GrpcBidiStream> {
    if (this.closed) throw new Error("etcd client is closed");
    const index = this.current;
    const tokenPromise = this.options.user !== undefined ? this.authToken() : undefined;
    const token = tokenPromise === undefined ? undefined : await tokenPromise;
    if (this.closed) throw new Error("etcd client is closed");
    const session = this.session(index);
    const stream = new GrpcBidiStream(
      session.h2,
      session.blocks.block(path, token),
      {
        onMessage: handlers.onMessage,
        onEnd: (err) => {
          if (err.code === CODE_UNAVAILABLE) {
            err.message = `etcd ${this.origins[index]}: ${err.message}`;
            this.failover(index);
            this.drop(index, session);
          } else if (err.code === CODE_UNAUTHENTICATED && this.token === tokenPromise) {
            this.token = undefined;
          }
          handlers.onEnd(err);
        },
      },
      () => session.streams--,
      this.maxMessageBytes,
    );
    session.streams++;
    return stream;
  }

  /**
   * One call, moved to the next endpoint after a transport failure or "no leader" (every
   * endpoint at most once), and sent again once with a fresh token when etcd refused the token.
   */
  private async call(path: string, request: Buffer, idempotent: boolean): Promise<Buffer> {
    let tried = 0;
    let reauthenticated = false;
    for (;;) {
      if (this.closed) throw new Error("etcd client is closed");
      const index = this.current;
      const tokenPromise = this.options.user !== undefined ? this.authToken() : undefined;
      const token = tokenPromise === undefined ? undefined : await tokenPromise;
      const outcome = await this.send(index, path, request, token);
      if ("ok" in outcome) return outcome.ok;
      const { err, sent } = outcome;
      if (err.code === CODE_UNAUTHENTICATED && tokenPromise !== undefined && !reauthenticated) {
        reauthenticated = true;
        // Expired: the next call fetches a fresh one (once, unless another caller already did).
        if (this.token === tokenPromise) this.token = undefined;
        continue;
      }
      if (err.code !== CODE_UNAVAILABLE) throw err;
      this.failover(index);
      tried++;
      // A read gets a second try even with one endpoint: a session the member closed
      // (restarted) fails the calls on it, and a fresh one may well succeed.
      if (tried >= Math.max(this.origins.length, idempotent ? 2 : 1) || (sent && !idempotent)) throw err;
    }
  }

  private async send(index: number, path: string, request: Buffer, token: string | undefined): Promise<UnaryOutcome> {
    const session = this.session(index);
    session.streams++;
    const outcome = await unaryCall({
      connection: session.h2,
      headerBlock: session.blocks.block(path, token),
      frame: request,
      deadlines: this.deadlines,
      maxMessageBytes: this.maxMessageBytes,
    });
    session.streams--;
    if ("err" in outcome && outcome.err.code === CODE_UNAVAILABLE) {
      outcome.err.message = `etcd ${this.origins[index]}: ${outcome.err.message}`;
      // The next call to this member starts on a fresh connection.
      this.drop(index, session);
    }
    return outcome;
  }

  /** The open session to an endpoint, or a new one. */
  private session(index: number): Session {
    const existing = this.sessions[index];
    if (existing && !existing.h2.closing) return existing;
    const url = new URL(this.origins[index]!);
    const tls = url.protocol === "https:";
    const { ca, cert, key } = this.options;
    let keepalive: NodeJS.Timeout | undefined;
    const connectTimeoutMs = this.options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;
    const connectTimer = setTimeout(() => {
      h2.destroy(Object.assign(new Error(`no HTTP/2 connection within ${connectTimeoutMs} ms`), { code: "ETIMEDOUT" }));
    }, connectTimeoutMs);
    const h2: H2Connection = new H2Connection(
      {
        host: url.hostname.replace(/^\[(.*)\]$/, "$1"),
        port: Number(url.port || (tls ? 443 : 80)),
        tls,
        ...(ca ? { ca } : {}),
        ...(cert ? { cert } : {}),
        ...(key ? { key } : {}),
        streamWindow: STREAM_WINDOW,
        connectionWindow: SESSION_WINDOW,
      },
      {
        onConnect: () => {
          clearTimeout(connectTimer);
          keepalive = setInterval(() => this.ping(session), this.options.keepaliveMs ?? KEEPALIVE_MS).unref();
        },
        // etcd is going away (shutting down): calls already on this session finish, new ones go on a new one.
        onGoaway: () => this.drop(index, session),
        // A failed session also fails every call on it, which reports it.
        onClose: () => {
          clearTimeout(connectTimer);
          clearInterval(keepalive);
          this.drop(index, session);
        },
      },
    );
    const session: Session = {
      h2,
      blocks: new RequestHeaderBlocks({ scheme: tls ? "https" : "http", authority: url.host }),
      streams: 0,
    };
    this.sessions[index] = session;
    return session;
  }

  /** One keepalive tick (KEEPALIVE_MS). */
  private ping(session: Session): void {
    if (session.pinging) {
      session.h2.destroy(
        Object.assign(new Error(`no answer to a ping within ${KEEPALIVE_MS} ms`), { code: "ETIMEDOUT" }),
      );
      return;
    }
    if (session.streams === 0 || session.h2.destroyed) return;
    session.pinging = true;
    session.h2.ping(() => {
      session.pinging = false;
    });
  }

  private drop(index: number, session: Session): void {
    if (this.sessions[index] !== session) return;
    this.sessions[index] = undefined;
    if (!session.h2.closing) session.h2.close();
  }

  private failover(failed: number): void {
    if (this.current === failed) this.current = (failed + 1) % this.origins.length;
  }

  private authToken(): Promise<string> {
    if (this.token === undefined) {
      const p = this.authenticate();
      this.token = p;
      // A failed authentication is not kept: the next call tries again.
      p.catch(() => {
        if (this.token === p) this.token = undefined;
      });
    }
    return this.token;
  }

  private async authenticate(): Promise<string> {
    this.authentications++;
    const message = { name: this.options.user ?? "", password: this.options.password ?? "" };
    const request = frame(pb.AuthenticateRequest.encode(message).finish());
    for (let tried = 0; ; tried++) {
      const index = this.current;
      const outcome = await this.send(index, "/etcdserverpb.Auth/Authenticate", request, undefined);
      if ("ok" in outcome) {
        const token = pb.AuthenticateResponse.decode(outcome.ok).token;
        if (!token) throw new EtcdRequestError("etcd authentication answered no token", CODE_UNAUTHENTICATED);
        return token;
      }
      if (outcome.err.code !== CODE_UNAVAILABLE || tried + 1 >= this.origins.length) throw outcome.err;
      this.failover(index);
    }
  }
}
