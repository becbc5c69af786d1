/**
 * A gRPC bidirectional stream (etcd's Watch) on one stream of the client's HTTP/2 connection
 * (h2/connection.ts): messages out are framed as gRPC frames them (a 1-byte "compressed" flag, a
 * 4-byte length, the message), messages in are cut out of the DATA chunks as they arrive and
 * handed over undecoded; the stream's end carries its gRPC status (grpc-unary.ts has the same
 * framing for single calls).
 */
import {
  CODE_UNAVAILABLE,
  DEFAULT_MAX_RECEIVE_MESSAGE_BYTES,
  frame,
  GrpcStatus,
  MessageTooLargeError,
  transportReason,
} from "./grpc-unary.js";
import type { H2Connection } from "./h2/connection.js";
import { ErrorCode } from "./h2/frames.js";
import type { HeaderFields } from "./h2/hpack-decoder.js";
import type { H2Stream, StreamEnd, StreamHandlers } from "./h2/stream.js";
import { EtcdRequestError } from "./kv-calls.js";

const CODE_INTERNAL = 13;
const PREFIX = 5;

export interface BidiHandlers {
  /** One whole message, in order; the buffer may be a view of a larger chunk, copy what is kept. */
  onMessage(message: Buffer): void;
  /** The stream is over (not called after cancel()): the server's error, or a transport failure. */
  onEnd(err: EtcdRequestError): void;
}

export class GrpcBidiStream implements StreamHandlers {
  /**
   * Bytes received but not yet a whole message, kept as they came: joined once, when the
   * message they start is complete (joining at every chunk would copy a message of N frames
   * N times over).
   */
  private readonly parts: Buffer[] = [];
  private partBytes = 0;
  /** The length (prefix included) of the message `parts` starts, once its prefix came; else 0. */
  private needed = 0;
  private ended = false;
  private readonly status = new GrpcStatus();
  private readonly stream: H2Stream;

  /**
   * Opens the stream with `headerBlock` (throws when the connection takes no new streams);
   * `closed` runs when the HTTP/2 stream is over, however it ended. A message over
   * `maxMessageBytes` ends the stream with RESOURCE_EXHAUSTED as soon as its length prefix came.
   */
  constructor(
    connection: H2Connection,
    headerBlock: Buffer,
    private readonly handlers: BidiHandlers,
    private readonly closed: () => void = () => {},
    private readonly maxMessageBytes = DEFAULT_MAX_RECEIVE_MESSAGE_BYTES,
  ) {
    this.stream = connection.request(headerBlock, this);
  }

  write(message: Uint8Array): void {
    if (!this.ended) this.stream.write(frame(message));
  }

  /** Ends the stream from this side; no onEnd follows. */
  cancel(): void {
    if (this.ended) return;
    this.ended = true;
    this.stream.reset(ErrorCode.CANCEL);
  }

  onHeaders(fields: HeaderFields): void {
    this.status.take(fields);
  }

  onData(chunk: Buffer): void {
    if (this.ended) return;
    if (this.partBytes === 0) {
      this.take(chunk);
      return;
    }
    this.parts.push(chunk);
    this.partBytes += chunk.length;
    if (this.needed === 0 && this.partBytes >= PREFIX) {
      this.needed = this.messageLength(this.parts[0]!.length >= PREFIX ? this.parts[0]! : Buffer.concat(this.parts));
    }
    // Not complete yet (or the prefix itself is not: 0; or the message was refused: -1).
    if (this.needed <= 0 || this.partBytes < this.needed) return;
    const data = Buffer.concat(this.parts, this.partBytes);
    this.parts.length = 0;
    this.partBytes = 0;
    this.needed = 0;
    this.take(data);
  }

  /** Hands over the whole messages at the start of `data`, and keeps the rest. */
  private take(data: Buffer): void {
    let length = 0;
    while (data.length >= PREFIX) {
      length = this.messageLength(data);
      if (length < 0) return;
      if (data.length < length) break;
      this.handlers.onMessage(data.subarray(PREFIX, length));
      if (this.ended) return;
      data = data.subarray(length);
      length = 0;
    }
    if (data.length === 0) return;
    // Socket chunks are never reused: a view of the rest is safe to keep.
    this.parts.push(data);
    this.partBytes = data.length;
    this.needed = length;
  }

  /** The length of the message `data` starts, prefix included; -1 when it ended the stream. */
  private messageLength(data: Buffer): number {
    if (data[0] !== 0) {
      this.fail(new EtcdRequestError("etcd sent a compressed message, which was not offered", CODE_INTERNAL));
      return -1;
    }
    const length = data.readUInt32BE(1);
    if (length > this.maxMessageBytes) {
      this.fail(new MessageTooLargeError(length, this.maxMessageBytes));
      return -1;
    }
    return PREFIX + length;
  }

  onClose(end: StreamEnd): void {
    this.closed();
    if (this.ended) return;
    this.ended = true;
    this.handlers.onEnd(
      this.status.error() ?? new EtcdRequestError(transportReason(this.status.httpStatus, end), CODE_UNAVAILABLE),
    );
  }

  private fail(err: EtcdRequestError): void {
    this.parts.length = 0;
    this.partBytes = 0;
    this.cancel();
    this.handlers.onEnd(err);
  }
}
