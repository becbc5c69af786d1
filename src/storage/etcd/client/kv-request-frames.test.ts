import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { loadEtcdProto } from "../../../testing/etcd-rpc-proto.js";
import { rangeRequestFrame, txnRequestFrame } from "./kv-request-frames.js";

// etcd's own .proto files (proto/, by reflection) decode what the frames carry.
const root = loadEtcdProto({ keepCase: false });
const decode = (name: string, frame: Buffer): Record<string, unknown> => {
  assert.equal(frame[0], 0, "not compressed");
  assert.equal(frame.readUInt32BE(1), frame.length - 5, "the frame's length is the message's");
  const type = root.lookupType(`etcdserverpb.${name}`);
  return type.toObject(type.decode(frame.subarray(5)), {
    longs: String,
    bytes: Buffer,
    enums: String,
    defaults: false,
  });
};

describe("Range and Txn requests written into their gRPC frame", () => {
  test("lengths and revisions across every varint width decode as etcd reads them", () => {
    // 2^53 - 1 is the largest revision a number holds exactly: 8 varint bytes.
    const revisions = [
      0,
      1,
      127,
      128,
      16_383,
      16_384,
      2 ** 21,
      2 ** 28 - 1,
      2 ** 28,
      2 ** 31,
      2 ** 32 + 5,
      2 ** 53 - 1,
    ];
    for (const revision of revisions) {
      const value = Buffer.alloc(revision % 20_000, 7);
      const key = `/registry/teams/é-${revision}`;
      const t = decode(
        "TxnRequest",
        txnRequestFrame({
          compare: [
            { key, target: "MOD", result: "EQUAL", revision },
            { key, target: "CREATE", result: "GREATER", revision: 0 },
          ],
          success: [
            { put: { key, value } },
            { deleteRange: { key: Buffer.from(key), range_end: "\0", prev_kv: true } },
          ],
          failure: [{ range: { key, range_end: "/z", limit: revision, revision, count_only: true } }],
        }),
      );
      const keyBytes = Buffer.from(key);
      assert.deepEqual(t, {
        compare: [
          { target: "MOD", key: keyBytes, modRevision: String(revision) },
          { result: "GREATER", target: "CREATE", key: keyBytes, createRevision: "0" },
        ],
        success: [
          { requestPut: { key: keyBytes, value } },
          { requestDeleteRange: { key: keyBytes, rangeEnd: Buffer.from("\0"), prevKv: true } },
        ],
        failure: [
          {
            requestRange: {
              key: keyBytes,
              rangeEnd: Buffer.from("/z"),
              ...(revision ? { limit: String(revision), revision: String(revision) } : {}),
              countOnly: true,
            },
          },
        ],
      });
    }
  });

  test("a range reads back with only the fields given", () => {
    assert.deepEqual(
      decode("RangeRequest", rangeRequestFrame({ key: Buffer.from([0]), range_end: Buffer.from([0]) })),
      {
        key: Buffer.from([0]),
        rangeEnd: Buffer.from([0]),
      },
    );
    assert.deepEqual(decode("RangeRequest", rangeRequestFrame({ key: "/k" })), { key: Buffer.from("/k") });
    assert.deepEqual(decode("RangeRequest", rangeRequestFrame({ key: "/k", limit: 1, keys_only: true })), {
      key: Buffer.from("/k"),
      limit: "1",
      keysOnly: true,
    });
  });

  test("a negative or inexact int64 is refused rather than sent", () => {
    assert.throws(() => rangeRequestFrame({ key: "/k", revision: -1 }), RangeError);
    assert.throws(() => rangeRequestFrame({ key: "/k", limit: 2 ** 53 }), RangeError);
    assert.throws(
      () =>
        txnRequestFrame({
          compare: [{ key: "/k", target: "MOD", result: "EQUAL", revision: 1.5 }],
          success: [],
          failure: [],
        }),
      RangeError,
    );
  });
});
