/**
 * The hand-written hot paths (kv-request-frames.ts, kv-proto.ts, watch-response.ts) against the
 * code generated from etcd's .proto files: what one encodes the other decodes to the same fields.
 * A field number or wire type kept wrong by hand fails here.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { etcdProto, type etcdserverpb } from "./generated-codec.js";
import type { RangeRequest, TxnRequest } from "./kv-calls.js";
import { decodeRangeResponse, decodeTxnResponse } from "./kv-proto.js";
import { rangeRequestFrame, txnRequestFrame } from "./kv-request-frames.js";
import { WatchResponseDecoder } from "./watch-response.js";

const pb = etcdProto.etcdserverpb;
const BIG_REVISION = 2 ** 40 + 3; // past 32 bits: a varint of six bytes

/** A generated message as plain JSON-like data: int64s as numbers, bytes as strings. */
function plain(value: unknown): unknown {
  if (value === null || value === undefined) return value;
  if (value instanceof Uint8Array) return Buffer.from(value).toString("latin1");
  if (typeof value === "object" && "low" in value && "high" in value) return Number(String(value));
  if (Array.isArray(value)) return value.map(plain);
  if (typeof value === "object") {
    // Own fields only: decoded messages carry their defaults on the prototype.
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  }
  return value;
}

const decodeRange = (r: RangeRequest) => plain(pb.RangeRequest.decode(rangeRequestFrame(r).subarray(5)));
const decodeTxn = (t: TxnRequest) => plain(pb.TxnRequest.decode(txnRequestFrame(t).subarray(5)));

describe("hand-written request frames, decoded by the generated codec", () => {
  test("range requests, every field the storage sets", () => {
    assert.deepEqual(decodeRange({ key: "/registry/teams/a" }), { key: "/registry/teams/a" });
    assert.deepEqual(
      decodeRange({
        key: Buffer.from([0]),
        range_end: "/registry/teams0",
        limit: 1000,
        revision: BIG_REVISION,
        keys_only: true,
        count_only: true,
      }),
      {
        key: "\0",
        range_end: "/registry/teams0",
        limit: 1000,
        revision: BIG_REVISION,
        keys_only: true,
        count_only: true,
      },
    );
  });

  test("transactions: compares of both targets and every result, puts, deletes and ranges", () => {
    const value = Buffer.from([0, 1, 2, 255]);
    assert.deepEqual(
      decodeTxn({
        compare: [
          { key: "/c", target: "CREATE", result: "EQUAL", revision: 0 },
          { key: "/m", target: "MOD", result: "EQUAL", revision: BIG_REVISION },
          { key: "/g", target: "CREATE", result: "GREATER", revision: 0 },
          { key: "/l", target: "MOD", result: "LESS", revision: 5 },
          { key: "/n", target: "MOD", result: "NOT_EQUAL", revision: 6 },
        ],
        success: [{ put: { key: "/c", value } }, { deleteRange: { key: "/d", range_end: "/e", prev_kv: true } }],
        failure: [{ range: { key: "/c", limit: 1 } }],
      }),
      {
        compare: [
          { target: 1, key: "/c", create_revision: 0 },
          { target: 2, key: "/m", mod_revision: BIG_REVISION },
          { result: 1, target: 1, key: "/g", create_revision: 0 },
          { result: 2, target: 2, key: "/l", mod_revision: 5 },
          { result: 3, target: 2, key: "/n", mod_revision: 6 },
        ],
        success: [
          { request_put: { key: "/c", value: value.toString("latin1") } },
          { request_delete_range: { key: "/d", range_end: "/e", prev_kv: true } },
        ],
        failure: [{ request_range: { key: "/c", limit: 1 } }],
      },
    );
  });
});

/** A mvccpb.KeyValue with every field set (version and lease: fields the hand decoders skip). */
const kv = (key: string, value: string, create: number, mod: number): object => ({
  key: Buffer.from(key),
  value: Buffer.from(value),
  create_revision: create,
  mod_revision: mod,
  version: 3,
  lease: 7,
});

const header = (revision: number): etcdserverpb.IResponseHeader => ({
  cluster_id: 11,
  member_id: 12,
  revision,
  raft_term: 13,
});

