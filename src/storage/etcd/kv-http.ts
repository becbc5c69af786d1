/**
 * The KV calls the storage makes (Range; Txn, which carries its puts and deletes; Compact) over
 * etcd's own HTTP/JSON gateway (`POST /v3/kv/...` on the client port, served by every etcd
 * 3.4+), with undici keep-alive pools.
 *
 * Why not gRPC: measured with 64 concurrent calls, the `etcd3` gRPC client spent ~410 µs of
 * client CPU per put, almost all of it in @grpc/grpc-js and protobufjs (its wrapper added
 * nothing measurable), against ~130 µs over the gateway, which also carried more puts per
 * second. The other side: etcd spends two to three times more CPU per call on the gateway (it
 * decodes the JSON and calls its own gRPC server), less in all but more in etcd; kv-client.ts
 * keeps gRPC as a choice for when etcd's CPU is the limit. The watch stream stays on gRPC
 * (watch-stream.ts): over the gateway's HTTP/1.1 no request can follow the one that opens it.
 *
 * Failover: one endpoint is used at a time; a transport failure or an etcd "no leader" moves to
 * the next one. A read is then retried there at once, a write only when it surely never reached
 * etcd (the connection was refused): a write whose answer was lost may have been applied, and
 * only the caller can tell whether to retry it.
 *
 * Auth: with a user, a token from `/v3/auth/authenticate` goes in the Authorization header; when
 * etcd says it is no longer valid (tokens expire, --auth-token-ttl), one fresh token is fetched
 * for everyone and the request is sent again (it was refused, so nothing was applied). A user
 * given while etcd's auth is off fails every call ("authentication is not enabled"), as the
 * gRPC watch with it would never start.
 *
 * On the wire bytes are base64 and int64 values are decimal strings; revisions become numbers
 * only after a check that they are exact (Number.isSafeInteger).
 */
import { Pool } from "undici";
import type { KeyValue } from "../interface.js";
import type {
  Bytes,
  Compare,
  DeleteRangeRequest,
  DeleteRangeResponse,
  EtcdKv,
  RangeRequest,
  RangeResponse,
  RequestOp,
  TxnRequest,
  TxnResponse,
} from "./kv-calls.js";

/** Connections kept per endpoint: HTTP/1.1 carries one request at a time on each. */
const CONNECTIONS = 32;
/** A member that accepted the connection but does not answer (stopped, partitioned). */
const ANSWER_TIMEOUT_MS = 30_000;
const CONNECT_TIMEOUT_MS = 5_000;

/** gRPC status codes etcd's gateway reports in its error bodies. */
const CODE_UNAVAILABLE = 14;
const CODE_UNAUTHENTICATED = 16;

