/**
 * One gRPC unary call over a node:http2 session: the request message framed as gRPC frames it
 * (a 1-byte "compressed" flag, a 4-byte length, the message), and the answer's message or its
 * gRPC status. Nothing else of gRPC is needed for etcd's KV calls: no compression (none is
 * offered, so none is used), no streaming, no name resolution or load balancing (the client
 * chooses the endpoint).
 *
 * Why not @grpc/grpc-js for these calls: its per-call path (call objects, filters, channel
 * state, interceptors) cost the server about 400 µs of CPU per etcd call against about 170 µs
 * for this, measured with 64 concurrent transactions (docs/performance.md, "The etcd client").
 */
import { type ClientHttp2Session, type ClientHttp2Stream, constants as h2 } from "node:http2";
import type { CallDeadlines } from "./call-deadlines.js";
import { EtcdRequestError } from "./kv-calls.js";

/** gRPC status codes the client acts on. */
export const CODE_UNAVAILABLE = 14;
export const CODE_UNAUTHENTICATED = 16;
const CODE_INTERNAL = 13;

/** The answer's message, or the error and whether the request may have been applied. */
export type UnaryOutcome = { readonly ok: Buffer } | { readonly err: EtcdRequestError; readonly sent: boolean };

/** gRPC's message framing: flag 0 (not compressed), big-endian length, the message. */
export function frame(message: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(5 + message.length);
  out[0] = 0;
  out.writeUInt32BE(message.length, 1);
  out.set(message, 5);
  return out;
}

/** grpc-message is percent-encoded (gRPC over HTTP/2). */
function statusMessage(raw: unknown): string {
  if (typeof raw !== "string") return "";
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/**
 * A call's gRPC status as it arrives: in the trailers, or in the headers of a "trailers-only"
 * answer; and the HTTP status of those headers (0 before they came).
 */
export class GrpcStatus {
  httpStatus = 0;
  /** undefined until a status arrived; 0 is OK. */
  code: number | undefined;
  message = "";

  constructor(stream: ClientHttp2Stream) {
    stream.on("response", (h) => {
      this.httpStatus = Number(h[":status"]);
      this.take(h);
    });
    stream.on("trailers", (h) => this.take(h));
  }

  /** A status other than OK, as the error it stands for. */
  error(): EtcdRequestError | undefined {
    if (this.code === undefined || this.code === 0) return undefined;
    return new EtcdRequestError(this.message || `gRPC status ${this.code}`, this.code);
  }

  private take(h: Record<string, unknown>): void {
    if (h["grpc-status"] === undefined) return;
    this.code = Number(h["grpc-status"]);
    this.message = statusMessage(h["grpc-message"]);
  }
}

/** The single message of a unary answer. */
function messageOf(body: Buffer): Buffer | EtcdRequestError {
  if (body.length < 5) return new EtcdRequestError("etcd answered no message", CODE_INTERNAL);
  if (body[0] !== 0)
    return new EtcdRequestError("etcd answered a compressed message, which was not offered", CODE_INTERNAL);
  const length = body.readUInt32BE(1);
  if (body.length !== 5 + length) return new EtcdRequestError("etcd's answer is not one whole message", CODE_INTERNAL);
  return body.subarray(5);
}

export interface UnaryCall {
  readonly session: ClientHttp2Session;
  /** Whether the session had connected when the call was made (a call on a session that never connected was not sent). */
  readonly connected: () => boolean;
  /** e.g. /etcdserverpb.KV/Txn */
  readonly path: string;
  /** The request message in its gRPC frame (frame(), or written framed: kv-request-frames.ts). */
  readonly frame: Buffer;
  /** etcd's auth token (gRPC metadata "token"). */
  readonly token: string | undefined;
  /** The client's "no answer within" limit. */
  readonly deadlines: CallDeadlines;
}

/** The request headers of a gRPC call to `path` (etcd takes its auth token from the "token" metadata). */
export function grpcHeaders(path: string, token: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {
    ":method": "POST",
    ":path": path,
    "content-type": "application/grpc",
    te: "trailers",
  };
  if (token !== undefined) headers.token = token;
  return headers;
}

export function unaryCall(call: UnaryCall): Promise<UnaryOutcome> {
  return new Promise((resolve) => {
    const headers = grpcHeaders(call.path, call.token);
    let stream: ReturnType<ClientHttp2Session["request"]>;
    try {
      stream = call.session.request(headers);
    } catch (err) {
      // The session is closing or destroyed: nothing went out.
      resolve({ err: new EtcdRequestError((err as Error).message, CODE_UNAVAILABLE), sent: false });
      return;
    }
    const chunks: Buffer[] = [];
    const status = new GrpcStatus(stream);
    let failure: (Error & { code?: string }) | undefined;
    const deadline = call.deadlines.add(stream);
    stream.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      deadline.seen = call.deadlines.tick;
    });
    stream.on("error", (err) => {
      failure = err;
    });
    stream.on("close", () => {
      call.deadlines.done(deadline);
      const err = status.error();
      if (status.code === 0) {
        const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
        const message = messageOf(body);
        resolve(message instanceof EtcdRequestError ? { err: message, sent: true } : { ok: message });
      } else if (err) {
        // etcd refuses before doing anything when it has no leader: safe to send elsewhere.
        resolve({ err, sent: !/no leader/.test(status.message) });
      } else {
        resolve(transportFailure(call, stream.rstCode, status.httpStatus, failure, deadline.timedOut));
      }
    });
    stream.end(call.frame);
  });
}

/** No gRPC status came back: the connection, the stream or the peer failed. */
function transportFailure(
  call: UnaryCall,
  rstCode: number | undefined,
  httpStatus: number,
  failure: (Error & { code?: string }) | undefined,
  timedOut: boolean,
): UnaryOutcome {
  let reason: string;
  if (timedOut) reason = `no answer within ${call.deadlines.timeoutMs} ms`;
  else if (httpStatus !== 0 && httpStatus !== 200) reason = `HTTP ${httpStatus} (not a gRPC answer)`;
  else if (failure) reason = `${failure.message}${failure.code ? ` (${failure.code})` : ""}`;
  else reason = `stream reset (HTTP/2 error ${rstCode ?? "unknown"})`;
  // REFUSED_STREAM: the peer says it did not process the stream (e.g. after its GOAWAY).
  const sent = call.connected() && rstCode !== h2.NGHTTP2_REFUSED_STREAM;
  return { err: new EtcdRequestError(reason, CODE_UNAVAILABLE), sent };
}
