/**
 * The watch stream's own WatchResponse decoder, on messages encoded by protobufjs from the
 * rpc.proto and kv.proto (etcd's own definitions, proto/), and its create request
 * decoded by them.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Event, encodeAs, WatchRequest, WatchResponse } from "../../../testing/etcd-rpc-proto.js";
import { newKeyValue, type WatchEvent } from "../../interface.js";
import { encodeWatchCreate, WatchResponseDecoder } from "./watch-response.js";

const header = (revision: number) => ({
  cluster_id: "14841639068965178418",
  member_id: "10276657743932975437",
  revision,
  raft_term: 2,
});
const kv = (key: string, value: string, create: number, mod: number, version = 1) => ({
  key: Buffer.from(key),
  value: Buffer.from(value),
  create_revision: create,
  mod_revision: mod,
  version,
  lease: 0,
});
const keyValue = (key: string, value: string, createRevision: number, modRevision: number) =>
  newKeyValue(key, Buffer.from(value), createRevision, modRevision);

describe("etcd WatchResponse decoder", () => {
  test("puts: a creation without prev_kv, an update with it; the header's revision", () => {
    const message = encodeAs(WatchResponse, {
      header: header(12),
      watch_id: 0,
      events: [
        { type: "PUT", kv: kv("/r/a", "v1", 11, 11) },
        { type: "PUT", kv: kv("/r/a", "v2", 11, 12, 2), prev_kv: kv("/r/a", "v1", 11, 11) },
      ],
    });
    const res = new WatchResponseDecoder(Buffer.from("")).decode(message);
    const expected: WatchEvent[] = [
      { type: "put", kv: keyValue("/r/a", "v1", 11, 11), revision: 11 },
      { type: "put", kv: keyValue("/r/a", "v2", 11, 12), prevKv: keyValue("/r/a", "v1", 11, 11), revision: 12 },
    ];
    assert.deepEqual(res.events, expected);
    assert.equal(res.revision, 12);
    assert.equal(res.eventCount, 2);
    assert.equal(res.lastEventRevision, 12);
    assert.equal(res.created, false);
    assert.equal(res.canceled, false);
    assert.equal(res.compactRevision, 0);
    assert.ok(!("prevKv" in res.events[0]!), "a creation has no prevKv property");
  });

  test("a delete is the last value at the deletion's revision; without prev_kv it is left out but counted", () => {
    const message = encodeAs(WatchResponse, {
      header: header(21),
      events: [
        { type: "DELETE", kv: { key: Buffer.from("/r/a"), mod_revision: 20 }, prev_kv: kv("/r/a", "last", 5, 19, 3) },
        { type: "DELETE", kv: { key: Buffer.from("/r/b"), mod_revision: 21 } },
      ],
    });
    const res = new WatchResponseDecoder(Buffer.from("/r/")).decode(message);
    const prev = keyValue("/r/a", "last", 5, 19);
    assert.deepEqual(res.events, [{ type: "delete", kv: { ...prev, modRevision: 20 }, prevKv: prev, revision: 20 }]);
    assert.equal(res.eventCount, 2);
    assert.equal(res.lastEventRevision, 21);
  });

  test("keys outside the prefix are not built, but count and move the last event's revision", () => {
    const message = encodeAs(WatchResponse, {
      header: header(33),
      events: [
        { type: "PUT", kv: kv("/s/x", "1", 30, 30) },
        { type: "PUT", kv: kv("/r", "short", 31, 31) }, // shorter than the prefix
        { type: "PUT", kv: kv("/r/b", "2", 32, 32) },
        { type: "DELETE", kv: { key: Buffer.from("/q/y"), mod_revision: 33 }, prev_kv: kv("/q/y", "3", 1, 2) },
      ],
    });
    const res = new WatchResponseDecoder(Buffer.from("/r/")).decode(message);
    assert.deepEqual(res.events, [{ type: "put", kv: keyValue("/r/b", "2", 32, 32), revision: 32 }]);
    assert.equal(res.eventCount, 4);
    assert.equal(res.lastEventRevision, 33);
  });

  test("a progress notification: a header and no events", () => {
    const res = new WatchResponseDecoder(Buffer.from("")).decode(encodeAs(WatchResponse, { header: header(40) }));
    assert.equal(res.eventCount, 0);
    assert.equal(res.lastEventRevision, 0);
    assert.deepEqual(res.events, []);
    assert.equal(res.revision, 40);
  });

  test("creation, compaction and cancellation", () => {
    const decoder = new WatchResponseDecoder(Buffer.from(""));
    const created = decoder.decode(encodeAs(WatchResponse, { header: header(50), watch_id: 7, created: true }));
    assert.equal(created.created, true);
    assert.equal(created.watchId, 7);
    const compacted = decoder.decode(
      encodeAs(WatchResponse, { header: header(50), watch_id: 7, canceled: true, compact_revision: 45 }),
    );
    assert.equal(compacted.compactRevision, 45);
    assert.equal(compacted.canceled, true);
    const canceled = decoder.decode(
      encodeAs(WatchResponse, { header: header(51), canceled: true, cancel_reason: "etcdserver: permission denied" }),
    );
    assert.equal(canceled.canceled, true);
    assert.equal(canceled.cancelReason, "etcdserver: permission denied");
    assert.equal(canceled.compactRevision, 0);
  });

  test("revisions past 2^28 and 2^32; UTF-8 keys; an empty value", () => {
    const big = 2 ** 40 + 3;
    const message = encodeAs(WatchResponse, {
      header: header(big),
      events: [
        { type: "PUT", kv: kv("/r/é", "x", 2 ** 28 + 1, 2 ** 32 + 5) },
        { type: "PUT", kv: { key: Buffer.from("/r/empty"), create_revision: big, mod_revision: big } },
      ],
    });
    const res = new WatchResponseDecoder(Buffer.from("/r/")).decode(message);
    assert.deepEqual(res.events, [
      { type: "put", kv: keyValue("/r/é", "x", 2 ** 28 + 1, 2 ** 32 + 5), revision: 2 ** 32 + 5 },
      { type: "put", kv: keyValue("/r/empty", "", big, big), revision: big },
    ]);
    assert.equal(res.revision, big);
  });

  test("fields in any order (a message may be sent in pieces, which protobuf merges)", () => {
    // An Event whose prev_kv comes before its kv and its type after both: two encoded parts.
    const event = Buffer.concat([
      encodeAs(Event, { prev_kv: kv("/r/a", "old", 3, 4) }),
      encodeAs(Event, { kv: { key: Buffer.from("/r/a"), mod_revision: 9 } }),
      encodeAs(Event, { type: "DELETE" }),
    ]);
    // The events field (11, length-delimited) before the header (1).
    const message = Buffer.concat([
      Buffer.from([(11 << 3) | 2, event.length]),
      event,
      encodeAs(WatchResponse, { header: header(9) }),
    ]);
    const res = new WatchResponseDecoder(Buffer.from("/r/")).decode(message);
    const prev = keyValue("/r/a", "old", 3, 4);
    assert.deepEqual(res.events, [{ type: "delete", kv: { ...prev, modRevision: 9 }, prevKv: prev, revision: 9 }]);
    assert.equal(res.revision, 9);
  });

  test("values are copies: the gRPC message's buffer is not kept", () => {
    const message = encodeAs(WatchResponse, {
      header: header(3),
      events: [{ type: "PUT", kv: kv("/k", "abc", 3, 3) }],
    });
    const res = new WatchResponseDecoder(Buffer.from("")).decode(message);
    message.fill(0);
    assert.equal(res.events[0]!.kv.value.toString(), "abc");
    assert.equal(res.events[0]!.kv.key, "/k");
  });

  test("a part of a fragmented response says so; the last part (and any unsplit response) does not", () => {
    const part = (fragment: boolean) =>
      encodeAs(WatchResponse, { header: header(7), fragment, events: [{ type: "PUT", kv: kv("/k", "v", 7, 7) }] });
    const decoder = new WatchResponseDecoder(Buffer.from(""));
    assert.equal(decoder.decode(part(true)).fragment, true);
    assert.equal(decoder.decode(part(false)).fragment, false);
  });

  test("a value and its previous value are each in a buffer of exactly their size (no shared pool slab kept alive)", () => {
    const message = encodeAs(WatchResponse, {
      header: header(5),
      events: [{ type: "PUT", kv: kv("/k", "new value", 3, 5, 2), prev_kv: kv("/k", "old", 3, 3) }],
    });
    const event = new WatchResponseDecoder(Buffer.from("")).decode(message).events[0]!;
    // A pooled copy (Buffer.from) sits in an 8 KiB slab that every cached value would keep alive.
    assert.equal(event.kv.value.buffer.byteLength, "new value".length);
    assert.equal(event.prevKv!.value.buffer.byteLength, "old".length);
    assert.notEqual(event.kv.value.buffer, event.prevKv!.value.buffer, "the cached value does not keep the old one");
  });

  test("the create request is a WatchRequest etcd's definitions read back", () => {
    const bytes = encodeWatchCreate({
      key: Buffer.from([0]),
      rangeEnd: Buffer.from([0]),
      startRevision: 2 ** 33 + 1,
      prevKv: true,
      progressNotify: true,
      fragment: true,
    });
    const decoded = WatchRequest.toObject(WatchRequest.decode(bytes), { longs: Number, defaults: false });
    assert.deepEqual(decoded, {
      create_request: {
        key: Buffer.from([0]),
        range_end: Buffer.from([0]),
        start_revision: 2 ** 33 + 1,
        progress_notify: true,
        prev_kv: true,
        fragment: true,
      },
    });
    const plain = WatchRequest.toObject(
      WatchRequest.decode(
        encodeWatchCreate({
          key: Buffer.from("/a/"),
          rangeEnd: Buffer.from("/a0"),
          startRevision: 0,
          prevKv: false,
          progressNotify: false,
          fragment: false,
        }),
      ),
      { longs: Number, defaults: false },
    );
    assert.deepEqual(plain, { create_request: { key: Buffer.from("/a/"), range_end: Buffer.from("/a0") } });
  });
});
