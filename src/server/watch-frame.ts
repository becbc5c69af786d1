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

/** Frames of shared objects by event type (an object can be MODIFIED for one watcher, ADDED for another). */
const shared = new WeakMap<object, Map<string, Frame>>();

/** The frame of `{"type":type,"object":object}`, built once per object and type. Read-only objects only. */
export function sharedFrame(type: string, object: object): Frame {
  // A fan-out asks for the same frame once per watcher in a row: answer that without the maps.
  if (object === last.object && type === last.type) return last.frame;
  let byType = shared.get(object);
  if (byType === undefined) {
    byType = new Map();
    shared.set(object, byType);
  }
  let frame = byType.get(type);
  if (frame === undefined) {
    frame = frameOf(`{"type":"${type}","object":${JSON.stringify(object)}}\n`);
    byType.set(type, frame);
  }
  last = { object, type, frame };
  return frame;
}

/** The last frame asked for (kept alive until another is asked for; one line's worth). */
let last: { object: object | undefined; type: string; frame: Frame } = {
  object: undefined,
  type: "",
  frame: { chunk: Buffer.alloc(0), line: Buffer.alloc(0) },
};

/**
 * The frame of `{"type":type,"object":<json>}` around an object's API JSON bytes (a stored
 * event's, registry/stored-watch-event.ts): no stringify. A fan-out asks for the frames of a
 * batch (one commit's events) once per watcher, in the same order: each is kept while its bytes
 * live, so every watcher gets the same Buffers (and the writer's rounds concatenate them once).
 */
export function storedFrame(type: string, json: Buffer): Frame {
  if (json === lastStored.json && type === lastStored.type) return lastStored.frame;
  const kept = storedFrames.get(json);
  if (kept !== undefined && kept.type === type) {
    lastStored = { json, type, frame: kept.frame };
    return kept.frame;
  }
  const head = `{"type":"${type}","object":`;
  const size = head.length + json.length + 2;
  const sizeLine = `${size.toString(16)}\r\n`;
  const chunk = Buffer.allocUnsafe(sizeLine.length + size + 2);
  let at = chunk.write(sizeLine, 0, "latin1");
  at += chunk.write(head, at, "latin1");
  at += json.copy(chunk, at);
  chunk.write("}\n\r\n", at, "latin1");
  const frame = { chunk, line: chunk.subarray(sizeLine.length, sizeLine.length + size) };
  lastStored = { json, type, frame };
  storedFrames.set(json, { type, frame });
  return frame;
}

/** Frames of stored events' bytes (an event's bytes are shared by every watcher that sends it). */
const storedFrames = new WeakMap<Buffer, { type: string; frame: Frame }>();

let lastStored: { json: Buffer | undefined; type: string; frame: Frame } = {
  json: undefined,
  type: "",
  frame: last.frame,
};

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
