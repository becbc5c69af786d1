import assert from "node:assert/strict";
import { type AddressInfo, createServer, type Socket } from "node:net";
import { describe, test } from "node:test";
import { H2Connection } from "./connection.js";
import {
  CLIENT_PREFACE,
  ErrorCode,
  Flag,
  FrameReader,
  FrameType,
  frameOf,
  goawayFrame,
  settingsFrame,
} from "./frames.js";
import type { HeaderFields } from "./hpack-decoder.js";
import { RequestHeaderBlocks } from "./hpack-request.js";
import type { StreamEnd } from "./stream.js";

/** `:status: 200` (static index 8) and `grpc-status: 0` as a literal without indexing. */
const TRAILERS_ONLY = Buffer.concat([
  Buffer.from([0x88, 0x00, 11]),
  Buffer.from("grpc-status"),
  Buffer.from([1, 0x30]),
]);

/**
 * A peer written frame by frame, for what node:http2 servers never send: once the client's first
 * HEADERS arrived, `answer(socket, streamId)` writes; the frame types the client sent are kept.
 */
async function rawPeer(answer: (socket: Socket, id: number) => void) {
  const received: number[] = [];
  const server = createServer((socket) => {
    let preface = Buffer.alloc(0);
    const reader = new FrameReader((type, _flags, id) => {
      received.push(type);
      if (type === FrameType.HEADERS) answer(socket, id);
    });
    socket.write(settingsFrame([]));
    socket.on("data", (chunk: Buffer) => {
      if (preface.length < CLIENT_PREFACE.length) {
        preface = Buffer.concat([preface, chunk]);
        if (preface.length < CLIENT_PREFACE.length) return;
        chunk = preface.subarray(CLIENT_PREFACE.length);
      }
      reader.push(chunk);
    });
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port, received };
}

function call(port: number) {
  const conn = new H2Connection(
    { host: "127.0.0.1", port, tls: false, streamWindow: 1 << 20, connectionWindow: 1 << 20 },
    { onConnect() {}, onGoaway() {}, onClose() {} },
  );
  const blocks = new RequestHeaderBlocks({ scheme: "http", authority: `127.0.0.1:${port}` });
  const answer = new Promise<{ fields: HeaderFields[]; end: StreamEnd }>((resolve) => {
    const fields: HeaderFields[] = [];
    conn
      .request(blocks.block("/raw", undefined), {
        onHeaders: (f) => fields.push(f),
        onData() {},
        onClose: (end) => resolve({ fields, end }),
      })
      .write(Buffer.from([0, 0, 0, 0, 0]), true);
  });
  return { conn, answer };
}

describe("the etcd client's HTTP/2 connection, against a peer written frame by frame", () => {
  test("unknown frame types and PRIORITY are ignored; a trailers-only answer ends the stream", async () => {
    const peer = await rawPeer((socket, id) => {
      socket.write(frameOf(0xfa, 0, 0, Buffer.from("extension")));
      socket.write(frameOf(FrameType.PRIORITY, 0, id, Buffer.alloc(5)));
      socket.write(frameOf(FrameType.HEADERS, Flag.END_HEADERS | Flag.END_STREAM, id, TRAILERS_ONLY));
    });
    const { conn, answer } = call(peer.port);
    try {
      assert.deepEqual(await answer, { fields: [{ ":status": "200", "grpc-status": "0" }], end: {} });
    } finally {
      conn.destroy();
      peer.server.close();
    }
  });

  test("a PUSH_PROMISE (push is disabled) is a connection error: the stream fails and the client sends GOAWAY", async () => {
    const peer = await rawPeer((socket, id) => {
      socket.write(frameOf(FrameType.PUSH_PROMISE, Flag.END_HEADERS, id, Buffer.from([0, 0, 0, 2, 0x88])));
    });
    const { conn, answer } = call(peer.port);
    try {
      const { end } = await answer;
      assert.match(end.error?.message ?? "", /protocol error.*PUSH_PROMISE/);
      for (let i = 0; i < 100 && !peer.received.includes(FrameType.GOAWAY); i++) {
        await new Promise((r) => setTimeout(r, 10));
      }
      assert.ok(peer.received.includes(FrameType.GOAWAY), `frames received: ${peer.received}`);
    } finally {
      conn.destroy();
      peer.server.close();
    }
  });

  test("a stream opened while a chunk is read ends, refused by a GOAWAY later in that chunk, before a microtask runs", async () => {
    // The order the etcd watch stream guards against (watch-stream.ts, endedEarly): a stream its
    // opener learns of in a promise callback can end before that callback runs.
    const peer = await rawPeer((socket, id) => {
      if (id !== 1) return;
      // One write, one chunk: the answer's headers, a message, and a GOAWAY accepting stream 1 only.
      const status200 = Buffer.from([0x88]);
      socket.write(
        Buffer.concat([
          frameOf(FrameType.HEADERS, Flag.END_HEADERS, id, status200),
          frameOf(FrameType.DATA, 0, id, Buffer.alloc(5)),
          goawayFrame(id, ErrorCode.NO_ERROR),
        ]),
      );
    });
    const conn = new H2Connection(
      { host: "127.0.0.1", port: peer.port, tls: false, streamWindow: 1 << 20, connectionWindow: 1 << 20 },
      { onConnect() {}, onGoaway() {}, onClose() {} },
    );
    const blocks = new RequestHeaderBlocks({ scheme: "http", authority: `127.0.0.1:${peer.port}` });
    try {
      const second = new Promise<{ end: StreamEnd; microtaskRan: boolean }>((resolve) => {
        conn
          .request(blocks.block("/first", undefined), {
            onHeaders() {},
            // Opened from the first stream's message, as a watch a consumer starts from its event callback.
            onData: () => {
              let microtaskRan = false;
              queueMicrotask(() => {
                microtaskRan = true;
              });
              conn.request(blocks.block("/second", undefined), {
                onHeaders() {},
                onData() {},
                onClose: (end) => resolve({ end, microtaskRan }),
              });
            },
            onClose() {},
          })
          .write(Buffer.alloc(5), false);
      });
      assert.deepEqual(await second, { end: { rstCode: ErrorCode.REFUSED_STREAM }, microtaskRan: false });
    } finally {
      conn.destroy();
      peer.server.close();
    }
  });

  test("a header block interrupted by another frame is a connection error", async () => {
    const peer = await rawPeer((socket, id) => {
      socket.write(frameOf(FrameType.HEADERS, 0, id, TRAILERS_ONLY.subarray(0, 1)));
      socket.write(frameOf(FrameType.DATA, 0, id, Buffer.from("x")));
    });
    const { conn, answer } = call(peer.port);
    try {
      assert.match((await answer).end.error?.message ?? "", /header block was interrupted/);
    } finally {
      conn.destroy();
      peer.server.close();
    }
  });
});