/** Transport errors that mean the request never reached the member: safe to send elsewhere. */
const NOT_SENT = new Set([
  "ECONNREFUSED",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/** etcd's gateway refuses, with auth on, every request whose client certificate names a user. */
export function isGatewayRefusal(err: unknown): boolean {
  return err instanceof EtcdRequestError && /CommonName of client sending a request against gateway/.test(err.message);
}

/** An error etcd answered (message as etcd words it, e.g. "etcdserver: mvcc: required revision has been compacted"), or a transport failure (code 14). */
export class EtcdRequestError extends Error {
  constructor(
    message: string,
    /** gRPC status code. */
    readonly code: number,
  ) {
    super(message);
    this.name = "EtcdRequestError";
  }
}

export interface EtcdKvHttpOptions {
  /** host:port (or http(s)://host:port) of every member. */
  readonly endpoints: readonly string[];
  readonly tls?: boolean;
  readonly ca?: Buffer;
  readonly cert?: Buffer;
  readonly key?: Buffer;
  readonly user?: string;
  readonly password?: string;
}

// ---- wire encoding -------------------------------------------------------------------------

interface WireKv {
  key?: string;
  value?: string;
  create_revision?: string;
  mod_revision?: string;
}
interface WireRange {
  header?: { revision?: string };
  kvs?: WireKv[];
  more?: boolean;
  count?: string;
}
interface WireDelete {
  header?: { revision?: string };
  deleted?: string;
  prev_kvs?: WireKv[];
}
interface WireTxn {
  header?: { revision?: string };
  succeeded?: boolean;
  responses?: { response_range?: WireRange; response_delete_range?: WireDelete }[];
}
interface WireError {
  error?: string;
  message?: string;
  code?: number;
}

const b64 = (b: Bytes): string => (typeof b === "string" ? Buffer.from(b) : b).toString("base64");

/** An int64 as etcd's JSON carries it (a decimal string, absent when 0), as an exact number. */
export function int64(s: string | undefined): number {
  if (s === undefined) return 0;
  const n = Number(s);
  if (!Number.isSafeInteger(n)) throw new EtcdRequestError(`etcd answered an inexact int64 "${s}"`, 13);
  return n;
}

function encodeRange(r: RangeRequest): object {
  return {
    key: b64(r.key),
    ...(r.range_end !== undefined ? { range_end: b64(r.range_end) } : {}),
    ...(r.limit ? { limit: String(r.limit) } : {}),
    ...(r.revision ? { revision: String(r.revision) } : {}),
    ...(r.count_only ? { count_only: true } : {}),
  };
}

function encodeDelete(r: DeleteRangeRequest): object {
  return {
    key: b64(r.key),
    ...(r.range_end !== undefined ? { range_end: b64(r.range_end) } : {}),
    ...(r.prev_kv ? { prev_kv: true } : {}),
  };
}

function encodeOp(op: RequestOp): object {
  if ("range" in op) return { request_range: encodeRange(op.range) };
  if ("put" in op) return { request_put: { key: b64(op.put.key), value: b64(op.put.value) } };
  return { request_delete_range: encodeDelete(op.deleteRange) };
}

function encodeCompare(c: Compare): object {
  const field = c.target === "CREATE" ? "create_revision" : "mod_revision";
  return { key: b64(c.key), target: c.target, result: c.result, [field]: String(c.revision) };
}

function decodeKv(kv: WireKv): KeyValue {
  return {
    key: kv.key === undefined ? "" : Buffer.from(kv.key, "base64").toString(),
    value: kv.value === undefined ? Buffer.alloc(0) : Buffer.from(kv.value, "base64"),
    createRevision: int64(kv.create_revision),
    modRevision: int64(kv.mod_revision),
  };
}

function decodeRange(r: WireRange): RangeResponse {
  return {
    revision: int64(r.header?.revision),
    kvs: (r.kvs ?? []).map(decodeKv),
    more: r.more === true,
    count: int64(r.count),
  };
}

function decodeDelete(r: WireDelete): DeleteRangeResponse {
  return { revision: int64(r.header?.revision), deleted: int64(r.deleted), prevKvs: (r.prev_kvs ?? []).map(decodeKv) };
}

function decodeTxn(r: WireTxn): TxnResponse {
  return {
    revision: int64(r.header?.revision),
    succeeded: r.succeeded === true,
    responses: (r.responses ?? []).map((op) => ({
      ...(op.response_range ? { range: decodeRange(op.response_range) } : {}),
      ...(op.response_delete_range ? { deleteRange: decodeDelete(op.response_delete_range) } : {}),
    })),
  };
}

function errorOf(status: number, text: string): EtcdRequestError {
  let body: WireError = {};
  try {
    body = JSON.parse(text) as WireError;
  } catch {
    // not etcd's JSON (a proxy's page?): the status line says enough
  }
  const message = body.error ?? body.message ?? `HTTP ${status}: ${text.slice(0, 200)}`;
  return new EtcdRequestError(message, body.code ?? CODE_UNAVAILABLE);
}

const JSON_HEADERS = ["content-type", "application/json"];

/**
 * One POST through undici's dispatcher interface: status and body text. Half the client CPU
 * of `pool.request()`, which parses every response header into an object and streams the
 * body through a Readable (measured: ~120 against ~190 µs per etcd transaction).
 */
function post(pool: Pool, path: string, headers: string[], body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let status = 0;
    pool.dispatch(
      { path, method: "POST", headers, body },
      {
        onConnect: () => {},
        onError: reject,
        onHeaders: (statusCode) => {
          status = statusCode;
          return true;
        },
        onData: (chunk) => {
          chunks.push(chunk);
          return true;
        },
        onComplete: () => {
          const text = chunks.length === 1 ? chunks[0]!.toString() : Buffer.concat(chunks).toString();
          resolve({ status, text });
        },
      },
    );
  });
}

// ---- the client ----------------------------------------------------------------------------

export class EtcdKvHttp implements EtcdKv {
  private readonly pools: Pool[];
  private readonly origins: string[];
  /** Index of the endpoint in use. */
  private current = 0;
  private token: Promise<string> | undefined;
  private closed = false;
  /** Tokens fetched so far (tests). */
  authentications = 0;

