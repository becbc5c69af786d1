/**
 * Decoding and encoding shared by every watcher of one event: the storage hands the same
 * KeyValue object to all watchers of a prefix, so it is parsed once (not once per watcher),
 * and the same presented object is serialised once. Weak maps: nothing is kept after the
 * event is gone. The shared objects are read-only by convention (nothing on the watch path
 * mutates an event's object).
 */
import type { KubeObject } from "../../api/object.js";

const decoded = new WeakMap<object, KubeObject>();
const encoded = new WeakMap<object, string>();

export function decodeShared<K extends object>(kv: K, decode: (kv: K) => KubeObject): KubeObject {
  // A fan-out asks for the same two kvs (an event's object and its previous one) once per
  // watcher in a row: answer those without the map.
  if (kv === recent[0]) return recent[1]!;
  if (kv === recent[2]) return recent[3]!;
  let obj = decoded.get(kv);
  if (obj === undefined) {
    obj = decode(kv);
    decoded.set(kv, obj);
  }
  recent[2] = recent[0];
  recent[3] = recent[1];
  recent[0] = kv;
  recent[1] = obj;
  return obj;
}

/** The last two kvs decoded and their objects: [kv, object, kv, object]. */
const recent: [object | undefined, KubeObject | undefined, object | undefined, KubeObject | undefined] = [
  undefined,
  undefined,
  undefined,
  undefined,
];

/** JSON.stringify(obj), computed once per object. */
export function jsonShared(obj: object): string {
  let json = encoded.get(obj);
  if (json === undefined) {
    json = JSON.stringify(obj);
    encoded.set(obj, json);
  }
  return json;
}

const METADATA_KEY = Buffer.from('"metadata":{');

/**
 * Stored bytes (JSON without metadata.resourceVersion, see codec.ts) → the API object's JSON,
 * by splicing `"resourceVersion":"<rv>"` into the top-level metadata: no parse, no stringify.
 * Undefined when the bytes are not shaped as expected (the caller decodes instead).
 */
export function withResourceVersion(bytes: Buffer, rv: number): Buffer | undefined {
  let depth = 0;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (c === 0x22) {
      // A key at depth 1 followed by :{ is the top-level metadata (a string value is never followed by ':').
      if (
        depth === 1 &&
        i + METADATA_KEY.length <= bytes.length &&
        bytes.compare(METADATA_KEY, 0, METADATA_KEY.length, i, i + METADATA_KEY.length) === 0
      ) {
        const at = i + METADATA_KEY.length;
        const empty = bytes[at] === 0x7d;
        const insert = Buffer.from(`"resourceVersion":"${rv}"${empty ? "" : ","}`);
        return Buffer.concat([bytes.subarray(0, at), insert, bytes.subarray(at)]);
      }
      // Skip the string.
      for (i++; i < bytes.length; i++) {
        const s = bytes[i]!;
        if (s === 0x5c) i++;
        else if (s === 0x22) break;
      }
    } else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) depth--;
  }
  return undefined;
}
