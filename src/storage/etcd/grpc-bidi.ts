/**
 * A gRPC bidirectional stream (etcd's Watch) on one stream of the client's HTTP/2 connection
 * (h2/connection.ts): messages out are framed as gRPC frames them (a 1-byte "compressed" flag, a
 * 4-byte length, the message), messages in are cut out of the DATA chunks as they arrive and
 * handed over undecoded; the stream's end carries its gRPC status (grpc-unary.ts has the same
 * framing for single calls).
 */
import { CODE_UNAVAILABLE, frame, GrpcStatus, transportReason } from "./grpc-unary.js";
import type { H2Connection } from "./h2/connection.js";
import { ErrorCode } from "./h2/frames.js";
import type { HeaderFields } from "./h2/hpack-decoder.js";
import type { H2Stream, StreamEnd, StreamHandlers } from "./h2/stream.js";
import { EtcdRequestError } from "./kv-calls.js";

const CODE_INTERNAL = 13;

export interface BidiHandlers {
  /** One whole message, in order; the buffer may be a view of a larger chunk, copy what is kept. */
  onMessage(message: Buffer): void;
  /** The stream is over (not called after cancel()): the server's error, or a transport failure. */
  onEnd(err: EtcdRequestError): void;
}

export class GrpcBidiStream implements StreamHandlers {
  /** Bytes received but not yet a whole message. */
  private pending: Buffer | undefined;
  private ended = false;
  private readonly status = new GrpcStatus();
  private readonly stream: H2Stream;

  /**
   * Opens the stream with `headerBlock` (throws when the connection takes no new streams);
   * `closed` runs when the HTTP/2 stream is over, however it ended.
   */
  constructor(
    connection: H2Connection,
    headerBlock: Buffer,
    private readonly handlers: BidiHandlers,
    private readonly closed: () => void = () => {},
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
    let data = this.pending === undefined ? chunk : Buffer.concat([this.pending, chunk]);
    this.pending = undefined;
    while (!this.ended && data.length >= 5) {
      if (data[0] !== 0) {
        this.fail(new EtcdRequestError("etcd sent a compressed message, which was not offered", CODE_INTERNAL));
        return;
      }
      const end = 5 + data.readUInt32BE(1);
      if (data.length < end) break;
      this.handlers.onMessage(data.subarray(5, end));
      data = data.subarray(end);
    }
    // Socket chunks are never reused: a view of the rest is safe to keep.
    if (data.length > 0 && !this.ended) this.pending = data;
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
    this.cancel();
    this.handlers.onEnd(err);
  }
}
