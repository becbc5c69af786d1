/**
 * One gRPC unary call on one stream of the client's HTTP/2 connection (h2/connection.ts): the request message framed as gRPC frames it
 * (a 1-byte "compressed" flag, a 4-byte length, the message), and the answer's message or its
 * gRPC status. Nothing else of gRPC is needed for etcd's KV calls: no compression (none is
 * offered, so none is used), no streaming, no name resolution or load balancing (the client
 * chooses the endpoint).
 *
 * Why not @grpc/grpc-js for these calls: its per-call path (call objects, filters, channel
 * state, interceptors) costs the server several times the CPU of this one per etcd call
 * (docs/performance.md, "The etcd client").
 */
import type { CallDeadline, CallDeadlines } from "./call-deadlines.js";
import type { H2Connection } from "./h2/connection.js";
import { ErrorCode, errorCodeName } from "./h2/frames.js";
import type { HeaderFields } from "./h2/hpack-decoder.js";
import type { H2Stream, StreamEnd, StreamHandlers } from "./h2/stream.js";
import { EtcdRequestError } from "./kv-calls.js";
/** gRPC status codes the client acts on. */
export const CODE_UNAVAILABLE = 14;
export const CODE_UNAUTHENTICATED = 16;
export const CODE_RESOURCE_EXHAUSTED = 8;
const CODE_INTERNAL = 13;
const GRPC_PREFIX = 5;

/**
 * The largest message taken from etcd (grpc's MaxCallRecvMsgSize); a larger one is refused as
 * soon as its length prefix is read, before it is buffered. 64 MiB: no answer of etcd needs more.
 * A watch response etcd splits into parts under its --max-request-bytes + 512 KiB (2 MiB by
 * default; watch-stream.ts asks for it), except a single event, which holds at most two values
 * (the new one and the previous one), each under --max-request-bytes (1.5 MiB by default, at
 * most 10 MiB recommended by etcd). A list page refused for its size is read again in smaller
 * pages (etcd-storage.ts list()), down to a single key, itself under --max-request-bytes. So only
 * a member whose --max-request-bytes was raised past ~32 MiB could send a legitimate message over
 * it. etcd's Go client (and kube-apiserver) take up to 2 GiB - 1, which lets a client buffer
 * 2 GiB for one answer; operators can set that, or less, with the storage URL's
 * max-receive-message-bytes= (etcd-url.ts).
 */
export const DEFAULT_MAX_RECEIVE_MESSAGE_BYTES = 64 << 20;

/**
 * A message over the client's limit: refused as grpc does (RESOURCE_EXHAUSTED). Its own class:
 * etcd answers RESOURCE_EXHAUSTED too, for other reasons ("too many requests", "database space
 * exceeded"), which a smaller page would not cure.
 */
export class MessageTooLargeError extends EtcdRequestError {
  constructor(
    /** The message's length, as its prefix said. */
    readonly length: number,
    /** The limit it is over. */
    readonly limit: number,
  ) {
    super(
      `etcd sent a message of ${length} bytes, over the limit of ${limit} (the etcd storage URL's max-receive-message-bytes=)`,
      CODE_RESOURCE_EXHAUSTED,
    );
  }
}

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
function statusMessage(raw: string | undefined): string {
  if (raw === undefined) return "";
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

  /** One header block of the answer: its headers (with :status), then its trailers. */
  take(h: HeaderFields): void {
    if (h[":status"] !== undefined && this.httpStatus === 0) this.httpStatus = Number(h[":status"]);
    if (h["grpc-status"] === undefined) return;
    this.code = Number(h["grpc-status"]);
    this.message = statusMessage(h["grpc-message"]);
  }

  /** A status other than OK, as the error it stands for. */
  error(): EtcdRequestError | undefined {
    if (this.code === undefined || this.code === 0) return undefined;
    return new EtcdRequestError(this.message || `gRPC status ${this.code}`, this.code);
  }
}

/**
 * Why a call or stream ended without a gRPC status (a transport failure), for unary calls and
 * bidirectional streams alike: an answer that was not gRPC's, the connection failing under it
 * (its error's code appended, e.g. ECONNRESET, EPROTO), or RST_STREAM's code by name.
 */
