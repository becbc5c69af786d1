/**
 * A watch event as the bytes that go on the wire: one HTTP/1.1 chunk whose data is one line
 * `{"type":"…","object":…}\n`. An event's object is the same for every watcher that sees it
 * unchanged (store-watch shares the decoded object), so its frame is built once, as one Buffer,
 * and written as is to every one of those watchers' sockets: no string per watcher, no UTF-8
 * conversion per write, and one buffer per write instead of node's four (size, CRLF, data, CRLF).
 */

export interface Frame {
  /** The whole chunk: `<size in hex>\r\n<line>\r\n`. */
  readonly chunk: Buffer;
  /** The line alone, for a response that is not chunked. */
  readonly line: Buffer;
}

const EMPTY_FRAME: Frame = { chunk: Buffer.alloc(0), line: Buffer.alloc(0) };

/**
 * The frames of the events every watcher of one server shares, each built once: one per server
 * (WatchStreams.frames), so two servers in one process build and keep their own.
 */
export class WatchFrames {
  /** Frames of shared objects by event type (an object can be MODIFIED for one watcher, ADDED for another). */
  private readonly byObject = new WeakMap<object, Map<string, Frame>>();
  /** The last frame asked for (kept alive until another is asked for; one line's worth). */
  private last: { object: object | undefined; type: string; frame: Frame } = {
    object: undefined,
    type: "",
    frame: EMPTY_FRAME,
  };
  /** Frames of stored events' bytes (an event's bytes are shared by every watcher that sends it). */
  private readonly byStoredBytes = new WeakMap<Buffer, { type: string; frame: Frame }>();
  private lastStored: { json: Buffer | undefined; type: string; frame: Frame } = {
    json: undefined,
    type: "",
    frame: EMPTY_FRAME,
  };

  /** The frame of `{"type":type,"object":object}`, built once per object and type. Read-only objects only. */
  shared(type: string, object: object): Frame {
    // A fan-out asks for the same frame once per watcher in a row: answer that without the maps.
    const last = this.last;
    if (object === last.object && type === last.type) return last.frame;
    let byType = this.byObject.get(object);
    if (byType === undefined) {
      byType = new Map();
      this.byObject.set(object, byType);
    }
    let frame = byType.get(type);
    if (frame === undefined) {
      frame = frameOf(`{"type":"${type}","object":${JSON.stringify(object)}}\n`);
      byType.set(type, frame);
    }
    this.last = { object, type, frame };
    return frame;
  }

  /**
   * The frame of `{"type":type,"object":<json>}` around an object's API JSON bytes (a stored
   * event's, registry/stored-watch-event.ts): no stringify. A fan-out asks for the frames of a
   * batch (one commit's events) once per watcher, in the same order: each is kept while its bytes
   * live, so every watcher gets the same Buffers (and the writer's rounds concatenate them once).
   */
  stored(type: string, json: Buffer): Frame {
    const lastStored = this.lastStored;
    if (json === lastStored.json && type === lastStored.type) return lastStored.frame;
    const kept = this.byStoredBytes.get(json);
    if (kept !== undefined && kept.type === type) {
      this.lastStored = { json, type, frame: kept.frame };
      return kept.frame;
    }
    const frame = storedBytesFrame(type, json);
    this.lastStored = { json, type, frame };
    this.byStoredBytes.set(json, { type, frame });
    return frame;
  }
}

function storedBytesFrame(type: string, json: Buffer): Frame {
  const head = `{"type":"${type}","object":`;
  const size = head.length + json.length + 2;
  const sizeLine = `${size.toString(16)}\r\n`;
  const chunk = Buffer.allocUnsafe(sizeLine.length + size + 2);
  let at = chunk.write(sizeLine, 0, "latin1");
  at += chunk.write(head, at, "latin1");
  at += json.copy(chunk, at);
  chunk.write("}\n\r\n", at, "latin1");
  return { chunk, line: chunk.subarray(sizeLine.length, sizeLine.length + size) };
}

/** The frame of one line (which ends with "\n"). */
export function frameOf(line: string): Frame {
  const size = Buffer.byteLength(line);
  const head = `${size.toString(16)}\r\n`;
  const chunk = Buffer.allocUnsafe(head.length + size + 2);
  chunk.write(head, 0, "latin1");
  chunk.write(line, head.length, "utf8");
  chunk[chunk.length - 2] = 0x0d;
  chunk[chunk.length - 1] = 0x0a;
  return { chunk, line: chunk.subarray(head.length, head.length + size) };
}
