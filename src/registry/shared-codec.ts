/**
 * Decoding shared by every watcher of one event: the storage hands the same KeyValue object to
 * all watchers and informers of a prefix, so it is parsed once (not once per watcher); its
 * encoding is shared the same way (server/watch-frame.ts). The shared objects are read-only by
 * convention (nothing on the watch path mutates an event's object). Also the splicing of a
 * resourceVersion into stored bytes, for the GET and LIST fast paths.
 */
import { LruMap } from "toad-cache";
import type { KubeObject } from "../api/object.js";

/**
 * How many decoded objects are kept: the watch cache keeps every current KeyValue alive, so a
 * WeakMap keyed by them would keep a decoded copy of every object ever watched (several times the
 * stored size); a fan-out needs only the versions of the last few batches.
 */
const DECODED_KEPT = 4096;

/**
 * The decoded objects of the versions decoded most recently, least recently used forgotten first.
 * One per registry (stored-versions.ts): within a registry a key belongs to one kind, so the
 * version alone says how it decodes.
 */
export class SharedDecodes {
  private readonly decoded: LruMap<KubeObject>;
  /** The last two versions decoded and their objects: a fan-out asks for them once per watcher in a row. */
  private readonly recent: [object | undefined, KubeObject | undefined, object | undefined, KubeObject | undefined] = [
    undefined,
    undefined,
    undefined,
    undefined,
  ];

  constructor(kept = DECODED_KEPT) {
    this.decoded = new LruMap<KubeObject>(kept);
  }

  /** The object of `kv`, decoded by `decode` the first time (and again once forgotten). */
  of<K extends object>(kv: K, decode: (kv: K) => KubeObject): KubeObject {
    const recent = this.recent;
    // A fan-out asks for the same two kvs (an event's object and its previous one) once per
    // watcher in a row: answer those without the map.
    if (kv === recent[0]) return recent[1]!;
    if (kv === recent[2]) return recent[3]!;
    let obj = this.decoded.get(kv);
    if (obj === undefined) {
      obj = decode(kv);
      this.decoded.set(kv, obj);
    }
    recent[2] = recent[0];
    recent[3] = recent[1];
    recent[0] = kv;
    recent[1] = obj;
    return obj;
  }
}

const METADATA_KEY = Buffer.from('"metadata":{');

/**
 * Stored bytes (JSON without metadata.resourceVersion, see codec.ts) → the API object's JSON,
 * by splicing `"resourceVersion":"<rv>"` into the top-level metadata: no parse, no stringify.
 * Undefined when the bytes are not shaped as expected (the caller decodes instead).
 */
export function withResourceVersion(bytes: Buffer, rv: number): Buffer | undefined {
  const at = splicePoint(bytes);
  if (at < 0) return undefined;
  const insert = Buffer.from(resourceVersionMember(rv, bytes[at] === 0x7d));
  return Buffer.concat([bytes.subarray(0, at), insert, bytes.subarray(at)]);
}

/**
 * metadataBodyAt, for bytes that are also framed as a JSON object (`{` … `}`, whitespace aside);
 * -1 otherwise. Only a guard against splicing into something that is not an object: whether
 * stored bytes may be sent at all is decided once per version by stored-versions.ts
 * (StoredVersions.sendableAsStored), which parses them.
 */
export function splicePoint(bytes: Buffer): number {
  return framedAsObject(bytes) ? metadataBodyAt(bytes) : -1;
}

function framedAsObject(bytes: Buffer): boolean {
  let first = 0;
  let last = bytes.length - 1;
  while (first <= last && isJsonSpace(bytes[first]!)) first++;
  while (last > first && isJsonSpace(bytes[last]!)) last--;
  return first < last && bytes[first] === 0x7b && bytes[last] === 0x7d;
}

function isJsonSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** The member spliced in at metadataBodyAt: followed by a comma unless metadata is `{}`. */
export function resourceVersionMember(rv: number, emptyMetadata: boolean): string {
  return `"resourceVersion":"${rv}"${emptyMetadata ? "" : ","}`;
}

/**
 * The offset just after the top-level `"metadata":{` of stored JSON bytes, or -1 when there is
 * none. Stored objects put metadata after apiVersion and kind, so the scan is short; it runs per
 * item of every list, so the key is compared inline (Buffer.compare's call costs more than it).
 */
export function metadataBodyAt(bytes: Buffer): number {
  const n = bytes.length;
  const keyLength = METADATA_KEY.length;
  let depth = 0;
  for (let i = 0; i < n; i++) {
    const c = bytes[i]!;
    if (c === 0x22) {
      // A key at depth 1 followed by :{ is the top-level metadata (a string value is never followed by ':').
      if (depth === 1 && i + keyLength <= n) {
        let k = 1;
        while (k < keyLength && bytes[i + k] === METADATA_KEY[k]) k++;
        if (k === keyLength) return i + keyLength;
      }
      // Skip the string.
      for (i++; i < n; i++) {
        const s = bytes[i]!;
        if (s === 0x5c) i++;
        else if (s === 0x22) break;
      }
    } else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) depth--;
  }
  return -1;
}
