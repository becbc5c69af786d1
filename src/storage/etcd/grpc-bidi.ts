/**
 * A gRPC bidirectional stream (etcd's Watch) on one node:http2 stream: messages out are framed
 * as gRPC frames them (a 1-byte "compressed" flag, a 4-byte length, the message), messages in are
 * cut out of the DATA chunks as they arrive and handed over undecoded; the stream's end carries
 * its gRPC status (grpc-unary.ts has the same framing for single calls).
 */
import { type ClientHttp2Stream, constants as h2 } from "node:http2";
import { CODE_UNAVAILABLE, frame, GrpcStatus } from "./grpc-unary.js";
import { EtcdRequestError } from "./kv-calls.js";

const CODE_INTERNAL = 13;

export interface BidiHandlers {
  /** One whole message, in order; the buffer may be a view of a larger chunk, copy what is kept. */
  onMessage(message: Buffer): void;
  /** The stream is over (not called after cancel()): the server's error, or a transport failure. */
  onEnd(err: EtcdRequestError): void;
}

export class GrpcBidiStream {
  /** Bytes received but not yet a whole message. */
  private pending: Buffer | undefined;
  private ended = false;
  private readonly status: GrpcStatus;
  private failure: Error | undefined;

  constructor(
    private readonly stream: ClientHttp2Stream,
    private readonly handlers: BidiHandlers,
  ) {
    this.status = new GrpcStatus(stream);
    stream.on("data", (chunk: Buffer) => this.receive(chunk));
    stream.on("error", (err) => {
      this.failure ??= err;
    });
    stream.on("close", () => this.finish());
  }

  write(message: Uint8Array): void {
    if (!this.ended) this.stream.write(frame(message));
  }

  /** Ends the stream from this side; no onEnd follows. */
  cancel(): void {
    if (this.ended) return;
    this.ended = true;
    this.stream.close(h2.NGHTTP2_CANCEL);
  }

  private receive(chunk: Buffer): void {
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
    if (data.length > 0) this.pending = Buffer.from(data);
  }

  private fail(err: EtcdRequestError): void {
    this.cancel();
    this.handlers.onEnd(err);
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    const { httpStatus } = this.status;
    const transport =
      httpStatus !== 0 && httpStatus !== 200 ? `HTTP ${httpStatus} (not a gRPC answer)` : this.failure?.message;
    this.handlers.onEnd(
      this.status.error() ?? new EtcdRequestError(transport ?? "etcd ended the stream", CODE_UNAVAILABLE),
    );
  }
}
