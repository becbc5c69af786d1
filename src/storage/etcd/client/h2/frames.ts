/**
 * HTTP/2 frames (RFC 9113 §4, §6) as the etcd client's connection reads and writes them: the
 * 9-byte frame header, the frame types it handles, and a reader that cuts whole frames out of
 * the socket's chunks without copying a frame that arrived in one chunk.
 */

export const FRAME_HEADER = 9;
/** The largest frame payload a peer may send before it learns otherwise (SETTINGS_MAX_FRAME_SIZE). */
export const DEFAULT_MAX_FRAME = 16_384;
/** Flow-control windows start at this size (SETTINGS_INITIAL_WINDOW_SIZE, and the connection's). */
export const DEFAULT_WINDOW = 65_535;
export const MAX_WINDOW = 2 ** 31 - 1;

export const FrameType = {
  DATA: 0x0,
  HEADERS: 0x1,
  PRIORITY: 0x2,
  RST_STREAM: 0x3,
  SETTINGS: 0x4,
  PUSH_PROMISE: 0x5,
  PING: 0x6,
  GOAWAY: 0x7,
  WINDOW_UPDATE: 0x8,
  CONTINUATION: 0x9,
} as const;

export const Flag = {
  END_STREAM: 0x1,
  ACK: 0x1,
  END_HEADERS: 0x4,
  PADDED: 0x8,
  PRIORITY: 0x20,
} as const;

export const Setting = {
  HEADER_TABLE_SIZE: 0x1,
  ENABLE_PUSH: 0x2,
  MAX_CONCURRENT_STREAMS: 0x3,
  INITIAL_WINDOW_SIZE: 0x4,
  MAX_FRAME_SIZE: 0x5,
} as const;

/** Error codes (RFC 9113 §7). */
export const ErrorCode = {
  NO_ERROR: 0x0,
  PROTOCOL_ERROR: 0x1,
  INTERNAL_ERROR: 0x2,
  FLOW_CONTROL_ERROR: 0x3,
  STREAM_CLOSED: 0x5,
  FRAME_SIZE_ERROR: 0x6,
  REFUSED_STREAM: 0x7,
  CANCEL: 0x8,
  COMPRESSION_ERROR: 0x9,
} as const;

const ERROR_NAMES = new Map<number, string>(Object.entries(ErrorCode).map(([name, code]) => [code, name]));

/** An error code's name (RFC 9113 §7), or its number when we do not know it. */
export function errorCodeName(code: number): string {
  return ERROR_NAMES.get(code) ?? `error 0x${code.toString(16)}`;
}

export const CLIENT_PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "latin1");

/** A connection-level protocol violation by the peer: the connection is closed with `code`. */
export class H2ProtocolError extends Error {
  constructor(
    message: string,
    readonly code: number = ErrorCode.PROTOCOL_ERROR,
  ) {
    super(message);
  }
}

export function writeFrameHeader(out: Buffer, at: number, length: number, type: number, flags: number, id: number) {
  out[at] = length >>> 16;
  out[at + 1] = (length >>> 8) & 0xff;
  out[at + 2] = length & 0xff;
  out[at + 3] = type;
  out[at + 4] = flags;
  out.writeUInt32BE(id, at + 5);
}

/** One whole frame: header and payload. */
export function frameOf(type: number, flags: number, id: number, payload?: Uint8Array): Buffer {
  const length = payload?.length ?? 0;
  const out = Buffer.allocUnsafe(FRAME_HEADER + length);
  writeFrameHeader(out, 0, length, type, flags, id);
  if (payload) out.set(payload, FRAME_HEADER);
  return out;
}

export function settingsFrame(settings: readonly (readonly [number, number])[]): Buffer {
  const payload = Buffer.allocUnsafe(6 * settings.length);
  settings.forEach(([id, value], i) => {
    payload.writeUInt16BE(id, 6 * i);
    payload.writeUInt32BE(value, 6 * i + 2);
  });
  return frameOf(FrameType.SETTINGS, 0, 0, payload);
}

export function windowUpdateFrame(id: number, increment: number): Buffer {
  const out = Buffer.allocUnsafe(FRAME_HEADER + 4);
  writeFrameHeader(out, 0, 4, FrameType.WINDOW_UPDATE, 0, id);
  out.writeUInt32BE(increment, FRAME_HEADER);
  return out;
}

export function rstStreamFrame(id: number, code: number): Buffer {
  const out = Buffer.allocUnsafe(FRAME_HEADER + 4);
  writeFrameHeader(out, 0, 4, FrameType.RST_STREAM, 0, id);
  out.writeUInt32BE(code, FRAME_HEADER);
  return out;
}

export function goawayFrame(lastStreamId: number, code: number): Buffer {
  const out = Buffer.allocUnsafe(FRAME_HEADER + 8);
  writeFrameHeader(out, 0, 8, FrameType.GOAWAY, 0, 0);
  out.writeUInt32BE(lastStreamId, FRAME_HEADER);
  out.writeUInt32BE(code, FRAME_HEADER + 4);
  return out;
}

/**
 * The payload of a DATA or HEADERS frame without its padding (and, for HEADERS, its priority
 * fields), as a view of `payload`.
 */
export function unpadded(type: number, flags: number, payload: Buffer): Buffer {
  let start = 0;
  let end = payload.length;
  if (flags & Flag.PADDED) {
    if (payload.length < 1)
      throw new H2ProtocolError("padded frame without its pad length", ErrorCode.FRAME_SIZE_ERROR);
    start = 1;
    end -= payload[0]!;
  }
  if (type === FrameType.HEADERS && flags & Flag.PRIORITY) start += 5;
  if (end < start) throw new H2ProtocolError("padding longer than the frame");
  return payload.subarray(start, end);
}

export type FrameHandler = (type: number, flags: number, id: number, payload: Buffer) => void;

/** Cuts frames out of socket chunks; a frame longer than `maxFrame` is a connection error. */
export class FrameReader {
  private pending: Buffer | undefined;

  constructor(
    private readonly onFrame: FrameHandler,
    private readonly maxFrame = DEFAULT_MAX_FRAME,
  ) {}

  push(chunk: Buffer): void {
    const data = this.pending === undefined ? chunk : Buffer.concat([this.pending, chunk]);
    this.pending = undefined;
    let at = 0;
    while (data.length - at >= FRAME_HEADER) {
      const length = (data[at]! << 16) | (data[at + 1]! << 8) | data[at + 2]!;
      if (length > this.maxFrame) throw new H2ProtocolError(`a frame of ${length} bytes`, ErrorCode.FRAME_SIZE_ERROR);
      const end = at + FRAME_HEADER + length;
      if (data.length < end) break;
      const id = data.readUInt32BE(at + 5) & 0x7fffffff;
      this.onFrame(data[at + 3]!, data[at + 4]!, id, data.subarray(at + FRAME_HEADER, end));
      at = end;
    }
    // A partial frame waits for the next chunk (socket chunks are never reused: a view is safe).
    if (at < data.length) this.pending = data.subarray(at);
  }
}
