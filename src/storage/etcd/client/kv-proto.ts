/**
 * The answers to the storage's Range and Txn calls, decoded field by field with protobufjs's wire
 * reader (their requests are written by kv-request-frames.ts straight into their gRPC frame; every
 * other message goes through the code generated from etcd's .proto files, generated-codec.ts,
 * which kv-codecs-vs-generated.test.ts checks these against). Field numbers are those of etcd's
 * `etcdserverpb/rpc.proto` and `mvccpb/kv.proto` (stable since etcd 3.0).
 *
 * Why by hand rather than from the .proto files with a reflection decoder: only the fields the
 * storage uses are read (revisions become numbers, keys strings, values Buffers) and nothing is
 * filled with defaults, which is what made each call through the `etcd3` client cost the server
 * several times more CPU. Unknown fields are skipped, as protobuf requires.
 */
import protobuf from "protobufjs/minimal.js";
import type { KeyValue } from "../../interface.js";
import {
  type DeleteRangeResponse,
  EtcdRequestError,
  type RangeResponse,
  type ResponseOp,
  type TxnResponse,
} from "./kv-calls.js";
import {
  BYTES,
  emptyKv,
  fieldEnd,
  headerRevision,
  int64,
  type KvFields,
  readKv,
  toKeyValues,
  VARINT,
} from "./proto-wire.js";

type Reader = protobuf.Reader;

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

/** A mvccpb.KeyValue's fields, as offsets into the message (copied out by copyValues). */
function readKeyValue(r: Reader): KvFields {
  const fields = emptyKv();
  readKv(r, fieldEnd(r), fields);
  exact(fields.createRevision);
  exact(fields.modRevision);
  return fields;
}

/** The KeyValues read, their values copied out of the message (toKeyValues). */
function copyValues(r: Reader, fields: readonly KvFields[]): KeyValue[] {
  return fields.length === 0 ? [] : toKeyValues(r.buf as Buffer, fields); // the reader reads the Buffer given to decode*()
}

/** RangeResponse: header = 1, kvs = 2, more = 3, count = 4. */
function readRange(r: Reader, end: number): RangeResponse {
  let revision = 0;
  const kvs: KvFields[] = [];
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
  return { revision, kvs: copyValues(r, kvs), more, count };
}

/** DeleteRangeResponse: header = 1, deleted = 2, prev_kvs = 3. */
function readDelete(r: Reader, end: number): DeleteRangeResponse {
  let revision = 0;
  let deleted = 0;
  const prevKvs: KvFields[] = [];
  readMessage(r, end, (f, wt) => {
    if (f === 1 && wt === BYTES) revision = readHeaderRevision(r);
    else if (f === 2 && wt === VARINT) deleted = readInt64(r);
    else if (f === 3 && wt === BYTES) prevKvs.push(readKeyValue(r));
    else return false;
    return true;
  });
  return { revision, deleted, prevKvs: copyValues(r, prevKvs) };
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
