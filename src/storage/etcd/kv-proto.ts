/**
 * The protobuf messages of etcd's KV and Auth services that the storage sends and reads, encoded
 * and decoded with protobufjs's wire reader and writer. Field numbers are those of etcd's
 * `etcdserverpb/rpc.proto` and `mvccpb/kv.proto` (stable since etcd 3.0).
 *
 * Why by hand rather than from the .proto files with a reflection decoder: only the fields the
 * storage uses are read (revisions become numbers, keys strings, values Buffers) and nothing is
 * filled with defaults, which is what made each call through the `etcd3` client cost the server
 * several times more CPU. Unknown fields are skipped, as protobuf requires.
 */
import protobuf from "protobufjs/minimal.js";
import type { KeyValue } from "../interface.js";
import {
  type Bytes,
  type Compare,
  type DeleteRangeRequest,
  type DeleteRangeResponse,
  EtcdRequestError,
  type RangeRequest,
  type RangeResponse,
  type RequestOp,
  type ResponseOp,
  type TxnRequest,
  type TxnResponse,
} from "./kv-calls.js";

type Reader = protobuf.Reader;
type Writer = protobuf.Writer;

/** Wire types (the low 3 bits of a tag). */
const VARINT = 0;
const LENGTH_DELIMITED = 2;
/** A tag: field number and wire type. */
const tag = (field: number, wireType: number): number => (field << 3) | wireType;

// Numeric values of etcd's enums.
const TARGET = { CREATE: 1, MOD: 2 } as const;
const RESULT = { EQUAL: 0, GREATER: 1, LESS: 2, NOT_EQUAL: 3 } as const;

const bytesOf = (b: Bytes): Uint8Array => (typeof b === "string" ? Buffer.from(b) : b);

// ---- requests ------------------------------------------------------------------------------

function writeRange(w: Writer, r: RangeRequest): void {
  w.uint32(tag(1, LENGTH_DELIMITED)).bytes(bytesOf(r.key));
  if (r.range_end !== undefined) w.uint32(tag(2, LENGTH_DELIMITED)).bytes(bytesOf(r.range_end));
  if (r.limit) w.uint32(tag(3, VARINT)).int64(r.limit);
  if (r.revision) w.uint32(tag(4, VARINT)).int64(r.revision);
  if (r.count_only) w.uint32(tag(9, VARINT)).bool(true);
}

function writeDelete(w: Writer, d: DeleteRangeRequest): void {
  w.uint32(tag(1, LENGTH_DELIMITED)).bytes(bytesOf(d.key));
  if (d.range_end !== undefined) w.uint32(tag(2, LENGTH_DELIMITED)).bytes(bytesOf(d.range_end));
  if (d.prev_kv) w.uint32(tag(3, VARINT)).bool(true);
}

/** RequestOp: request_range = 1, request_put = 2, request_delete_range = 3. */
function writeOp(w: Writer, field: number, op: RequestOp): void {
  w.uint32(tag(field, LENGTH_DELIMITED)).fork();
  if ("range" in op) {
    w.uint32(tag(1, LENGTH_DELIMITED)).fork();
    writeRange(w, op.range);
  } else if ("put" in op) {
    w.uint32(tag(2, LENGTH_DELIMITED)).fork();
    w.uint32(tag(1, LENGTH_DELIMITED)).bytes(bytesOf(op.put.key));
    w.uint32(tag(2, LENGTH_DELIMITED)).bytes(bytesOf(op.put.value));
  } else {
    w.uint32(tag(3, LENGTH_DELIMITED)).fork();
    writeDelete(w, op.deleteRange);
  }
  w.ldelim().ldelim();
}

/** Compare: result = 1, target = 2, key = 3, create_revision = 5, mod_revision = 6 (a oneof: always written). */
function writeCompare(w: Writer, c: Compare): void {
  w.uint32(tag(1, LENGTH_DELIMITED)).fork();
  if (RESULT[c.result] !== 0) w.uint32(tag(1, VARINT)).int32(RESULT[c.result]);
  w.uint32(tag(2, VARINT)).int32(TARGET[c.target]);
  w.uint32(tag(3, LENGTH_DELIMITED)).bytes(bytesOf(c.key));
  w.uint32(tag(c.target === "CREATE" ? 5 : 6, VARINT)).int64(c.revision);
  w.ldelim();
}

export function encodeRangeRequest(r: RangeRequest): Uint8Array {
  const w = protobuf.Writer.create();
  writeRange(w, r);
  return w.finish();
}

/** TxnRequest: compare = 1, success = 2, failure = 3. */
export function encodeTxnRequest(t: TxnRequest): Uint8Array {
  const w = protobuf.Writer.create();
  for (const c of t.compare) writeCompare(w, c);
  for (const op of t.success) writeOp(w, 2, op);
  for (const op of t.failure) writeOp(w, 3, op);
  return w.finish();
}

/** CompactionRequest: revision = 1, physical = 2 (wait until the compaction is applied). */
export function encodeCompactionRequest(revision: number): Uint8Array {
  return protobuf.Writer.create().uint32(tag(1, VARINT)).int64(revision).uint32(tag(2, VARINT)).bool(true).finish();
}

