/**
 * etcd's WatchResponse (rpc.proto, kv.proto of etcd 3.4), decoded straight into the storage's
 * watch events (checked against the generated codec by codecs-vs-generated.test.ts), and the one
 * WatchRequest the watch stream sends (by the generated codec: once per stream).
 *
 * The generic decoder that the `etcd3` package used (@grpc/proto-loader over protobufjs, longs as strings,
 * every default filled in) builds every field of every message, and was a large share of a
 * replica's CPU per watch event in a profile (docs/performance.md, "The etcd client"). This reads only the
 * fields the stream uses, revisions as numbers, and does not decode the keys, values and previous
 * values of events outside the stream's prefix at all (their revision is still read: the
 * stream's progress counts every key).
 *
 * Field numbers:
 *   WatchResponse   header=1 watch_id=2 created=3 canceled=4 compact_revision=5 cancel_reason=6
 *                   fragment=7 events=11
 *   ResponseHeader  cluster_id=1 member_id=2 revision=3 raft_term=4
 *   Event           type=1 (PUT=0, DELETE=1) kv=2 prev_kv=3
 *   KeyValue        key=1 create_revision=2 mod_revision=3 version=4 value=5 lease=6
 *   WatchRequest    create_request=1 (WatchCreateRequest: key=1 range_end=2 start_revision=3
 *                   progress_notify=4 prev_kv=6 fragment=8)
 */
import protobuf from "protobufjs/minimal.js";
import { newKeyValue, type WatchEvent } from "../../interface.js";
import { etcdProto, type etcdserverpb } from "./generated-codec.js";
import {
  BYTES,
  emptyKv,
  fieldEnd,
  headerRevision,
  int64,
  type KvFields,
  readKv,
  tag,
  toKeyValues,
  VARINT,
} from "./proto-wire.js";

const { Reader } = protobuf;
type ProtoReader = protobuf.Reader;

const RESPONSE_HEADER = tag(1, BYTES);
const RESPONSE_WATCH_ID = tag(2, VARINT);
const RESPONSE_CREATED = tag(3, VARINT);
const RESPONSE_CANCELED = tag(4, VARINT);
const RESPONSE_COMPACT_REVISION = tag(5, VARINT);
const RESPONSE_CANCEL_REASON = tag(6, BYTES);
const RESPONSE_FRAGMENT = tag(7, VARINT);
const RESPONSE_EVENT = tag(11, BYTES);
const EVENT_TYPE = tag(1, VARINT);
const EVENT_KV = tag(2, BYTES);
const EVENT_PREV_KV = tag(3, BYTES);
const EVENT_DELETE = 1;

export interface WatchResponse {
  /** header.revision: the store's revision when the response was sent. */
  readonly revision: number;
  readonly watchId: number;
  readonly created: boolean;
  readonly canceled: boolean;
  readonly cancelReason: string;
  /** Set (> 0) when the watch's start revision was compacted: the watch is cancelled. */
  readonly compactRevision: number;
  /**
   * A part of a larger response that etcd split (a watch created with `fragment`): more parts
   * follow, the last one without it. Only the whole response's events end at a revision's end.
   */
  readonly fragment: boolean;
  /**
   * The response's events under the prefix, in order. A delete's kv is the value before it (its
   * prev_kv) at the deletion's revision; a delete without prev_kv is left out (none without a
   * prev_kv watch, or when that value was compacted).
   */
  readonly events: WatchEvent[];
  /** How many events the response carried, under the prefix or not (0: a progress notification). */
  readonly eventCount: number;
  /** The revision of the response's last event, under the prefix or not (0 without events). */
  readonly lastEventRevision: number;
}

/** Decodes the watch responses of one stream; only events whose key starts with `prefix` are built. */
export class WatchResponseDecoder {
  /** Scratch space for the event being read (responses are decoded one at a time). */
  private readonly kv = emptyKv();
  private readonly prevKv = emptyKv();
  private eventRevision = 0;

  constructor(private readonly prefix: Buffer) {}

