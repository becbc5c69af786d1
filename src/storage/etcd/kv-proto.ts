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
import { BYTES, emptyKv, fieldEnd, headerRevision, int64, readKv, tag, toKeyValue, VARINT } from "./proto-wire.js";

type Reader = protobuf.Reader;
type Writer = protobuf.Writer;

// Numeric values of etcd's enums.
const TARGET = { CREATE: 1, MOD: 2 } as const;
const RESULT = { EQUAL: 0, GREATER: 1, LESS: 2, NOT_EQUAL: 3 } as const;

const bytesOf = (b: Bytes): Uint8Array => (typeof b === "string" ? Buffer.from(b) : b);

// ---- requests ------------------------------------------------------------------------------

function writeRange(w: Writer, r: RangeRequest): void {
  w.uint32(tag(1, BYTES)).bytes(bytesOf(r.key));
  if (r.range_end !== undefined) w.uint32(tag(2, BYTES)).bytes(bytesOf(r.range_end));
  if (r.limit) w.uint32(tag(3, VARINT)).int64(r.limit);
  if (r.revision) w.uint32(tag(4, VARINT)).int64(r.revision);
  if (r.count_only) w.uint32(tag(9, VARINT)).bool(true);
}

function writeDelete(w: Writer, d: DeleteRangeRequest): void {
  w.uint32(tag(1, BYTES)).bytes(bytesOf(d.key));
  if (d.range_end !== undefined) w.uint32(tag(2, BYTES)).bytes(bytesOf(d.range_end));
  if (d.prev_kv) w.uint32(tag(3, VARINT)).bool(true);
}

/** RequestOp: request_range = 1, request_put = 2, request_delete_range = 3. */
function writeOp(w: Writer, field: number, op: RequestOp): void {
  w.uint32(tag(field, BYTES)).fork();
  if ("range" in op) {
    w.uint32(tag(1, BYTES)).fork();
    writeRange(w, op.range);
  } else if ("put" in op) {
    w.uint32(tag(2, BYTES)).fork();
    w.uint32(tag(1, BYTES)).bytes(bytesOf(op.put.key));
    w.uint32(tag(2, BYTES)).bytes(bytesOf(op.put.value));
  } else {
    w.uint32(tag(3, BYTES)).fork();
    writeDelete(w, op.deleteRange);
  }
  w.ldelim().ldelim();
}

/** Compare: result = 1, target = 2, key = 3, create_revision = 5, mod_revision = 6 (a oneof: always written). */
function writeCompare(w: Writer, c: Compare): void {
  w.uint32(tag(1, BYTES)).fork();
  if (RESULT[c.result] !== 0) w.uint32(tag(1, VARINT)).int32(RESULT[c.result]);
  w.uint32(tag(2, VARINT)).int32(TARGET[c.target]);
  w.uint32(tag(3, BYTES)).bytes(bytesOf(c.key));
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
  const w = protobuf.Writer.create().uint32(tag(1, BYTES)).string(name);
  return w.uint32(tag(2, BYTES)).string(password).finish();
}

// ---- responses -----------------------------------------------------------------------------

/** An int64 that must be exact: revisions and counts stay far below 2^53, and anything else is refused. */
function exact(n: number): number {
  if (!Number.isSafeInteger(n)) throw new EtcdRequestError(`etcd answered an inexact int64 (${n})`, 13);
  return n;
}

const readInt64 = (r: Reader): number => exact(int64(r));

/** Reads the fields of the message that starts here (its length first), one callback per field. */
function readMessage(r: Reader, end: number, field: (fieldNumber: number, wireType: number) => boolean): void {
  while (r.pos < end) {
    const t = r.uint32();
    if (!field(t >>> 3, t & 7)) r.skipType(t & 7);
  }
}

const readHeaderRevision = (r: Reader): number => exact(headerRevision(r, fieldEnd(r)));

/** A mvccpb.KeyValue, its value copied out of the message. */
function readKeyValue(r: Reader): KeyValue {
  const fields = emptyKv();
  readKv(r, fieldEnd(r), fields);
  exact(fields.createRevision);
  exact(fields.modRevision);
  return toKeyValue(r.buf as Buffer, fields); // the reader reads the Buffer given to decode*();
}

/** RangeResponse: header = 1, kvs = 2, more = 3, count = 4. */
function readRange(r: Reader, end: number): RangeResponse {
  let revision = 0;
  const kvs: KeyValue[] = [];
  let more = false;
  let count = 0;
  readMessage(r, end, (f, wt) => {
    if (f === 1 && wt === BYTES) revision = readHeaderRevision(r);
    else if (f === 2 && wt === BYTES) kvs.push(readKeyValue(r));
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
    if (f === 1 && wt === BYTES) revision = readHeaderRevision(r);
    else if (f === 2 && wt === VARINT) deleted = readInt64(r);
    else if (f === 3 && wt === BYTES) prevKvs.push(readKeyValue(r));
    else return false;
    return true;
  });
  return { revision, deleted, prevKvs };
}

/** ResponseOp: response_range = 1, response_put = 2 (nothing the storage reads), response_delete_range = 3. */
function readResponseOp(r: Reader): ResponseOp {
  let op: ResponseOp = {};
  readMessage(r, fieldEnd(r), (f, wt) => {
    if (f === 1 && wt === BYTES) op = { range: readRange(r, fieldEnd(r)) };
    else if (f === 3 && wt === BYTES) op = { deleteRange: readDelete(r, fieldEnd(r)) };
    else return false;
    return true;
  });
  return op;
}

export function decodeRangeResponse(message: Buffer): RangeResponse {
  const r = protobuf.Reader.create(message);
  return readRange(r, r.len);
}

/** TxnResponse: header = 1, succeeded = 2, responses = 3. */
export function decodeTxnResponse(message: Buffer): TxnResponse {
  const r = protobuf.Reader.create(message);
  let revision = 0;
  let succeeded = false;
  const responses: ResponseOp[] = [];
  readMessage(r, r.len, (f, wt) => {
    if (f === 1 && wt === BYTES) revision = readHeaderRevision(r);
    else if (f === 2 && wt === VARINT) succeeded = r.bool();
    else if (f === 3 && wt === BYTES) responses.push(readResponseOp(r));
    else return false;
    return true;
  });
  return { revision, succeeded, responses };
}

/** AuthenticateResponse: header = 1, token = 2. */
export function decodeAuthenticateResponse(message: Buffer): string {
  const r = protobuf.Reader.create(message);
  let token = "";
  readMessage(r, r.len, (f, wt) => {
    if (f !== 2 || wt !== BYTES) return false;
    token = r.string();
    return true;
  });
  return token;
}
