/**
 * The largest message the etcd client takes (grpc-unary.ts DEFAULT_MAX_RECEIVE_MESSAGE_BYTES):
 * a larger one is refused as soon as its gRPC length prefix is read, before it is buffered, with
 * RESOURCE_EXHAUSTED and RST_STREAM CANCEL; and watch messages of many DATA frames are joined once.
 * (The storage's side of the limit: ../watch-stream-message-limit.test.ts.)
 */
import assert from "node:assert/strict";
import { afterEach, describe, mock, test } from "node:test";
import { waitFor } from "../../../testing/wait-for.js";
import { CallDeadlines } from "./call-deadlines.js";
import { EtcdClient } from "./etcd-client.js";
import { type BidiHandlers, GrpcBidiStream } from "./grpc-bidi.js";
import { CODE_RESOURCE_EXHAUSTED, frame, MessageTooLargeError, unaryCall } from "./grpc-unary.js";
import type { H2Connection } from "./h2/connection.js";
import { ErrorCode, Flag, FrameType, frameOf } from "./h2/frames.js";
import { RequestHeaderBlocks } from "./h2/hpack-request.js";
import { rawPeer, TRAILERS_ONLY } from "./h2/raw-h2-peer.js";
import type { H2Stream, StreamHandlers } from "./h2/stream.js";
import type { EtcdRequestError } from "./kv-calls.js";

const LIMIT = 1024;
/** `:status: 200` (static table index 8). */
const STATUS_200 = Buffer.from([0x88]);

/** A gRPC message prefix claiming `length` bytes, and `body` (possibly less than claimed). */
const prefixed = (length: number, body = Buffer.alloc(0)) => {
  const head = Buffer.alloc(5);
  head.writeUInt32BE(length, 1);
  return Buffer.concat([head, body]);
};

/** A peer answering every stream with headers and `data`, then (if `end`) trailers; it records RST_STREAM codes. */
async function peerSending(data: Buffer, end: boolean) {
  const resets: number[] = [];
  const peer = await rawPeer(
    (socket, id) => {
      socket.write(frameOf(FrameType.HEADERS, Flag.END_HEADERS, id, STATUS_200));
      socket.write(frameOf(FrameType.DATA, 0, id, data));
      if (end) socket.write(frameOf(FrameType.HEADERS, Flag.END_HEADERS | Flag.END_STREAM, id, TRAILERS_ONLY));
    },
    {
      onFrame: (_socket, type, _id, payload) => {
        if (type === FrameType.RST_STREAM) resets.push(payload.readUInt32BE(0));
      },
    },
  );
  return { peer, resets };
}

/** Waits until `check` holds (the shared waitFor: a hang guard, not a timing assertion). */
async function until(check: () => boolean): Promise<void> {
  await waitFor(
    String(check),
    async () => check(),
    (ok) => ok,
  );
}

describe("the etcd client's largest message", () => {
  for (const [what, length, ok] of [
    ["a message of exactly the limit is taken", LIMIT, true],
    ["a message one byte over the limit is refused by its length prefix alone", LIMIT + 1, false],
    ["a length prefix of 4 GiB is refused before anything is buffered", 2 ** 32 - 1, false],
  ] as const) {
    test(`unary call: ${what}`, async () => {
      // Only the prefix and 10 bytes are sent: a refusal cannot have waited for the message.
      const body = ok ? Buffer.alloc(length, 7) : Buffer.alloc(10);
      const { peer, resets } = await peerSending(prefixed(length, body), ok);
      const kv = new EtcdClient({ endpoints: [`127.0.0.1:${peer.port}`], maxReceiveMessageBytes: LIMIT });
      // Reach the connection the way etcd-client.ts does, with a raw call (the peer's answer is no RangeResponse).
      const session = (kv as unknown as { session(i: number): { h2: H2Connection } }).session(0);
      const blocks = new RequestHeaderBlocks({ scheme: "http", authority: `127.0.0.1:${peer.port}` });
      try {
        const outcome = await unaryCall({
          connection: session.h2,
          headerBlock: blocks.block("/etcdserverpb.KV/Range", undefined),
          frame: frame(Buffer.alloc(0)),
          deadlines: new CallDeadlines(5_000),
          maxMessageBytes: LIMIT,
        });
        if (ok) {
          assert.ok("ok" in outcome, JSON.stringify(outcome));
          assert.equal(outcome.ok.length, LIMIT);
        } else {
          assert.ok("err" in outcome);
          assert.equal(outcome.err.code, CODE_RESOURCE_EXHAUSTED);
          assert.equal(outcome.err.message, new MessageTooLargeError(length, LIMIT).message);
          assert.match(outcome.err.message, new RegExp(`${length} bytes, over the limit of ${LIMIT}`));
          await until(() => resets.length > 0);
          assert.deepEqual(resets, [ErrorCode.CANCEL], "the stream is reset with CANCEL");
        }
      } finally {
        await kv.close();
        peer.server.close();
      }
    });
  }

  test("watch stream: a message over the limit ends it with RESOURCE_EXHAUSTED and RST_STREAM CANCEL", async () => {
    const { peer, resets } = await peerSending(prefixed(2 ** 32 - 1, Buffer.alloc(10)), false);
    const kv = new EtcdClient({ endpoints: [`127.0.0.1:${peer.port}`], maxReceiveMessageBytes: LIMIT });
    const ended: EtcdRequestError[] = [];
    const messages: Buffer[] = [];
    try {
      const stream = await kv.openStream("/etcdserverpb.Watch/Watch", {
        onMessage: (m) => messages.push(m),
        onEnd: (err) => ended.push(err),
      });
      stream.write(Buffer.alloc(0));
      await until(() => ended.length > 0 && resets.length > 0);
      assert.deepEqual(
        ended.map((e) => e.code),
        [CODE_RESOURCE_EXHAUSTED],
      );
      assert.match(ended[0]!.message, /4294967295 bytes, over the limit of 1024/);
      assert.deepEqual(resets, [ErrorCode.CANCEL]);
      assert.equal(messages.length, 0);
    } finally {
      await kv.close();
      peer.server.close();
    }
  });
});

