import assert from "node:assert/strict";
import type { Socket } from "node:net";
import { describe, test } from "node:test";
import { EtcdClient } from "./etcd-client.js";
import { ErrorCode, Flag, FrameType, frameOf } from "./h2/frames.js";
import { rawPeer, TRAILERS_ONLY } from "./h2/raw-h2-peer.js";
import { EtcdRequestError } from "./kv-calls.js";

/** A RangeResponse with count = 7 (field 4, varint), in its gRPC frame. */
const RANGE_ANSWER = Buffer.from([0, 0, 0, 0, 2, 0x20, 0x07]);

function answerRange(socket: Socket, id: number): void {
  socket.write(frameOf(FrameType.HEADERS, Flag.END_HEADERS, id, Buffer.from([0x88])));
  socket.write(frameOf(FrameType.DATA, 0, id, RANGE_ANSWER));
  socket.write(frameOf(FrameType.HEADERS, Flag.END_HEADERS | Flag.END_STREAM, id, TRAILERS_ONLY.subarray(1)));
}

/** :status 200, then an HPACK dynamic table size update: not allowed after a field (COMPRESSION_ERROR). */
function answerUndecodable(socket: Socket, id: number): void {
  socket.write(frameOf(FrameType.HEADERS, Flag.END_HEADERS | Flag.END_STREAM, id, Buffer.from([0x88, 0x20])));
}

describe("etcd KV calls on a connection the server breaks the protocol on", () => {
  test("the connection is replaced: a read is sent again on a new one, a write fails as Unavailable", async () => {
    // Requests 0 and 2 get an undecodable answer, 1 and 3 a Range answer.
    let requests = 0;
    const peer = await rawPeer((socket, id) => (requests++ % 2 === 0 ? answerUndecodable : answerRange)(socket, id));
    const kv = new EtcdClient({ endpoints: [`127.0.0.1:${peer.port}`] });
    try {
      assert.equal((await kv.range({ key: "/x", count_only: true })).count, 7);
      assert.equal(peer.connections(), 2, "the read went again on a new connection");
      await assert.rejects(
        kv.txn({ compare: [], success: [], failure: [] }),
        (e: unknown) =>
          e instanceof EtcdRequestError &&
          e.code === 14 &&
          /^etcd http:\/\/127\.0\.0\.1:\d+: HTTP\/2 protocol error from the server \(COMPRESSION_ERROR\): .*size update after a header field \(EPROTO\)$/.test(
            e.message,
          ),
      );
      assert.equal(requests, 3, "a write whose answer was lost is not sent again");
      assert.equal((await kv.range({ key: "/x", count_only: true })).count, 7);
      assert.equal(peer.connections(), 3);
      assert.deepEqual(peer.goaways, [ErrorCode.COMPRESSION_ERROR, ErrorCode.COMPRESSION_ERROR]);
    } finally {
      await kv.close();
      peer.server.close();
    }
  });
});
