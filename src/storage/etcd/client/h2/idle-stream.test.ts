import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { waitFor } from "../../../../testing/wait-for.js";
import { H2Connection } from "./connection.js";
import { ErrorCode, Flag, FrameType, frameOf } from "./frames.js";
import { RequestHeaderBlocks } from "./hpack-request.js";
import { rawPeer, TRAILERS_ONLY } from "./raw-h2-peer.js";
import type { StreamEnd } from "./stream.js";

/** Waits until `check` holds (the shared waitFor: a hang guard, not a timing assertion). */
async function until(check: () => boolean): Promise<void> {
  await waitFor(
    String(check),
    async () => check(),
    (ok) => ok,
  );
}

/** One call on a fresh connection to `port`: how it ended. */
function call(port: number) {
  const conn = new H2Connection(
    { host: "127.0.0.1", port, tls: false, streamWindow: 1 << 20, connectionWindow: 1 << 20 },
    { onConnect() {}, onGoaway() {}, onClose() {} },
  );
  const blocks = new RequestHeaderBlocks({ scheme: "http", authority: `127.0.0.1:${port}` });
  const ended = new Promise<StreamEnd>((resolve) => {
    conn
      .request(blocks.block("/raw", undefined), { onHeaders() {}, onData() {}, onClose: resolve })
      .write(Buffer.from([0, 0, 0, 0, 0]), true);
  });
  return { conn, ended };
}

const windowUpdate = Buffer.from([0, 0, 1, 0]);

describe("frames on a stream the etcd client never opened (RFC 9113 §5.1.1, idle)", () => {
  const cases: [string, (id: number) => Buffer][] = [
    ["DATA on an even stream (the server opens none)", (id) => frameOf(FrameType.DATA, 0, id + 1, Buffer.from("x"))],
    [
      "HEADERS on an odd stream above the last opened",
      (id) => frameOf(FrameType.HEADERS, Flag.END_HEADERS | Flag.END_STREAM, id + 2, TRAILERS_ONLY),
    ],
    [
      "WINDOW_UPDATE on an odd stream above the last opened",
      (id) => frameOf(FrameType.WINDOW_UPDATE, 0, id + 2, windowUpdate),
    ],
    ["RST_STREAM on an even stream", (id) => frameOf(FrameType.RST_STREAM, 0, id + 1, Buffer.from([0, 0, 0, 8]))],
  ];
  for (const [what, frame] of cases) {
    test(`${what} is a connection error PROTOCOL_ERROR: GOAWAY, the open call fails`, async () => {
      // The stream's own answer follows: a client that ignored the frame would end the call normally.
      const peer = await rawPeer((socket, id) => {
        socket.write(frame(id));
        socket.write(frameOf(FrameType.HEADERS, Flag.END_HEADERS | Flag.END_STREAM, id, TRAILERS_ONLY));
      });
      const { conn, ended } = call(peer.port);
      try {
        const end = await ended;
        assert.equal(end.error?.code, "EPROTO", String(end.error?.message));
        assert.match(end.error!.message, /PROTOCOL_ERROR.*never opened/);
        await until(() => peer.received.includes(FrameType.GOAWAY));
        assert.deepEqual(peer.goaways, [ErrorCode.PROTOCOL_ERROR]);
      } finally {
        conn.destroy();
        peer.server.close();
      }
    });
  }

  test("frames on a stream that ended (closed, not idle) are still dropped quietly", async () => {
    const peer = await rawPeer((socket, id) => {
      // The answer ends the stream; late frames for it follow, as a peer may send before it knows.
      socket.write(frameOf(FrameType.HEADERS, Flag.END_HEADERS | Flag.END_STREAM, id, TRAILERS_ONLY));
      socket.write(frameOf(FrameType.DATA, 0, id, Buffer.from("late")));
      socket.write(frameOf(FrameType.WINDOW_UPDATE, 0, id, windowUpdate));
      socket.write(frameOf(FrameType.RST_STREAM, 0, id, Buffer.from([0, 0, 0, 8])));
    });
    const { conn, ended } = call(peer.port);
    try {
      assert.deepEqual(await ended, {});
      // A second call on the same connection still works: the late frames broke nothing.
      const blocks = new RequestHeaderBlocks({ scheme: "http", authority: `127.0.0.1:${peer.port}` });
      const second = await new Promise<StreamEnd>((resolve) => {
        conn
          .request(blocks.block("/raw", undefined), { onHeaders() {}, onData() {}, onClose: resolve })
          .write(Buffer.from([0, 0, 0, 0, 0]), true);
      });
      assert.deepEqual(second, {});
      assert.deepEqual(peer.goaways, []);
    } finally {
      conn.destroy();
      peer.server.close();
    }
  });
});
