/**
 * A minimal HTTP/2 client connection (RFC 9113) for gRPC to etcd, over `net` or `tls` sockets.
 *
 * Why not node:http2: per call it builds a Duplex stream, header objects and async-context
 * wrappers, many times the CPU the framing itself needs (docs/performance.md, "The etcd
 * client"). This handles exactly what gRPC to etcd
 * uses: streams we open (odd ids), HEADERS/CONTINUATION with HPACK, DATA with flow control both
 * ways, SETTINGS, PING, RST_STREAM, GOAWAY, WINDOW_UPDATE. No server push (disabled), no
 * priorities, no HTTP/1.1 upgrade.
 *
 * Frames we write in one tick go out in one socket write (output.ts); socket.ts opens the socket.
 */
import type { Socket } from "node:net";
import { FlowControl } from "./flow-control.js";
import {
  CLIENT_PREFACE,
  DEFAULT_WINDOW,
  ErrorCode,
  errorCodeName,
  Flag,
  FRAME_HEADER,
  FrameReader,
  FrameType,
  frameOf,
  goawayFrame,
  H2ProtocolError,
  rstStreamFrame,
  Setting,
  settingsFrame,
  unpadded,
  windowUpdateFrame,
  writeFrameHeader,
} from "./frames.js";
import { HeaderBlockDecoder, HpackError } from "./hpack-decoder.js";
import { SocketOutput } from "./output.js";
import { notH2, openSocket, type SocketOptions } from "./socket.js";
import { H2Stream, type StreamEnd, type StreamHandlers } from "./stream.js";

/** The longest a PING's ACK waits for a write to ride on (output.ts says why it waits). */
const PING_ACK_DELAY_MS = 20;

export interface H2ConnectOptions extends SocketOptions {
  /** Our receive window per stream (SETTINGS_INITIAL_WINDOW_SIZE). */
  readonly streamWindow: number;
  /** Our receive window for the whole connection. */
  readonly connectionWindow: number;
}

export interface ConnectionEvents {
  /** Connected: the peer's first SETTINGS arrived (TLS done, h2 agreed); streams start. */
  onConnect(): void;
  /** The peer sent GOAWAY: no new streams here; the streams it accepted finish. */
  onGoaway(): void;
  /** The socket closed; every stream has ended. */
  onClose(): void;
}

type Failure = Error & { code?: string };

export class H2Connection {
  connected = false;
  /** No new streams: GOAWAY received, close() called, or failed. */
  closing = false;
  destroyed = false;
  private readonly socket: Socket;
  private readonly output: SocketOutput;
  private readonly reader: FrameReader;
  private readonly decoder = new HeaderBlockDecoder();
  private readonly flow: FlowControl;
  private readonly streams = new Map<number, H2Stream>();
  /**
   * Streams not started yet: before the peer's first SETTINGS (its MAX_CONCURRENT_STREAMS is
   * unknown until then), or beyond that limit.
   */
  private waiting: H2Stream[] = [];
  private nextId = 1;
  private peerMaxStreams = Number.POSITIVE_INFINITY;
  /** The peer's first SETTINGS arrived: streams may start. */
  private gotSettings = false;
  /** A header block whose CONTINUATIONs are still coming. */
  private partial: { id: number; flags: number; parts: Buffer[] } | undefined;
  private readonly pings: (() => void)[] = [];
  private failure: Failure | undefined;
  private readonly closeCallbacks: (() => void)[] = [];
  /** Our GOAWAY went out and the socket is ending. */
  private ending = false;

  constructor(
    private readonly options: H2ConnectOptions,
    private readonly events: ConnectionEvents,
  ) {
    this.flow = new FlowControl(options.streamWindow, options.connectionWindow, (b) => this.emit(b));
    this.reader = new FrameReader((type, flags, id, payload) => this.onFrame(type, flags, id, payload));
    const { socket, ready } = openSocket(options);
    this.socket = socket;
    this.output = new SocketOutput(socket);
    socket.once(ready, () => this.onConnected());
    this.socket.on("data", (chunk: Buffer) => this.onData(chunk));
    this.socket.on("error", (err: Failure) => {
      this.failure ??= err;
    });
    this.socket.on("close", () => this.fail(this.failure ?? closedError()));
  }