const fields = (k: { key: string; value: Buffer; createRevision: number; modRevision: number }) => [
  k.key,
  k.value.toString(),
  k.createRevision,
  k.modRevision,
];

describe("messages the generated codec encodes, decoded by the hand-written readers", () => {
  test("a range answer", () => {
    const message = pb.RangeResponse.encode({
      header: header(BIG_REVISION),
      kvs: [kv("/a", "1", 2, BIG_REVISION), kv("/b", "", 4, 5)],
      more: true,
      count: 9,
    }).finish();
    const res = decodeRangeResponse(Buffer.from(message));
    assert.equal(res.revision, BIG_REVISION);
    assert.equal(res.more, true);
    assert.equal(res.count, 9);
    assert.deepEqual(res.kvs.map(fields), [
      ["/a", "1", 2, BIG_REVISION],
      ["/b", "", 4, 5],
    ]);
  });

  test("a transaction's answer with a put, a range and a delete with its previous value", () => {
    const message = pb.TxnResponse.encode({
      header: header(20),
      succeeded: true,
      responses: [
        { response_put: { header: header(20) } },
        { response_range: { header: header(20), kvs: [kv("/r", "x", 1, 2)], count: 1 } },
        { response_delete_range: { header: header(20), deleted: 1, prev_kvs: [kv("/d", "old", 3, 4)] } },
      ],
    }).finish();
    const res = decodeTxnResponse(Buffer.from(message));
    assert.equal(res.revision, 20);
    assert.equal(res.succeeded, true);
    assert.equal(res.responses.length, 3);
    assert.deepEqual(res.responses[1]?.range?.kvs.map(fields), [["/r", "x", 1, 2]]);
    assert.equal(res.responses[2]?.deleteRange?.deleted, 1);
    assert.deepEqual(res.responses[2]?.deleteRange?.prevKvs.map(fields), [["/d", "old", 3, 4]]);
  });

  test("a watch response: a put with its previous value, a delete, and an event outside the prefix", () => {
    const message = pb.WatchResponse.encode({
      header: header(BIG_REVISION),
      watch_id: 0,
      fragment: true,
      events: [
        { type: 0, kv: kv("/p/a", "new", 2, 30), prev_kv: kv("/p/a", "old", 2, 20) },
        { type: 1, kv: { key: Buffer.from("/p/b"), mod_revision: 31 }, prev_kv: kv("/p/b", "gone", 5, 6) },
        { type: 0, kv: kv("/q/c", "elsewhere", 32, BIG_REVISION) },
      ],
    }).finish();
    const res = new WatchResponseDecoder(Buffer.from("/p/")).decode(Buffer.from(message));
    assert.equal(res.revision, BIG_REVISION);
    assert.equal(res.fragment, true);
    assert.equal(res.eventCount, 3);
    assert.equal(res.lastEventRevision, BIG_REVISION);
    assert.deepEqual(
      res.events.map((e) => [e.type, e.revision, fields(e.kv), e.prevKv && fields(e.prevKv)]),
      [
        ["put", 30, ["/p/a", "new", 2, 30], ["/p/a", "old", 2, 20]],
        ["delete", 31, ["/p/b", "gone", 5, 31], ["/p/b", "gone", 5, 6]],
      ],
    );
  });

  test("a created and a cancelled watch", () => {
    const created = pb.WatchResponse.encode({ header: header(3), watch_id: 1, created: true }).finish();
    const decoded = new WatchResponseDecoder(Buffer.alloc(0)).decode(Buffer.from(created));
    assert.equal(decoded.created, true);
    assert.equal(decoded.watchId, 1);
    const canceled = pb.WatchResponse.encode({
      header: header(9),
      canceled: true,
      compact_revision: 8,
      cancel_reason: "etcdserver: mvcc: required revision has been compacted",
    }).finish();
    const res = new WatchResponseDecoder(Buffer.alloc(0)).decode(Buffer.from(canceled));
    assert.equal(res.canceled, true);
    assert.equal(res.compactRevision, 8);
    assert.match(res.cancelReason, /compacted/);
  });
});
