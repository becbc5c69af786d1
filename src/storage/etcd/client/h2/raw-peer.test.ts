import assert from "node:assert/strict";
import type { Socket } from "node:net";
import { describe, test } from "node:test";
import { waitFor } from "../../../../testing/wait-for.js";
import { H2Connection, type H2ConnectOptions } from "./connection.js";
import { ErrorCode, Flag, FrameType, frameOf, goawayFrame, Setting } from "./frames.js";
import type { HeaderFields } from "./hpack-decoder.js";
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

function connect(port: number, windows: Partial<Pick<H2ConnectOptions, "streamWindow" | "connectionWindow">> = {}) {
  return new H2Connection(
    { host: "127.0.0.1", port, tls: false, streamWindow: 1 << 20, connectionWindow: 1 << 20, ...windows },
    { onConnect() {}, onGoaway() {}, onClose() {} },
  );
}

/** One call on `conn`: the header blocks of its answer and how it ended. */
function request(conn: H2Connection, port: number) {
  const blocks = new RequestHeaderBlocks({ scheme: "http", authority: `127.0.0.1:${port}` });
  return new Promise<{ fields: HeaderFields[]; end: StreamEnd }>((resolve) => {
    const fields: HeaderFields[] = [];
    conn
      .request(blocks.block("/raw", undefined), {
        onHeaders: (f) => fields.push(f),
        onData() {},
        onClose: (end) => resolve({ fields, end }),
      })
      .write(Buffer.from([0, 0, 0, 0, 0]), true);
  });
}

function call(port: number, windows: Parameters<typeof connect>[1] = {}) {
  const conn = connect(port, windows);
  return { conn, answer: request(conn, port) };
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
      await until(() => peer.received.includes(FrameType.GOAWAY));
      assert.deepEqual(peer.goaways, [ErrorCode.PROTOCOL_ERROR], `frames received: ${peer.received}`);
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

  test("DATA beyond the stream window we granted is a connection error FLOW_CONTROL_ERROR: GOAWAY, the call fails", async () => {
    // A 20,000-byte stream window: 9,000 bytes are not yet half of it (no WINDOW_UPDATE), 12,000 more overrun it.
    const peer = await rawPeer((socket, id) => {
      socket.write(frameOf(FrameType.HEADERS, Flag.END_HEADERS, id, Buffer.from([0x88])));
      socket.write(frameOf(FrameType.DATA, 0, id, Buffer.alloc(9_000)));
      socket.write(frameOf(FrameType.DATA, 0, id, Buffer.alloc(12_000)));
      socket.write(frameOf(FrameType.HEADERS, Flag.END_HEADERS | Flag.END_STREAM, id, TRAILERS_ONLY.subarray(1)));
    });
    const { conn, answer } = call(peer.port, { streamWindow: 20_000 });
    try {
      const { end } = await answer;
      assert.match(end.error?.message ?? "", /FLOW_CONTROL_ERROR.*beyond the stream window granted \(20000 bytes\)/);
      assert.equal(end.error?.code, "EPROTO");
      await until(() => peer.goaways.length > 0);
      assert.deepEqual(peer.goaways, [ErrorCode.FLOW_CONTROL_ERROR]);
      assert.ok(conn.destroyed, "the connection is gone: the next call needs a new one");
    } finally {
      conn.destroy();
      peer.server.close();
    }
  });

  test("DATA up to the stream window, given back each half window, is taken: a MiB through a 20,000-byte window", async () => {
    // Each frame waits for the WINDOW_UPDATE that makes room for it, as a peer keeping to the window does.
    const total = 1 << 20;
    let sent = 0;
    let window = 20_000;
    const pump = (socket: Socket, id: number) => {
      for (; window >= 10_000 && sent < total; sent += 10_000, window -= 10_000) {
        socket.write(frameOf(FrameType.DATA, 0, id, Buffer.alloc(Math.min(10_000, total - sent))));
      }
      if (sent >= total) {
        socket.write(frameOf(FrameType.HEADERS, Flag.END_HEADERS | Flag.END_STREAM, id, TRAILERS_ONLY.subarray(1)));
        window = Number.NEGATIVE_INFINITY;
      }
    };
    const peer = await rawPeer(
      (socket, id) => {
        socket.write(frameOf(FrameType.HEADERS, Flag.END_HEADERS, id, Buffer.from([0x88])));
        pump(socket, id);
      },
      {
        onFrame: (socket, type, id, payload) => {
          if (type !== FrameType.WINDOW_UPDATE || id === 0) return;
          window += payload.readUInt32BE(0);
          pump(socket, id);
        },
      },
    );
    const { conn, answer } = call(peer.port, { streamWindow: 20_000 });
    try {
      const { end, fields } = await answer;
      assert.deepEqual(end, {});
      assert.equal(fields.at(-1)?.["grpc-status"], "0");
      assert.deepEqual(peer.goaways, []);
    } finally {
      conn.destroy();
      peer.server.close();
    }
  });

  for (const [what, block, error] of [
    // 0x3f e2 1f: a size update to 4,097, one above the 4,096 we announced (the default).
    ["a dynamic table size update above the size we announced", [0x3f, 0xe2, 0x1f, 0x88], /above the 4096 allowed/],
    // :status 200, then a size update to 0.
    ["a dynamic table size update after a header field", [0x88, 0x20], /size update after a header field/],
  ] as const) {
    test(`${what} is a connection error COMPRESSION_ERROR`, async () => {
      const peer = await rawPeer((socket, id) => {
        socket.write(frameOf(FrameType.HEADERS, Flag.END_HEADERS | Flag.END_STREAM, id, Buffer.from(block)));
      });
      const { conn, answer } = call(peer.port);
      try {
        const { end } = await answer;
        assert.match(end.error?.message ?? "", /COMPRESSION_ERROR/);
        assert.match(end.error?.message ?? "", error);
        await until(() => peer.goaways.length > 0);
        assert.deepEqual(peer.goaways, [ErrorCode.COMPRESSION_ERROR]);
      } finally {
        conn.destroy();
        peer.server.close();
      }
    });
  }

  test("calls started before the peer's first SETTINGS keep to the MAX_CONCURRENT_STREAMS it then announces", async () => {
    let open = 0;
    let most = 0;
    const peer = await rawPeer(
      (socket, id) => {
        most = Math.max(most, ++open);
        // Answered after the late SETTINGS went out (20 ms after the client's).
        setTimeout(() => {
          open--;
          socket.write(frameOf(FrameType.HEADERS, Flag.END_HEADERS | Flag.END_STREAM, id, TRAILERS_ONLY));
        }, 30);
      },
      { lateSettings: true, settings: [[Setting.MAX_CONCURRENT_STREAMS, 1]] },
    );
    const conn = connect(peer.port);
    try {
      const answers = await Promise.all([0, 1, 2, 3].map(() => request(conn, peer.port)));
      for (const a of answers) assert.deepEqual(a, { fields: [{ ":status": "200", "grpc-status": "0" }], end: {} });
      assert.equal(most, 1, "never more than one stream open at the peer");
      assert.equal(peer.received.filter((t) => t === FrameType.HEADERS).length, 4);
    } finally {
      conn.destroy();
      peer.server.close();
    }
  });
});