  /** A new stream with this request header block; throws once the connection takes no new streams. */
  request(headerBlock: Buffer, handlers: StreamHandlers): H2Stream {
    if (this.closing) throw closedError("the HTTP/2 connection is closing");
    const stream = new H2Stream(this, headerBlock, handlers);
    if (this.gotSettings && this.streams.size < this.peerMaxStreams) this.start(stream);
    else this.waiting.push(stream);
    return stream;
  }

  /** A PING; `answered` runs when its ACK comes back. */
  ping(answered: () => void): void {
    if (this.destroyed) return;
    this.pings.push(answered);
    this.emit(frameOf(FrameType.PING, 0, 0, Buffer.alloc(8)));
  }

  /** Takes no new streams; closes once the open ones end. */
  close(closed?: () => void): void {
    if (closed) {
      if (this.destroyed) closed();
      else this.closeCallbacks.push(closed);
    }
    this.closing = true;
    this.endIfIdle();
  }

  destroy(err?: Failure): void {
    this.fail(err ?? closedError("the HTTP/2 connection was closed"));
  }

  write(stream: H2Stream, data: Buffer, end: boolean): void {
    if (stream.closed || stream.endQueued) return;
    if (data.length > 0) stream.queue.push(data);
    stream.endQueued = end;
    if (stream.id !== 0) this.flow.send(stream);
  }

  reset(stream: H2Stream, code: number): void {
    if (stream.closed) return;
    if (stream.id !== 0) this.emit(rstStreamFrame(stream.id, code));
    else this.waiting = this.waiting.filter((s) => s !== stream);
    this.finish(stream, { rstCode: code });
  }

  private onConnected(): void {
    const refused = notH2(this.socket, this.options.tls);
    if (refused) {
      this.fail(refused);
      return;
    }
    this.connected = true;
    this.emit(CLIENT_PREFACE);
    this.emit(
      settingsFrame([
        [Setting.ENABLE_PUSH, 0],
        [Setting.INITIAL_WINDOW_SIZE, this.options.streamWindow],
      ]),
    );
    if (this.options.connectionWindow > DEFAULT_WINDOW) {
      this.emit(windowUpdateFrame(0, this.options.connectionWindow - DEFAULT_WINDOW));
    }
    // The waiting streams start on the peer's first SETTINGS (onSettings): before it, a limit of
    // concurrent streams below their number would refuse some.
  }

  private start(stream: H2Stream): void {
    stream.id = this.nextId;
    this.nextId += 2;
    this.streams.set(stream.id, stream);
    this.flow.opened(stream);
    this.emitHeaders(stream);
    stream.sent = true;
    this.flow.send(stream);
  }

  private startWaiting(): void {
    while (this.waiting.length > 0 && this.gotSettings && !this.destroyed && this.streams.size < this.peerMaxStreams) {
      this.start(this.waiting.shift()!);
    }
  }

  /** HEADERS, and CONTINUATIONs when the block is larger than the peer's frame size. */
  private emitHeaders(stream: H2Stream): void {
    const block = stream.headerBlock;
    const max = this.flow.maxFrame;
    let type: number = FrameType.HEADERS;
    for (let at = 0; ; at += max) {
      const part = block.subarray(at, at + max);
      const last = at + max >= block.length;
      const header = Buffer.allocUnsafe(FRAME_HEADER);
      writeFrameHeader(header, 0, part.length, type, last ? Flag.END_HEADERS : 0, stream.id);
      this.emit(header);
      this.emit(part);
      if (last) return;
      type = FrameType.CONTINUATION;
    }
  }

  private onData(chunk: Buffer): void {
    try {
      this.reader.push(chunk);
    } catch (err) {
      if (!(err instanceof H2ProtocolError || err instanceof HpackError)) throw err;
      const code = err instanceof H2ProtocolError ? err.code : ErrorCode.COMPRESSION_ERROR;
      this.emit(goawayFrame(0, code));
      this.flush();
      const message = `HTTP/2 protocol error from the server (${errorCodeName(code)}): ${err.message}`;
      this.fail(Object.assign(new Error(message), { code: "EPROTO" }));
    }
  }