/** A stand-in connection: the bidi stream's chunks are fed by the test. */
function bidiOnItsOwn(handlers: BidiHandlers, maxMessageBytes?: number) {
  const resets: number[] = [];
  const connection = {
    request: (_block: Buffer, h: StreamHandlers) =>
      ({
        write() {},
        reset(code: number) {
          resets.push(code);
          h.onClose({ rstCode: code });
        },
      }) as unknown as H2Stream,
  } as unknown as H2Connection;
  return { stream: new GrpcBidiStream(connection, Buffer.alloc(0), handlers, () => {}, maxMessageBytes), resets };
}

describe("watch messages spread over many DATA frames", () => {
  afterEach(() => mock.restoreAll());

  test("a message of 6 MiB in 16 KiB frames, between two small ones, is joined once: bytes copied grow linearly", () => {
    const big = Buffer.alloc(6 << 20);
    for (let i = 0; i < big.length; i += 4096) big.writeUInt32BE(i, i);
    const wire = Buffer.concat([frame(Buffer.from("first")), frame(big), frame(Buffer.from("last"))]);
    const received: Buffer[] = [];
    const { stream } = bidiOnItsOwn({ onMessage: (m) => received.push(Buffer.from(m)), onEnd: assert.fail });
    let copied = 0;
    const concat = Buffer.concat;
    mock.method(Buffer, "concat", (list: readonly Uint8Array[], total?: number) => {
      const out = concat(list, total);
      copied += out.length;
      return out;
    });
    // 16 KiB frames, shifted by 3 bytes so that prefixes straddle frames too.
    stream.onData(wire.subarray(0, 3));
    for (let at = 3; at < wire.length; at += 16_384) stream.onData(wire.subarray(at, at + 16_384));
    mock.restoreAll();
    assert.deepEqual(
      received.map((m) => m.length),
      [5, big.length, 4],
    );
    assert.ok(received[1]!.equals(big), "the large message arrives intact");
    assert.equal(received[2]!.toString(), "last");
    // Joining at every frame would copy ~384 × 3 MiB ≈ 1.2 GB; once per message, about the
    // stream's bytes (plus the frame a message shares with its neighbour, joined with each).
    assert.ok(copied <= wire.length + 2 * 16_384, `copied ${copied} bytes for a ${wire.length}-byte stream`);
  });

  test("over the limit, a prefix split across frames still refuses the message before it is buffered", () => {
    const ended: EtcdRequestError[] = [];
    const { stream, resets } = bidiOnItsOwn(
      { onMessage: () => assert.fail("no message"), onEnd: (e) => ended.push(e) },
      LIMIT,
    );
    const head = prefixed(LIMIT + 1);
    stream.onData(head.subarray(0, 2));
    stream.onData(head.subarray(2));
    assert.deepEqual(
      ended.map((e) => e.code),
      [CODE_RESOURCE_EXHAUSTED],
    );
    assert.deepEqual(resets, [ErrorCode.CANCEL]);
    stream.onData(Buffer.alloc(100)); // the rest that was in flight is dropped
    assert.equal(ended.length, 1);
  });
});
