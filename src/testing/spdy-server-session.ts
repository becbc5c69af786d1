import { EventEmitter } from "node:events";
import { createRequire } from "node:module";
import type { Duplex } from "node:stream";
import { constants, createDeflate, createInflate, type Deflate, type Inflate } from "node:zlib";

/**
 * The server side of a SPDY/3.1 session, as much of it as a Kubernetes API server stand-in needs
 * for port-forward: SYN_STREAM in (header blocks compressed with zlib and the SPDY/3 dictionary,
 * one compression context per direction), SYN_REPLY and DATA out, FIN, RST_STREAM and PING.
 * kubectl tunnels this over a WebSocket (`SPDY/3.1+portforward.k8s.io`). Flow control is not
 * enforced: tests move a few bytes.
 */

const require = createRequire(import.meta.url);
// The SPDY/3 header compression dictionary (a constant of the protocol), from spdy-transport.
const DICTIONARY = (
  require("spdy-transport/lib/spdy-transport/protocol/spdy/dictionary.js") as Record<number, Buffer>
)[3]!;
const FLAG_FIN = 0x01;
const SYN_STREAM = 1;
const SYN_REPLY = 2;
const RST_STREAM = 3;
const PING = 6;

export class SpdyStream extends EventEmitter {
  constructor(
    private readonly session: SpdyServerSession,
    readonly id: number,
    readonly headers: Record<string, string>,
  ) {
    super();
  }
  write(data: Buffer): void {
    this.session.sendData(this.id, data, false);
  }
  end(): void {
    this.session.sendData(this.id, Buffer.alloc(0), true);
  }
}

export class SpdyServerSession {
  private buffered = Buffer.alloc(0);
  private readonly inflate: Inflate = createInflate({ dictionary: DICTIONARY });
  private readonly deflate: Deflate = createDeflate({ dictionary: DICTIONARY });
  private readonly streams = new Map<number, SpdyStream>();
  private work: Promise<void> = Promise.resolve();

  constructor(
    private readonly socket: Duplex,
    private readonly onStream: (stream: SpdyStream) => void,
  ) {
    socket.on("data", (chunk: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      this.work = this.work
        .then(() => this.drain())
        .catch(() => {
          socket.destroy();
        });
    });
    socket.on("error", () => socket.destroy());
  }

  sendData(id: number, data: Buffer, fin: boolean): void {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(id & 0x7fffffff, 0);
    head.writeUInt32BE(((fin ? FLAG_FIN : 0) << 24) | data.length, 4);
    this.socket.write(Buffer.concat([head, data]));
  }

  private async drain(): Promise<void> {
    while (this.buffered.length >= 8) {
      const length = this.buffered.readUIntBE(5, 3);
      if (this.buffered.length < 8 + length) return;
      const frame = this.buffered.subarray(0, 8 + length);
      this.buffered = this.buffered.subarray(8 + length);
      await this.handle(frame);
    }
  }

  private async handle(frame: Buffer): Promise<void> {
    const flags = frame[4]!;
    const body = frame.subarray(8);
    if ((frame[0]! & 0x80) === 0) {
      const stream = this.streams.get(frame.readUInt32BE(0) & 0x7fffffff);
      if (body.length > 0) stream?.emit("data", Buffer.from(body));
      if (flags & FLAG_FIN) stream?.emit("end");
      return;
    }
    const type = frame.readUInt16BE(2);
    if (type === SYN_STREAM) {
      const id = body.readUInt32BE(0) & 0x7fffffff;
      const headers = parseHeaderBlock(await this.zlib(this.inflate, body.subarray(10)));
      const stream = new SpdyStream(this, id, headers);
      this.streams.set(id, stream);
      await this.reply(id);
      this.onStream(stream);
      if (flags & FLAG_FIN) stream.emit("end");
    } else if (type === RST_STREAM) {
      this.streams.get(body.readUInt32BE(0) & 0x7fffffff)?.emit("end");
    } else if (type === PING) {
      this.socket.write(frame);
    }
    // SETTINGS, WINDOW_UPDATE, GOAWAY: nothing to do for a stand-in.
  }

  private async reply(id: number): Promise<void> {
    const block = await this.zlib(this.deflate, Buffer.alloc(4)); // no headers
    const head = Buffer.alloc(12);
    head.writeUInt16BE(0x8003, 0);
    head.writeUInt16BE(SYN_REPLY, 2);
    head.writeUInt32BE(4 + block.length, 4);
    head.writeUInt32BE(id, 8);
    this.socket.write(Buffer.concat([head, block]));
  }

  /** Runs data through one of the session's (stateful) zlib contexts and returns what a sync flush yields. */
  private zlib(stream: Inflate | Deflate, data: Buffer): Promise<Buffer> {
    return new Promise((resolve) => {
      const out: Buffer[] = [];
      const collect = (c: Buffer) => out.push(c);
      stream.on("data", collect);
      stream.write(data);
      stream.flush(constants.Z_SYNC_FLUSH, () => {
        stream.off("data", collect);
        resolve(Buffer.concat(out));
      });
    });
  }
}

function parseHeaderBlock(block: Buffer): Record<string, string> {
  const headers: Record<string, string> = {};
  let at = 4;
  for (let n = block.readUInt32BE(0); n > 0; n--) {
    const nameLength = block.readUInt32BE(at);
    const name = block.subarray(at + 4, at + 4 + nameLength).toString();
    at += 4 + nameLength;
    const valueLength = block.readUInt32BE(at);
    headers[name.toLowerCase()] = block.subarray(at + 4, at + 4 + valueLength).toString();
    at += 4 + valueLength;
  }
  return headers;
}