  private onFrame(type: number, flags: number, id: number, payload: Buffer): void {
    if (this.destroyed) return;
    if (!this.gotSettings && type !== FrameType.SETTINGS) {
      throw new H2ProtocolError("the server did not start with SETTINGS (not an HTTP/2 server?)");
    }
    if (this.partial && (type !== FrameType.CONTINUATION || id !== this.partial.id)) {
      throw new H2ProtocolError("a header block was interrupted");
    }
    switch (type) {
      case FrameType.DATA:
        this.onDataFrame(flags, id, payload);
        return;
      case FrameType.HEADERS:
        this.onHeadersFrame(flags, id, payload);
        return;
      case FrameType.CONTINUATION:
        this.onContinuation(flags, id, payload);
        return;
      case FrameType.RST_STREAM:
        this.onRstStream(id, payload);
        return;
      case FrameType.SETTINGS:
        this.onSettings(flags, payload);
        return;
      case FrameType.PUSH_PROMISE:
        throw new H2ProtocolError("PUSH_PROMISE, though push is disabled");
      case FrameType.PING:
        this.onPing(flags, payload);
        return;
      case FrameType.GOAWAY:
        this.onGoaway(payload);
        return;
      case FrameType.WINDOW_UPDATE:
        this.onWindowUpdate(id, payload);
        return;
      default:
      // PRIORITY and unknown frame types are ignored (RFC 9113 §4.1, §5.5).
    }
  }

  private onDataFrame(flags: number, id: number, payload: Buffer): void {
    if (id === 0) throw new H2ProtocolError("DATA on stream 0");
    const stream = this.streams.get(id);
    if (!stream) this.checkNotIdle(id, "DATA");
    this.flow.received(stream, payload.length);
    if (!stream) return;
    const data = unpadded(FrameType.DATA, flags, payload);
    if (data.length > 0) stream.handlers.onData(data);
    // The handler may have reset the stream (a message over the limit): nothing more of it.
    if (flags & Flag.END_STREAM && !stream.closed) this.remoteEnded(stream);
  }

  private onHeadersFrame(flags: number, id: number, payload: Buffer): void {
    if (id === 0) throw new H2ProtocolError("HEADERS on stream 0");
    const fragment = unpadded(FrameType.HEADERS, flags, payload);
    if (flags & Flag.END_HEADERS) this.onHeaderBlock(id, flags, fragment);
    else this.partial = { id, flags, parts: [Buffer.from(fragment)] };
  }

  private onContinuation(flags: number, id: number, payload: Buffer): void {
    const partial = this.partial;
    if (!partial || partial.id !== id) throw new H2ProtocolError("CONTINUATION without HEADERS");
    partial.parts.push(payload);
    if (!(flags & Flag.END_HEADERS)) return;
    this.partial = undefined;
    this.onHeaderBlock(id, partial.flags, Buffer.concat(partial.parts));
  }

  /** Decoded even for a stream we no longer follow: the HPACK table must see every block. */
  private onHeaderBlock(id: number, flags: number, block: Buffer): void {
    const fields = this.decoder.decode(block);
    const stream = this.streams.get(id);
    if (!stream) {
      this.checkNotIdle(id, "HEADERS");
      return;
    }
    const end = (flags & Flag.END_STREAM) !== 0;
    stream.handlers.onHeaders(fields, end);
    if (end) this.remoteEnded(stream);
  }

  private onRstStream(id: number, payload: Buffer): void {
    if (payload.length !== 4) throw new H2ProtocolError("RST_STREAM of a wrong size", ErrorCode.FRAME_SIZE_ERROR);
    const stream = this.streams.get(id);
    if (stream) this.finish(stream, { rstCode: payload.readUInt32BE(0) });
    else this.checkNotIdle(id, "RST_STREAM");
  }

  private onSettings(flags: number, payload: Buffer): void {
    if (flags & Flag.ACK) return;
    if (payload.length % 6 !== 0) throw new H2ProtocolError("SETTINGS of a wrong size", ErrorCode.FRAME_SIZE_ERROR);
    const first = !this.gotSettings;
    this.gotSettings = true;
    for (let at = 0; at < payload.length; at += 6) {
      const id = payload.readUInt16BE(at);
      const value = payload.readUInt32BE(at + 2);
      if (id === Setting.MAX_CONCURRENT_STREAMS) this.peerMaxStreams = value;
      else if (id === Setting.INITIAL_WINDOW_SIZE) this.flow.peerInitialWindow(value, this.streams.values());
      else if (id === Setting.MAX_FRAME_SIZE) this.flow.peerMaxFrame(value);
    }
    this.emit(frameOf(FrameType.SETTINGS, Flag.ACK, 0));
    this.flow.sendBlocked();
    this.startWaiting();
    if (first) this.events.onConnect();
  }

