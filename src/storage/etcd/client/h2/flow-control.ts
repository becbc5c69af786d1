/**
 * HTTP/2 flow control (RFC 9113 §5.2, §6.9) for the etcd client's connection, both ways.
 *
 * Sending: DATA goes out only as far as both the stream's and the connection's windows allow
 * (the peer's SETTINGS_INITIAL_WINDOW_SIZE, changed by later SETTINGS, plus its WINDOW_UPDATEs),
 * in frames of at most the peer's MAX_FRAME_SIZE; the rest waits on the stream until a
 * WINDOW_UPDATE. Receiving: everything is consumed at once, so a WINDOW_UPDATE gives back what
 * was received whenever half a window has been used: long watches and list pages of megabytes
 * never wait for the window. A peer that sends beyond the window we granted (what we advertised
 * plus every WINDOW_UPDATE written so far, less what it sent) breaks the protocol: a connection
 * error FLOW_CONTROL_ERROR (§6.9.1), not bytes taken on trust. As window is given back on
 * receipt, this catches a peer that overruns the room left since our last WINDOW_UPDATE; it
 * does not slow a fast one: what bounds memory is what the calls keep (they consume at once).
 */
import {
  DEFAULT_MAX_FRAME,
  DEFAULT_WINDOW,
  ErrorCode,
  Flag,
  FRAME_HEADER,
  FrameType,
  H2ProtocolError,
  MAX_WINDOW,
  windowUpdateFrame,
  writeFrameHeader,
} from "./frames.js";
import type { H2Stream } from "./stream.js";

const MAX_FRAME_LIMIT = 2 ** 24 - 1;

export class FlowControl {
  /** The peer's SETTINGS_MAX_FRAME_SIZE. */
  maxFrame = DEFAULT_MAX_FRAME;
  private initialWindow = DEFAULT_WINDOW;
  /** What the peer lets us send on the connection. */
  private connectionWindow = DEFAULT_WINDOW;
  /** Received since our last connection WINDOW_UPDATE. */
  private unacked = 0;
  /** The connection window the peer has from us: never below the default, which no SETTINGS changes. */
  private readonly ownConnectionLimit: number;
  /** Streams with bytes waiting for window. */
  private readonly blocked = new Set<H2Stream>();

  constructor(
    private readonly ownStreamWindow: number,
    private readonly ownConnectionWindow: number,
    private readonly emit: (bytes: Buffer) => void,
  ) {
    this.ownConnectionLimit = Math.max(ownConnectionWindow, DEFAULT_WINDOW);
  }

  opened(stream: H2Stream): void {
    stream.sendWindow = this.initialWindow;
  }

  closed(stream: H2Stream): void {
    this.blocked.delete(stream);
  }

  /** Writes what the windows allow of the stream's queue, and END_STREAM once it is empty. */
  send(stream: H2Stream): void {
    const queue = stream.queue;
    while (queue.length > 0) {
      const head = queue[0]!;
      const n = Math.min(head.length, stream.sendWindow, this.connectionWindow, this.maxFrame);
      if (n <= 0) {
        this.blocked.add(stream);
        return;
      }
      const part = n === head.length ? head : head.subarray(0, n);
      if (n === head.length) queue.shift();
      else queue[0] = head.subarray(n);
      stream.sendWindow -= n;
      this.connectionWindow -= n;
      const end = queue.length === 0 && stream.endQueued;
      this.data(stream, part, end);
    }
    this.blocked.delete(stream);
    if (stream.endQueued && !stream.localEnded) this.data(stream, Buffer.alloc(0), true);
  }

  sendBlocked(): void {
    for (const stream of [...this.blocked]) this.send(stream);
  }

  connectionUpdate(increment: number): void {
    if (increment === 0) throw new H2ProtocolError("WINDOW_UPDATE of 0");
    this.connectionWindow += increment;
    if (this.connectionWindow > MAX_WINDOW) {
      throw new H2ProtocolError("connection window over 2^31-1", ErrorCode.FLOW_CONTROL_ERROR);
    }
    this.sendBlocked();
  }

  streamUpdate(stream: H2Stream, increment: number): void {
    // A zero increment or an overflow is an error of that stream only; a stream we are done with needs nothing.
    if (increment === 0 || stream.sendWindow + increment > MAX_WINDOW) {
      stream.reset(increment === 0 ? ErrorCode.PROTOCOL_ERROR : ErrorCode.FLOW_CONTROL_ERROR);
      return;
    }
    stream.sendWindow += increment;
    if (stream.queue.length > 0) this.send(stream);
  }

  /** SETTINGS_INITIAL_WINDOW_SIZE: open streams' windows move by the difference (§6.9.2). */
  peerInitialWindow(value: number, open: Iterable<H2Stream>): void {
    if (value > MAX_WINDOW) throw new H2ProtocolError("INITIAL_WINDOW_SIZE over 2^31-1", ErrorCode.FLOW_CONTROL_ERROR);
    const delta = value - this.initialWindow;
    this.initialWindow = value;
    for (const stream of open) stream.sendWindow += delta;
  }

  peerMaxFrame(value: number): void {
    if (value < DEFAULT_MAX_FRAME || value > MAX_FRAME_LIMIT) throw new H2ProtocolError(`MAX_FRAME_SIZE ${value}`);
    this.maxFrame = value;
  }

  /**
   * A DATA frame of `length` bytes (padding included) arrived, for `stream` if we still follow it
   * (a stream we stopped following counts for the connection only). Throws beyond our windows.
   */
  received(stream: H2Stream | undefined, length: number): void {
    if (length === 0) return;
    this.unacked += length;
    if (this.unacked > this.ownConnectionLimit) throw beyondWindow("connection", this.ownConnectionLimit);
    if (this.unacked >= this.ownConnectionWindow / 2) {
      this.emit(windowUpdateFrame(0, this.unacked));
      this.unacked = 0;
    }
    if (!stream) return;
    stream.unacked += length;
    if (stream.unacked > this.ownStreamWindow) throw beyondWindow("stream", this.ownStreamWindow);
    if (stream.unacked >= this.ownStreamWindow / 2) {
      this.emit(windowUpdateFrame(stream.id, stream.unacked));
      stream.unacked = 0;
    }
  }

  private data(stream: H2Stream, payload: Buffer, end: boolean): void {
    const header = Buffer.allocUnsafe(FRAME_HEADER);
    writeFrameHeader(header, 0, payload.length, FrameType.DATA, end ? Flag.END_STREAM : 0, stream.id);
    this.emit(header);
    if (payload.length > 0) this.emit(payload);
    if (end) stream.localEnded = true;
  }
}

function beyondWindow(which: string, window: number): H2ProtocolError {
  return new H2ProtocolError(`DATA beyond the ${which} window granted (${window} bytes)`, ErrorCode.FLOW_CONTROL_ERROR);
}
