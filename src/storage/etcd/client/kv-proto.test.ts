import assert from "node:assert/strict";
import { describe, test } from "node:test";
import protobuf from "protobufjs";
import { loadEtcdProto } from "../../../testing/etcd-rpc-proto.js";
import { newKeyValue } from "../../interface.js";
import { EtcdRequestError, type RangeRequest, type TxnRequest } from "./kv-calls.js";
import { decodeRangeResponse, decodeTxnResponse } from "./kv-proto.js";
import { rangeRequestFrame, txnRequestFrame } from "./kv-request-frames.js";

// The messages alone: the storage writes Range and Txn inside their 5-byte gRPC frame.
const encodeRangeRequest = (r: RangeRequest) => rangeRequestFrame(r).subarray(5);
const encodeTxnRequest = (t: TxnRequest) => txnRequestFrame(t).subarray(5);

// etcd's own .proto files (proto/, by reflection): the reference both directions are checked against.
const root = loadEtcdProto({ keepCase: false });
const type = (name: string): protobuf.Type => root.lookupType(`etcdserverpb.${name}`);
const asObject = (name: string, bytes: Uint8Array): Record<string, unknown> =>
  type(name).toObject(type(name).decode(bytes), { longs: Number, bytes: String, enums: String, defaults: false });
const encode = (name: string, value: object): Buffer =>
  Buffer.from(type(name).encode(type(name).fromObject(value)).finish());
const b64 = (s: string): string => Buffer.from(s).toString("base64");

describe("etcd's protobuf messages, against etcd's .proto files", () => {
  test("a create transaction encodes as etcd reads it", () => {
    const bytes = encodeTxnRequest({
      compare: [{ key: "/k", target: "CREATE", result: "EQUAL", revision: 0 }],
      success: [{ put: { key: "/k", value: Buffer.from("v") } }],
      failure: [{ range: { key: "/k" } }],
    });
    assert.deepEqual(asObject("TxnRequest", bytes), {
      compare: [{ target: "CREATE", key: b64("/k"), createRevision: 0 }],
      success: [{ requestPut: { key: b64("/k"), value: b64("v") } }],
      failure: [{ requestRange: { key: b64("/k") } }],
    });
  });

  test("an update's compare, a delete with its previous value, and a paged range at a revision", () => {
    const bytes = encodeTxnRequest({
      compare: [{ key: "/k", target: "MOD", result: "EQUAL", revision: 41 }],
      success: [{ deleteRange: { key: "/k", prev_kv: true } }],
      failure: [{ range: { key: "/a", range_end: "/b", limit: 1000, revision: 7, count_only: true } }],
    });
    assert.deepEqual(asObject("TxnRequest", bytes), {
      compare: [{ target: "MOD", key: b64("/k"), modRevision: 41 }],
      success: [{ requestDeleteRange: { key: b64("/k"), prevKv: true } }],
      failure: [{ requestRange: { key: b64("/a"), rangeEnd: b64("/b"), limit: 1000, revision: 7, countOnly: true } }],
    });
    assert.deepEqual(
      asObject("RangeRequest", encodeRangeRequest({ key: Buffer.from([0]), range_end: Buffer.from([0]) })),
      {
        key: "AA==",
        rangeEnd: "AA==",
      },
    );
  });

  test("a transaction's answer decodes to revisions as numbers, keys as strings, values as bytes", () => {
    const kv = { key: b64("/k"), value: b64("v1"), createRevision: 5, modRevision: 9, version: 3 };
    const bytes = encode("TxnResponse", {
      header: { clusterId: 1, memberId: 2, revision: 12, raftTerm: 3 },
      succeeded: false,
      responses: [
        { responseRange: { header: { revision: 12 }, kvs: [kv], more: true, count: 2 } },
        { responseDeleteRange: { header: { revision: 12 }, deleted: 1, prevKvs: [kv] } },
        { responsePut: { header: { revision: 12 } } },
      ],
    });
    const decoded = decodeTxnResponse(bytes);
    const plain = newKeyValue("/k", Buffer.from("v1"), 5, 9);
    assert.deepEqual(decoded, {
      revision: 12,
      succeeded: false,
      responses: [
        { range: { revision: 12, kvs: [plain], more: true, count: 2 } },
        { deleteRange: { revision: 12, deleted: 1, prevKvs: [plain] } },
        {},
      ],
    });
    assert.equal(decodeTxnResponse(encode("TxnResponse", { succeeded: true })).succeeded, true);
  });

  test("a range's values are copied out of the message into one buffer of exactly their size", () => {
    const message = encode("RangeResponse", {
      header: { revision: 9 },
      kvs: [
        { key: b64("/a"), value: b64("first"), createRevision: 2, modRevision: 2 },
        { key: b64("/b"), value: b64("second!"), createRevision: 3, modRevision: 4 },
      ],
      count: 2,
    });
    const range = decodeRangeResponse(message);
    message.fill(0);
    assert.deepEqual(
      range.kvs.map((kv) => [kv.key, kv.value.toString(), kv.createRevision, kv.modRevision]),
      [
        ["/a", "first", 2, 2],
        ["/b", "second!", 3, 4],
      ],
    );
    // Not Node's 8 KiB pool (each cached value would keep a slab alive), not the message.
    const [a, b] = range.kvs;
    assert.equal(a!.value.buffer, b!.value.buffer);
    assert.equal(a!.value.buffer.byteLength, "first".length + "second!".length);
  });

  test("unknown fields are skipped; an int64 beyond 2^53 is refused, not rounded", () => {
    // A range answer with a field etcd may add later (number 99, both wire types) around its kvs.
    const w = protobuf.Writer.create();
    w.uint32((99 << 3) | 0).uint64(7);
    w.uint32((2 << 3) | 2)
      .fork()
      .uint32((1 << 3) | 2)
      .bytes(Buffer.from("/x"))
      .uint32((99 << 3) | 2)
      .string("new")
      .ldelim();
    w.uint32((4 << 3) | 0).int64(1);
    assert.deepEqual(decodeRangeResponse(Buffer.from(w.finish())), {
      revision: 0,
      kvs: [newKeyValue("/x", Buffer.alloc(0), 0, 0)],
      more: false,
      count: 1,
    });
    const huge = encode("RangeResponse", { header: { revision: "9007199254740993" } });
    assert.throws(
      () => decodeRangeResponse(huge),
      (e: unknown) => e instanceof EtcdRequestError && /inexact/.test(e.message),
    );
  });
});