  private onPing(flags: number, payload: Buffer): void {
    if (payload.length !== 8) throw new H2ProtocolError("PING of a wrong size", ErrorCode.FRAME_SIZE_ERROR);
    if (flags & Flag.ACK) this.pings.shift()?.();
    else this.output.emitLater(frameOf(FrameType.PING, Flag.ACK, 0, payload), PING_ACK_DELAY_MS);
  }

  /** Streams above the last one the peer accepted were not processed: refused, safe to send again. */
  private onGoaway(payload: Buffer): void {
    if (payload.length < 8) throw new H2ProtocolError("GOAWAY of a wrong size", ErrorCode.FRAME_SIZE_ERROR);
    const last = payload.readUInt32BE(0) & 0x7fffffff;
    this.closing = true;
    const refused = [...this.waiting, ...[...this.streams.values()].filter((s) => s.id > last)];
    this.waiting = [];
    for (const stream of refused) this.finish(stream, { rstCode: ErrorCode.REFUSED_STREAM });
    this.events.onGoaway();
    this.endIfIdle();
  }

  private onWindowUpdate(id: number, payload: Buffer): void {
    if (payload.length !== 4) throw new H2ProtocolError("WINDOW_UPDATE of a wrong size", ErrorCode.FRAME_SIZE_ERROR);
    const increment = payload.readUInt32BE(0) & 0x7fffffff;
    if (id === 0) this.flow.connectionUpdate(increment);
    else {
      const stream = this.streams.get(id);
      if (stream) this.flow.streamUpdate(stream, increment);
      else this.checkNotIdle(id, "WINDOW_UPDATE");
    }
  }

  /**
   * A frame for a stream we do not follow: one we closed (reset, ended) may still get frames the
   * peer sent before it knew (RFC 9113 §5.1, "closed"), which are dropped; one we never opened is
   * idle, and a frame on it a connection error PROTOCOL_ERROR (§5.1.1). We open the odd ids in
   * order, and the server opens none (push is disabled): an even id, or an odd one not given yet.
   * Only called when the stream is not in the map: no cost for frames of open streams.
   */
  private checkNotIdle(id: number, type: string): void {
    if (id % 2 === 0 || id >= this.nextId) {
      throw new H2ProtocolError(`${type} on stream ${id}, which the client never opened`);
    }
  }

  private remoteEnded(stream: H2Stream): void {
    stream.remoteEnded = true;
    // The answer is complete (gRPC: its status came): whatever we had left to send is moot.
    if (!stream.localEnded) this.emit(rstStreamFrame(stream.id, ErrorCode.NO_ERROR));
    this.finish(stream, {});
  }

  private finish(stream: H2Stream, end: StreamEnd): void {
    if (stream.closed) return;
    stream.closed = true;
    stream.queue.length = 0;
    if (stream.id !== 0) this.streams.delete(stream.id);
    this.flow.closed(stream);
    stream.handlers.onClose(end);
    this.startWaiting();
    this.endIfIdle();
  }

  private endIfIdle(): void {
    if (!this.closing || this.ending || this.destroyed || this.streams.size > 0 || this.waiting.length > 0) return;
    this.ending = true;
    if (this.connected) {
      this.emit(goawayFrame(0, ErrorCode.NO_ERROR));
      this.flush();
      this.socket.end();
    } else this.socket.destroy();
  }

  private fail(err: Failure): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.closing = true;
    this.connected = false;
    this.output.stop();
    this.socket.destroy();
    const open = [...this.waiting, ...this.streams.values()];
    this.waiting = [];
    for (const stream of open) this.finish(stream, { error: err });
    this.events.onClose();
    for (const closed of this.closeCallbacks.splice(0)) closed();
  }

  private emit(bytes: Buffer): void {
    this.output.emit(bytes);
  }

  private flush(): void {
    this.output.flush();
  }
}

function closedError(message = "the HTTP/2 connection closed"): Failure {
  return Object.assign(new Error(message), { code: "ECONNRESET" });
}