/** AuthenticateRequest: name = 1, password = 2. */
export function encodeAuthenticateRequest(name: string, password: string): Uint8Array {
  const w = protobuf.Writer.create().uint32(tag(1, LENGTH_DELIMITED)).string(name);
  return w.uint32(tag(2, LENGTH_DELIMITED)).string(password).finish();
}

// ---- responses -----------------------------------------------------------------------------

/** An int64 as an exact number: revisions and counts stay far below 2^53, and anything else is refused. */
function readInt64(r: Reader): number {
  const v = r.int64() as unknown as number | { toNumber(): number };
  const n = typeof v === "number" ? v : v.toNumber();
  if (!Number.isSafeInteger(n)) throw new EtcdRequestError(`etcd answered an inexact int64 (${n})`, 13);
  return n;
}

/** Reads the fields of the message that starts here (its length first), one callback per field. */
function readMessage(r: Reader, end: number, field: (fieldNumber: number, wireType: number) => boolean): void {
  while (r.pos < end) {
    const t = r.uint32();
    if (!field(t >>> 3, t & 7)) r.skipType(t & 7);
  }
}

const endOfNested = (r: Reader): number => r.uint32() + r.pos;

/** ResponseHeader: revision = 3. */
function readHeaderRevision(r: Reader): number {
  let revision = 0;
  readMessage(r, endOfNested(r), (f, wt) => {
    if (f !== 3 || wt !== VARINT) return false;
    revision = readInt64(r);
    return true;
  });
  return revision;
}

/** mvccpb.KeyValue: key = 1, create_revision = 2, mod_revision = 3, value = 5. Values are copied out of the message. */
function readKeyValue(r: Reader): KeyValue {
  let key = "";
  let value: Buffer = Buffer.alloc(0);
  let createRevision = 0;
  let modRevision = 0;
  readMessage(r, endOfNested(r), (f, wt) => {
    if (f === 1 && wt === LENGTH_DELIMITED) key = (r.bytes() as Buffer).toString();
    else if (f === 5 && wt === LENGTH_DELIMITED) value = Buffer.from(r.bytes());
    else if (f === 2 && wt === VARINT) createRevision = readInt64(r);
    else if (f === 3 && wt === VARINT) modRevision = readInt64(r);
    else return false;
    return true;
  });
  return { key, value, createRevision, modRevision };
}

/** RangeResponse: header = 1, kvs = 2, more = 3, count = 4. */
function readRange(r: Reader, end: number): RangeResponse {
  let revision = 0;
  const kvs: KeyValue[] = [];
  let more = false;
  let count = 0;
  readMessage(r, end, (f, wt) => {
    if (f === 1 && wt === LENGTH_DELIMITED) revision = readHeaderRevision(r);
    else if (f === 2 && wt === LENGTH_DELIMITED) kvs.push(readKeyValue(r));
    else if (f === 3 && wt === VARINT) more = r.bool();
    else if (f === 4 && wt === VARINT) count = readInt64(r);
    else return false;
    return true;
  });
  return { revision, kvs, more, count };
}

/** DeleteRangeResponse: header = 1, deleted = 2, prev_kvs = 3. */
function readDelete(r: Reader, end: number): DeleteRangeResponse {
  let revision = 0;
  let deleted = 0;
  const prevKvs: KeyValue[] = [];
  readMessage(r, end, (f, wt) => {
    if (f === 1 && wt === LENGTH_DELIMITED) revision = readHeaderRevision(r);
    else if (f === 2 && wt === VARINT) deleted = readInt64(r);
    else if (f === 3 && wt === LENGTH_DELIMITED) prevKvs.push(readKeyValue(r));
    else return false;
    return true;
  });
  return { revision, deleted, prevKvs };
}

/** ResponseOp: response_range = 1, response_put = 2 (nothing the storage reads), response_delete_range = 3. */
function readResponseOp(r: Reader): ResponseOp {
  let op: ResponseOp = {};
  readMessage(r, endOfNested(r), (f, wt) => {
    if (f === 1 && wt === LENGTH_DELIMITED) op = { range: readRange(r, endOfNested(r)) };
    else if (f === 3 && wt === LENGTH_DELIMITED) op = { deleteRange: readDelete(r, endOfNested(r)) };
    else return false;
    return true;
  });
  return op;
}

export function decodeRangeResponse(message: Uint8Array): RangeResponse {
  const r = protobuf.Reader.create(message);
  return readRange(r, r.len);
}

/** TxnResponse: header = 1, succeeded = 2, responses = 3. */
export function decodeTxnResponse(message: Uint8Array): TxnResponse {
  const r = protobuf.Reader.create(message);
  let revision = 0;
  let succeeded = false;
  const responses: ResponseOp[] = [];
  readMessage(r, r.len, (f, wt) => {
    if (f === 1 && wt === LENGTH_DELIMITED) revision = readHeaderRevision(r);
    else if (f === 2 && wt === VARINT) succeeded = r.bool();
    else if (f === 3 && wt === LENGTH_DELIMITED) responses.push(readResponseOp(r));
    else return false;
    return true;
  });
  return { revision, succeeded, responses };
}

/** AuthenticateResponse: header = 1, token = 2. */
export function decodeAuthenticateResponse(message: Uint8Array): string {
  const r = protobuf.Reader.create(message);
  let token = "";
  readMessage(r, r.len, (f, wt) => {
    if (f !== 2 || wt !== LENGTH_DELIMITED) return false;
    token = r.string();
    return true;
  });
  return token;
}
