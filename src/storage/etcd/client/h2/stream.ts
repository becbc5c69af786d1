/**
 * One HTTP/2 stream of the etcd client's connection (connection.ts): plain state and three
 * callbacks, no EventEmitter or Duplex (what node:http2 builds per stream was most of the
 * client's CPU per etcd call).
 */
import type { HeaderFields } from "./hpack-decoder.js";

/** How a stream ended; neither field set: both sides ended it normally. */
export interface StreamEnd {
  /** RST_STREAM's error code, from the peer, from us (reset()), or REFUSED_STREAM after a GOAWAY. */
  readonly rstCode?: number;
  /** The connection failed under the stream. */
  readonly error?: Error & { code?: string };
}

export interface StreamHandlers {
  /** A header block: the response headers, then the trailers (endStream set). */
  onHeaders(fields: HeaderFields, endStream: boolean): void;
  /** DATA as it arrives (a view of the socket's chunk; it is not reused). */
  onData(chunk: Buffer): void;
  /** Called once, last (also after the stream's own reset(), at once, with its code). */
  onClose(end: StreamEnd): void;
}

/** The connection side a stream calls (connection.ts). */
export interface StreamOwner {
  write(stream: H2Stream, data: Buffer, end: boolean): void;
  reset(stream: H2Stream, code: number): void;
}

export class H2Stream {
  /** 0 until its HEADERS are written (ids are assigned in the order streams start). */
  id = 0;
  /** Its HEADERS went to the connected peer: the request may have been processed. */
  sent = false;
  closed = false;
  /** Request bytes waiting for flow-control window (or for the stream to start). */
  readonly queue: Buffer[] = [];
  /** END_STREAM follows the queued bytes. */
  endQueued = false;
  /** END_STREAM was written. */
  localEnded = false;
  remoteEnded = false;
  /** What the peer still lets us send on this stream. */
  sendWindow = 0;
  /** DATA bytes received since our last WINDOW_UPDATE for this stream. */
  unacked = 0;

  constructor(
    private readonly owner: StreamOwner,
    readonly headerBlock: Buffer,
    readonly handlers: StreamHandlers,
  ) {}

  /** Sends `data` (queued while the peer's window is closed), and END_STREAM after it when `end`. */
  write(data: Buffer, end = false): void {
    this.owner.write(this, data, end);
  }

  /** Ends the stream now with RST_STREAM `code` (onClose follows at once). */
  reset(code: number): void {
    this.owner.reset(this, code);
  }
}