export function transportReason(httpStatus: number, end: StreamEnd): string {
  if (httpStatus !== 0 && httpStatus !== 200) return `HTTP ${httpStatus} (not a gRPC answer)`;
  const failure = end.error;
  if (failure) return failure.code ? `${failure.message} (${failure.code})` : failure.message;
  if (end.rstCode !== undefined) return `stream reset (HTTP/2 ${errorCodeName(end.rstCode)})`;
  return "etcd ended the stream without a gRPC status";
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
  /** The HTTP/2 connection to the endpoint. */
  readonly connection: H2Connection;
  /** The request's HPACK header block (method path, auth token: h2/hpack-request.ts). */
  readonly headerBlock: Buffer;
  /** The request message in its gRPC frame (frame(), or written framed: kv-request-frames.ts). */
  readonly frame: Buffer;
  /** The client's "no answer within" limit. */
  readonly deadlines: CallDeadlines;
  /** The largest answer message taken (DEFAULT_MAX_RECEIVE_MESSAGE_BYTES). */
  readonly maxMessageBytes: number;
}

export function unaryCall(call: UnaryCall): Promise<UnaryOutcome> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const status = new GrpcStatus();
    let deadline: CallDeadline | undefined;
    let stream: H2Stream | undefined;
    let received = 0;
    let refused: EtcdRequestError | undefined;
    const handlers: StreamHandlers = {
      onHeaders: (fields) => status.take(fields),
      onData: (chunk) => {
        chunks.push(chunk);
        if (deadline) deadline.seen = call.deadlines.tick;
        const before = received;
        received += chunk.length;
        // The length prefix is complete: refuse a message over the limit before buffering it.
        if (before < GRPC_PREFIX && received >= GRPC_PREFIX) {
          const head = chunks.length === 1 ? chunk : Buffer.concat(chunks);
          const length = head.readUInt32BE(1);
          if (length > call.maxMessageBytes) {
            refused = new MessageTooLargeError(length, call.maxMessageBytes);
            chunks.length = 0;
            stream?.reset(ErrorCode.CANCEL);
          }
        }
      },
      onClose: (end) => {
        if (deadline) call.deadlines.done(deadline);
        if (refused) resolve({ err: refused, sent: true });
        else resolve(outcomeOf(call, status, chunks, end, stream?.sent === true, deadline?.timedOut === true));
      },
    };
    try {
      stream = call.connection.request(call.headerBlock, handlers);
    } catch (err) {
      // The connection is closing or failed: nothing went out.
      resolve({ err: new EtcdRequestError((err as Error).message, CODE_UNAVAILABLE), sent: false });
      return;
    }
    deadline = call.deadlines.add(stream);
    stream.write(call.frame, true);
  });
}

function outcomeOf(
  call: UnaryCall,
  status: GrpcStatus,
  chunks: Buffer[],
  end: StreamEnd,
  sent: boolean,
  timedOut: boolean,
): UnaryOutcome {
  const err = status.error();
  if (status.code === 0) {
    const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    const message = messageOf(body);
    return message instanceof EtcdRequestError ? { err: message, sent: true } : { ok: message };
  }
  // etcd refuses before doing anything when it has no leader: safe to send elsewhere.
  if (err) return { err, sent: !/no leader/.test(status.message) };
  return transportFailure(call, end, sent, status.httpStatus, timedOut);
}

/** No gRPC status came back: the connection, the stream or the peer failed. */
function transportFailure(
  call: UnaryCall,
  end: StreamEnd,
  sent: boolean,
  httpStatus: number,
  timedOut: boolean,
): UnaryOutcome {
  const reason = timedOut ? `no answer within ${call.deadlines.timeoutMs} ms` : transportReason(httpStatus, end);
  // REFUSED_STREAM: the peer says it did not process the stream (e.g. after its GOAWAY).
  return {
    err: new EtcdRequestError(reason, CODE_UNAVAILABLE),
    sent: sent && end.rstCode !== ErrorCode.REFUSED_STREAM,
  };
}
