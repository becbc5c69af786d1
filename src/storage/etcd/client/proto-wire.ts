/**
 * The protobuf wire reading that etcd's KV answers (kv-proto.ts) and its watch responses
 * (watch-response.ts) share: tags, int64 revisions as numbers, a ResponseHeader's revision, and
 * a mvccpb.KeyValue (key=1 create_revision=2 mod_revision=3 version=4 value=5 lease=6) read as
 * offsets into the message, so nothing is copied until it is wanted.
 */
import type protobuf from "protobufjs/minimal.js";
import { type KeyValue, newKeyValue } from "../../interface.js";

type ProtoReader = protobuf.Reader;

/** Wire types (the low 3 bits of a tag). */
export const VARINT = 0;
export const BYTES = 2;
/** A field's tag: its number and wire type, as the first varint of the field. */
export const tag = (field: number, wire: number): number => (field << 3) | wire;

const HEADER_REVISION = tag(3, VARINT);
const KV_KEY = tag(1, BYTES);
const KV_CREATE_REVISION = tag(2, VARINT);
const KV_MOD_REVISION = tag(3, VARINT);
const KV_VALUE = tag(5, BYTES);

/**
 * An int64 as a number (inexact above 2^53: callers that must refuse that check). A varint of at
 * most 4 bytes (below 2^28: every revision but on a very busy store) is read by uint32() without
 * allocating; a longer one by protobufjs's 64-bit path (uint32() would read its low bits only,
 * and assumes 10 bytes past the fifth).
 */
export function int64(r: ProtoReader): number {
  const b = r.buf;
  const p = r.pos;
  if (b[p]! < 128 || b[p + 1]! < 128 || b[p + 2]! < 128 || b[p + 3]! < 128) return r.uint32();
  const long: { low: number; high: number } | number = r.int64();
  return typeof long === "number" ? long : long.high * 2 ** 32 + (long.low >>> 0);
}

/** The end offset of the length-delimited field at the reader (left at its first byte). */
export function fieldEnd(r: ProtoReader): number {
  const length = r.uint32();
  return r.pos + length;
}

/** The ResponseHeader in [r.pos, end): its revision. */
export function headerRevision(r: ProtoReader, end: number): number {
  let revision = 0;
  while (r.pos < end) {
    const t = r.uint32();
    if (t === HEADER_REVISION) revision = int64(r);
    else r.skipType(t & 7);
  }
  return revision;
}

/** A KeyValue's fields as offsets into the message. */
export interface KvFields {
  keyStart: number;
  keyEnd: number;
  valueStart: number;
  valueEnd: number;
  createRevision: number;
  modRevision: number;
}

export const emptyKv = (): KvFields => ({
  keyStart: 0,
  keyEnd: 0,
  valueStart: 0,
  valueEnd: 0,
  createRevision: 0,
  modRevision: 0,
});

/** Reads the KeyValue in [r.pos, end) into `kv` (fields absent from the message are their defaults). */
export function readKv(r: ProtoReader, end: number, kv: KvFields): void {
  kv.keyStart = kv.keyEnd = kv.valueStart = kv.valueEnd = 0;
  kv.createRevision = kv.modRevision = 0;
  while (r.pos < end) {
    const t = r.uint32();
    if (t === KV_KEY) {
      kv.keyEnd = fieldEnd(r);
      kv.keyStart = r.pos;
      r.pos = kv.keyEnd;
    } else if (t === KV_VALUE) {
      kv.valueEnd = fieldEnd(r);
      kv.valueStart = r.pos;
      r.pos = kv.valueEnd;
    } else if (t === KV_CREATE_REVISION) kv.createRevision = int64(r);
    else if (t === KV_MOD_REVISION) kv.modRevision = int64(r);
    else r.skipType(t & 7);
  }
  r.pos = end;
}

/**
 * The storage's KeyValues of fields read from `buf` (the message the reader reads), their values
 * copied together into one buffer of their own, exactly their size.
 *
 * Why a copy: caches keep values for long, and a view would keep the whole message (every other
 * object and event in it) alive with it. Why not `Buffer.from` per value: small Buffers come
 * from Node's shared 8 KiB pool, so each cached value kept alive the whole slab it was cut from,
 * and the rest of that slab was a request's or a response's bytes, long dead: a heap snapshot of
 * a replica showed several times its values' size in slabs. One buffer per message (a
 * LIST's values, or one watch event's value and previous value) keeps at most that message's
 * values: a LIST's buffer lives until the last of its objects is replaced.
 */
export function toKeyValues(buf: Buffer, fields: readonly KvFields[]): KeyValue[] {
  let total = 0;
  for (const kv of fields) total += kv.valueEnd - kv.valueStart;
  const values = Buffer.allocUnsafeSlow(total);
  const out: KeyValue[] = new Array(fields.length);
  let at = 0;
  for (let i = 0; i < fields.length; i++) {
    const kv = fields[i]!;
    const length = buf.copy(values, at, kv.valueStart, kv.valueEnd);
    out[i] = newKeyValue(
      buf.toString("utf8", kv.keyStart, kv.keyEnd),
      values.subarray(at, at + length),
      kv.createRevision,
      kv.modRevision,
    );
    at += length;
  }
  return out;
}