  decode(buf: Buffer): WatchResponse {
    const r = Reader.create(buf);
    let revision = 0;
    let watchId = 0;
    let created = false;
    let canceled = false;
    let cancelReason = "";
    let compactRevision = 0;
    let fragment = false;
    let eventCount = 0;
    let lastEventRevision = 0;
    const events: WatchEvent[] = [];
    while (r.pos < r.len) {
      const t = r.uint32();
      if (t === RESPONSE_EVENT) {
        const ev = this.event(buf, r, fieldEnd(r));
        eventCount++;
        lastEventRevision = this.eventRevision;
        if (ev) events.push(ev);
      } else if (t === RESPONSE_HEADER) revision = headerRevision(r, fieldEnd(r));
      else if (t === RESPONSE_WATCH_ID) watchId = int64(r);
      else if (t === RESPONSE_CREATED) created = r.bool();
      else if (t === RESPONSE_CANCELED) canceled = r.bool();
      else if (t === RESPONSE_COMPACT_REVISION) compactRevision = int64(r);
      else if (t === RESPONSE_CANCEL_REASON) cancelReason = r.string();
      else if (t === RESPONSE_FRAGMENT) fragment = r.bool();
      else r.skipType(t & 7);
    }
    return {
      revision,
      watchId,
      created,
      canceled,
      cancelReason,
      compactRevision,
      fragment,
      events,
      eventCount,
      lastEventRevision,
    };
  }

  /** The Event in [r.pos, end): sets eventRevision; the storage's event when its key is under the prefix. */
  private event(buf: Buffer, r: ProtoReader, end: number): WatchEvent | undefined {
    let type = 0;
    let kvAt = -1;
    let prevAt = -1;
    // kv and prev_kv are read once the whole event is known: the type may come after them.
    while (r.pos < end) {
      const t = r.uint32();
      if (t === EVENT_TYPE) type = r.uint32();
      else if (t === EVENT_KV || t === EVENT_PREV_KV) {
        const at = r.pos;
        r.pos = fieldEnd(r);
        if (t === EVENT_KV) kvAt = at;
        else prevAt = at;
      } else r.skipType(t & 7);
    }
    const kv = this.kv;
    readKvAt(r, kvAt, kv);
    this.eventRevision = kv.modRevision;
    if (!this.underPrefix(buf, kv)) return undefined;
    const revision = kv.modRevision;
    if (prevAt >= 0) readKvAt(r, prevAt, this.prevKv);
    if (type === EVENT_DELETE) {
      if (prevAt < 0) return undefined;
      const prevKv = toKeyValues(buf, [this.prevKv])[0]!;
      return {
        type: "delete",
        kv: newKeyValue(prevKv.key, prevKv.value, prevKv.createRevision, revision),
        prevKv,
        revision,
      };
    }
    // Each in a buffer of its own: the new value stays cached long after the previous one is gone.
    const put = toKeyValues(buf, [kv])[0]!;
    if (prevAt < 0) return { type: "put", kv: put, revision };
    return { type: "put", kv: put, prevKv: toKeyValues(buf, [this.prevKv])[0]!, revision };
  }

  private underPrefix(buf: Buffer, kv: KvFields): boolean {
    const n = this.prefix.length;
    if (n === 0) return true;
    return kv.keyEnd - kv.keyStart >= n && buf.compare(this.prefix, 0, n, kv.keyStart, kv.keyStart + n) === 0;
  }
}

/** Reads the KeyValue whose length prefix is at `at` (-1: absent, all defaults), then returns to where the reader was. */
function readKvAt(r: ProtoReader, at: number, into: KvFields): void {
  const resume = r.pos;
  r.pos = at < 0 ? resume : at;
  readKv(r, at < 0 ? resume : fieldEnd(r), into);
  r.pos = resume;
}

/** A WatchRequest with a create_request for [key, rangeEnd) from `startRevision` (sent once per stream: the generated codec). */
export function encodeWatchCreate(req: {
  key: Buffer;
  rangeEnd: Buffer;
  startRevision: number;
  prevKv: boolean;
  progressNotify: boolean;
  /** Ask etcd to split a response larger than its own limit into parts (etcd 3.4+; older ones ignore it). */
  fragment: boolean;
}): Buffer {
  // Fields left out rather than false or 0: etcd reads them so, and the message stays as small.
  const create: etcdserverpb.IWatchCreateRequest = { key: req.key, range_end: req.rangeEnd };
  if (req.startRevision > 0) create.start_revision = req.startRevision;
  if (req.progressNotify) create.progress_notify = true;
  if (req.prevKv) create.prev_kv = true;
  if (req.fragment) create.fragment = true;
  return Buffer.from(etcdProto.etcdserverpb.WatchRequest.encode({ create_request: create }).finish());
}