  constructor(private readonly options: EtcdKvHttpOptions) {
    const tls = options.tls === true || options.ca !== undefined || options.cert !== undefined;
    this.origins = options.endpoints.map((e) => (/^https?:\/\//.test(e) ? e : `${tls ? "https" : "http"}://${e}`));
    if (this.origins.length === 0) throw new Error("no etcd endpoints");
    const connect = {
      timeout: CONNECT_TIMEOUT_MS,
      ...(options.ca ? { ca: options.ca } : {}),
      ...(options.cert ? { cert: options.cert } : {}),
      ...(options.key ? { key: options.key } : {}),
    };
    this.pools = this.origins.map(
      (origin) =>
        new Pool(origin, {
          connections: CONNECTIONS,
          connect,
          headersTimeout: ANSWER_TIMEOUT_MS,
          bodyTimeout: ANSWER_TIMEOUT_MS,
        }),
    );
  }

  async range(r: RangeRequest): Promise<RangeResponse> {
    return decodeRange(await this.call<WireRange>("/v3/kv/range", encodeRange(r), true));
  }

  async txn(t: TxnRequest): Promise<TxnResponse> {
    const body = {
      compare: t.compare.map(encodeCompare),
      success: t.success.map(encodeOp),
      failure: t.failure.map(encodeOp),
    };
    // A transaction that only reads could be retried, but the storage's all write.
    return decodeTxn(await this.call<WireTxn>("/v3/kv/txn", body, false));
  }

  /** Compacting twice to one revision is harmless, so this one is retried like a read. */
  async compact(revision: number): Promise<void> {
    await this.call("/v3/kv/compaction", { revision: String(revision), physical: true }, true);
  }

  /** The origin requests go to now (tests). */
  get endpoint(): string {
    return this.origins[this.current]!;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all(this.pools.map((p) => p.close().catch(() => {})));
  }

  /**
   * One call, moved to the next endpoint after a transport failure or "no leader" (every
   * endpoint at most once), and sent again once with a fresh token when etcd refused the token.
   */
  private async call<T>(path: string, payload: object, idempotent: boolean): Promise<T> {
    const body = JSON.stringify(payload);
    let tried = 0;
    let reauthenticated = false;
    for (;;) {
      if (this.closed) throw new Error("etcd client is closed");
      const index = this.current;
      const tokenPromise = this.options.user !== undefined ? this.authToken() : undefined;
      const token = await tokenPromise;
      let outcome: { ok: T } | { err: EtcdRequestError; sent: boolean };
      try {
        outcome = await this.send<T>(index, path, body, token);
      } catch (err) {
        const code = (err as { code?: string }).code ?? "";
        const message = `etcd ${this.origins[index]}: ${(err as Error).message}${code ? ` (${code})` : ""}`;
        outcome = { err: new EtcdRequestError(message, CODE_UNAVAILABLE), sent: !NOT_SENT.has(code) };
      }
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
      // A read gets a second try even with one endpoint: a kept-alive connection the member
      // closed (restarted) fails the request on it, and a fresh one may well succeed.
      if (tried >= Math.max(this.pools.length, idempotent ? 2 : 1) || (sent && !idempotent)) throw err;
    }
  }

  /**
   * One request to one endpoint: its decoded answer, or etcd's error. "sent" is false for an
   * error that says the request was refused before anything was done (no leader).
   */
  private async send<T>(
    index: number,
    path: string,
    body: string,
    token: string | undefined,
  ): Promise<{ ok: T } | { err: EtcdRequestError; sent: boolean }> {
    const headers = token ? [...JSON_HEADERS, "authorization", token] : JSON_HEADERS;
    const res = await post(this.pools[index]!, path, headers, body);
    if (res.status === 200) return { ok: JSON.parse(res.text) as T };
    const err = errorOf(res.status, res.text);
    if (/transport: /.test(err.message) && this.origins[index]!.startsWith("https:")) {
      // The gateway could not reach etcd's own gRPC server on the same port. Under TLS that is
      // almost always this (the gateway presents the member's certificate as a client's):
      err.message +=
        " — with --client-cert-auth, etcd's member certificate must also allow client auth" +
        " (extendedKeyUsage clientAuth, as etcd's guides and kubeadm issue it)";
    }
    return { err, sent: !/no leader/.test(err.message) };
  }

  private failover(failed: number): void {
    if (this.current === failed) this.current = (failed + 1) % this.pools.length;
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
    const payload = JSON.stringify({ name: this.options.user, password: this.options.password ?? "" });
    for (let tried = 0; ; tried++) {
      const index = this.current;
      let outcome: { ok: { token?: string } } | { err: EtcdRequestError; sent: boolean };
      try {
        outcome = await this.send<{ token?: string }>(index, "/v3/auth/authenticate", payload, undefined);
      } catch (err) {
        const message = `etcd ${this.origins[index]}: ${(err as Error).message}`;
        outcome = { err: new EtcdRequestError(message, CODE_UNAVAILABLE), sent: true };
      }
      if ("ok" in outcome) {
        if (!outcome.ok.token)
          throw new EtcdRequestError("etcd authentication answered no token", CODE_UNAUTHENTICATED);
        return outcome.ok.token;
      }
      if (outcome.err.code !== CODE_UNAVAILABLE || tried + 1 >= this.pools.length) throw outcome.err;
      this.failover(index);
    }
  }
}
