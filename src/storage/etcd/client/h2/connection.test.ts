import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import {
  constants,
  createSecureServer,
  createServer,
  type Http2SecureServer,
  type Http2Server,
  type SecureServerOptions,
  type ServerHttp2Stream,
  type ServerOptions,
  sensitiveHeaders,
} from "node:http2";
import type { AddressInfo } from "node:net";
import { createServer as createNetServer, type Server as NetServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { createServer as createTlsServer, type Server as TlsServer } from "node:tls";
import { writeEtcdTls } from "../../../../testing/etcd-tls.js";
import { waitFor } from "../../../../testing/wait-for.js";
import { type ConnectionEvents, H2Connection, type H2ConnectOptions } from "./connection.js";
import { CLIENT_PREFACE, ErrorCode, FrameReader, FrameType, settingsFrame } from "./frames.js";
import type { HeaderFields } from "./hpack-decoder.js";
import { RequestHeaderBlocks } from "./hpack-request.js";
import type { StreamEnd } from "./stream.js";

type AnyServer = Http2Server | Http2SecureServer | NetServer | TlsServer;

/** Waits until `check` holds (the shared waitFor: a hang guard, not a timing assertion). */
async function until(check: () => boolean, what: string): Promise<void> {
  await waitFor(
    what,
    async () => check(),
    (ok) => ok,
  );
}

async function listen<S extends AnyServer>(server: S): Promise<{ server: S; port: number }> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/** A node:http2 server (a real HTTP/2 peer) answering every stream with `answer`. */
function h2Server(
  answer: (stream: ServerHttp2Stream, headers: Record<string | symbol, unknown>) => void,
  options: ServerOptions = {},
) {
  const server = createServer(options);
  server.on("stream", (stream, headers) => {
    // Resets and refusals are what some tests are about: the server's own stream errors are expected.
    stream.on("error", () => {});
    answer(stream, headers as Record<string | symbol, unknown>);
  });
  return listen(server);
}

/** Answers with the request body, the request's headers as response headers, and gRPC-style trailers. */
function echo(stream: ServerHttp2Stream, headers: Record<string | symbol, unknown>): void {
  const chunks: Buffer[] = [];
  stream.on("data", (c: Buffer) => chunks.push(c));
  stream.on("end", () => {
    stream.respond(
      {
        ":status": 200,
        "content-type": "application/grpc",
        "x-path": String(headers[":path"]),
        "x-authority": String(headers[":authority"]),
        "x-token-never-indexed": String((headers[sensitiveHeaders] as string[] | undefined)?.includes("token")),
      },
      { waitForTrailers: true },
    );
    stream.on("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0", "grpc-message": "all%20good" }));
    stream.end(Buffer.concat(chunks));
  });
}

interface Answer {
  blocks: HeaderFields[];
  body: Buffer;
  end: StreamEnd;
  sent: boolean;
}

function connect(port: number, options: Partial<H2ConnectOptions> = {}, events: Partial<ConnectionEvents> = {}) {
  return new H2Connection(
    { host: "127.0.0.1", port, tls: false, streamWindow: 4 << 20, connectionWindow: 32 << 20, ...options },
    { onConnect() {}, onGoaway() {}, onClose() {}, ...events },
  );
}

/** One request on `conn`: its header blocks, its body and how it ended. */
function call(conn: H2Connection, port: number, path: string, body: Buffer, token?: string) {
  const blocks = new RequestHeaderBlocks({ scheme: "http", authority: `127.0.0.1:${port}` });
  return new Promise<Answer>((resolve) => {
    const answer: Answer = { blocks: [], body: Buffer.alloc(0), end: {}, sent: false };
    const chunks: Buffer[] = [];
    const stream = conn.request(blocks.block(path, token), {
      onHeaders: (fields) => answer.blocks.push(fields),
      onData: (chunk) => chunks.push(chunk),
      onClose: (end) => resolve({ ...answer, body: Buffer.concat(chunks), end, sent: stream.sent }),
    });
    stream.write(body, true);
  });
}

const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

describe("the etcd client's HTTP/2 connection, against node:http2 servers", () => {
  test("requests carry their headers (the token never indexed); answers, headers and trailers come back decoded, call after call", async () => {
    const { server, port } = await h2Server(echo);
    const conn = connect(port);
    try {
      for (let round = 0; round < 3; round++) {
        const answers = await Promise.all(
          [0, 1, 2, 3].map((i) => call(conn, port, `/svc/M${i}`, Buffer.from(`body ${round} ${i}`), `tok-${i}`)),
        );
        answers.forEach((a, i) => {
          assert.equal(a.body.toString(), `body ${round} ${i}`);
          assert.deepEqual(a.end, {});
          assert.equal(a.blocks.length, 2, "headers, then trailers");
          assert.equal(a.blocks[0]![":status"], "200");
          assert.equal(a.blocks[0]!["x-path"], `/svc/M${i}`);
          assert.equal(a.blocks[0]!["x-authority"], `127.0.0.1:${port}`);
          assert.equal(a.blocks[0]!["x-token-never-indexed"], "true");
          assert.deepEqual(a.blocks[1], { "grpc-status": "0", "grpc-message": "all%20good" });
        });
      }
    } finally {
      conn.destroy();
      server.close();
    }
  });

  test("header blocks larger than a frame go as HEADERS + CONTINUATION, both ways", async () => {
    const big = randomBytes(30_000).toString("base64"); // 40 KB: three frames
    const { server, port } = await h2Server(
      (stream, headers) => {
        stream.respond({ ":status": 200, "x-big": big, "x-token-length": String(String(headers.token).length) });
        stream.end("ok");
      },
      { maxSendHeaderBlockLength: 1 << 20, settings: { maxHeaderListSize: 1 << 20 } },
    );
    const conn = connect(port);
    try {
      const a = await call(conn, port, "/big", Buffer.alloc(0), big);
      assert.equal(a.blocks[0]!["x-big"], big);
      assert.equal(a.blocks[0]!["x-token-length"], String(big.length));
      assert.equal(a.body.toString(), "ok");
      // The connection is still in step (HPACK tables included) for the next call.
      assert.equal((await call(conn, port, "/big", Buffer.alloc(0))).blocks[0]!["x-big"], big);
    } finally {
      conn.destroy();
      server.close();
    }
  });

  test("padded HEADERS and DATA are read without their padding", async () => {
    const { server, port } = await h2Server(echo, { paddingStrategy: constants.PADDING_STRATEGY_MAX });
    const conn = connect(port);
    try {
      const body = randomBytes(50_000);
      const a = await call(conn, port, "/padded", body);
      assert.equal(sha(a.body), sha(body));
      assert.equal(a.blocks[1]!["grpc-status"], "0");
    } finally {
      conn.destroy();
      server.close();
    }
  });

  test("a body larger than the peer's 64 KiB window goes through intact, both ways, with small windows of our own", async () => {
    const { server, port } = await h2Server(echo, { settings: { initialWindowSize: 65_535 } });
    const conn = connect(port, { streamWindow: 65_535, connectionWindow: 65_535 });
    try {
      const bodies = [randomBytes(1 << 20), randomBytes(1_500_000)];
      const answers = await Promise.all(bodies.map((b) => call(conn, port, "/big", b)));
      for (const [i, a] of answers.entries()) assert.equal(sha(a.body), sha(bodies[i]!));
    } finally {
      conn.destroy();
      server.close();
    }
  });

  test("a window the peer opens later by SETTINGS lets the queued body go", async () => {
    const { server, port } = await h2Server(
      (stream, headers) => {
        // Nothing can be sent until the window opens.
        setTimeout(() => stream.session?.settings({ initialWindowSize: 100_000 }), 50);
        echo(stream, headers);
      },
      { settings: { initialWindowSize: 0 } },
    );
    const conn = connect(port);
    try {
      await call(conn, port, "/first", Buffer.from("first")); // SETTINGS received
      const body = randomBytes(300_000);
      assert.equal(sha((await call(conn, port, "/x", body)).body), sha(body));
    } finally {
      conn.destroy();
      server.close();
    }
  });

  test("calls beyond the peer's MAX_CONCURRENT_STREAMS wait for a free stream", async () => {
    let open = 0;
    let most = 0;
    const { server, port } = await h2Server(
      (stream, headers) => {
        most = Math.max(most, ++open);
        stream.on("close", () => open--);
        setTimeout(() => echo(stream, headers), 10);
      },
      { settings: { maxConcurrentStreams: 2 } },
    );
    const conn = connect(port);
    try {
      await call(conn, port, "/first", Buffer.from("first"));
      const answers = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => call(conn, port, "/c", Buffer.from(String(i)))));
      assert.deepEqual(
        answers.map((a) => a.body.toString()),
        ["0", "1", "2", "3", "4", "5"],
      );
      assert.equal(most, 2);
    } finally {
      conn.destroy();
      server.close();
    }
  });

  test("GOAWAY: streams above the last accepted one are refused (not processed), the others finish, no new ones start", async () => {
    const held: ServerHttp2Stream[] = [];
    const { server, port } = await h2Server((stream) => {
      held.push(stream);
      if (held.length === 2) {
        stream.session?.goaway(constants.NGHTTP2_NO_ERROR, held[0]!.id);
        held[0]!.respond({ ":status": 200 });
        held[0]!.end("first");
      }
    });
    let goaway = 0;
    const conn = connect(port, {}, { onGoaway: () => goaway++ });
    try {
      const [first, second] = await Promise.all([
        call(conn, port, "/a", Buffer.alloc(0)),
        call(conn, port, "/b", Buffer.alloc(0)),
      ]);
      assert.equal(first.body.toString(), "first");
      assert.deepEqual(first.end, {});
      assert.equal(second.end.rstCode, ErrorCode.REFUSED_STREAM);
      assert.equal(goaway, 1);
      assert.throws(() => conn.request(Buffer.alloc(0), { onHeaders() {}, onData() {}, onClose() {} }), /closing/);
    } finally {
      conn.destroy();
      server.close();
    }
  });

  test("RST_STREAM both ways: the peer's code reaches the call; our reset reaches the peer", async () => {
    const held: ServerHttp2Stream[] = [];
    const { server, port } = await h2Server((stream, headers) => {
      if (headers[":path"] === "/reset-me") stream.close(constants.NGHTTP2_INTERNAL_ERROR);
      else held.push(stream);
    });
    const conn = connect(port);
    try {
      const a = await call(conn, port, "/reset-me", Buffer.from("x"));
      assert.equal(a.end.rstCode, ErrorCode.INTERNAL_ERROR);
      assert.equal(a.sent, true);
      const ended: StreamEnd[] = [];
      const blocks = new RequestHeaderBlocks({ scheme: "http", authority: "x" });
      const stream = conn.request(blocks.block("/held", undefined), {
        onHeaders() {},
        onData() {},
        onClose: (end) => ended.push(end),
      });
      stream.write(Buffer.from("partial"));
      await until(() => held.length === 1, "the server has the stream");
      const closed = new Promise<number | undefined>((resolve) =>
        held[0]!.on("close", () => resolve(held[0]!.rstCode)),
      );
      stream.reset(ErrorCode.CANCEL);
      assert.deepEqual(ended, [{ rstCode: ErrorCode.CANCEL }]);
      assert.equal(await closed, constants.NGHTTP2_CANCEL);
    } finally {
      conn.destroy();
      server.close();
    }
  });

  test("PING both ways: ours is answered, the peer's is acknowledged", async () => {
    let session: import("node:http2").ServerHttp2Session | undefined;
    const { server, port } = await h2Server(echo);
    server.on("session", (s) => {
      session = s;
    });
    const conn = connect(port);
    try {
      await call(conn, port, "/x", Buffer.alloc(0));
      await new Promise<void>((resolve) => conn.ping(resolve));
      const err = await new Promise<Error | null>((resolve) => session!.ping((e) => resolve(e)));
      assert.equal(err, null);
    } finally {
      conn.destroy();
      server.close();
    }
  });

  test("a connection that fails fails its streams: sent when written, not when never connected or before the peer's SETTINGS", async () => {
    // A peer that sends its SETTINGS, takes the request and drops the connection without an answer.
    const { server, port } = await listen(
      createNetServer((socket) => {
        socket.write(settingsFrame([]));
        let seen = Buffer.alloc(0);
        const reader = new FrameReader((type) => {
          if (type === FrameType.HEADERS) socket.destroy();
        });
        socket.on("data", (chunk: Buffer) => {
          if (seen.length >= CLIENT_PREFACE.length) return reader.push(chunk);
          seen = Buffer.concat([seen, chunk]);
          if (seen.length >= CLIENT_PREFACE.length) reader.push(seen.subarray(CLIENT_PREFACE.length));
        });
      }),
    );
    // One that drops the connection before its SETTINGS: streams wait for them, nothing was sent.
    const silent = await listen(createNetServer((socket) => socket.once("data", () => socket.destroy())));
    const conn = connect(port);
    let closed = 0;
    const dead = await listen(createNetServer());
    dead.server.close();
    try {
      const a = await call(conn, port, "/x", Buffer.from("x"));
      assert.ok(a.end.error, "a transport error");
      assert.equal(a.sent, true);
      const early = connect(silent.port);
      const b = await call(early, silent.port, "/x", Buffer.from("x"));
      assert.ok(b.end.error, "a transport error");
      assert.equal(b.sent, false);
      const never = connect(dead.port, {}, { onClose: () => closed++ });
      const c = await call(never, dead.port, "/x", Buffer.from("x"));
      assert.match(c.end.error?.message ?? "", /ECONNREFUSED/);
      assert.equal(c.sent, false);
      assert.equal(closed, 1);
    } finally {
      conn.destroy();
      server.close();
      silent.server.close();
    }
  });

  test("a peer that does not speak HTTP/2 is a connection error, not a hang", async () => {
    const { server, port } = await listen(
      createNetServer((socket) => socket.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n")),
    );
    const conn = connect(port);
    try {
      const a = await call(conn, port, "/x", Buffer.from("x"));
      assert.ok(a.end.error);
    } finally {
      conn.destroy();
      server.close();
    }
  });

  describe("over TLS", () => {
    let dir: string;
    let options: SecureServerOptions;
    let ca: Buffer;
    before(async () => {
      dir = await mkdtemp(join(tmpdir(), "platform-h2-tls-"));
      const files = await writeEtcdTls(dir);
      ca = await readFile(files.ca);
      options = { cert: await readFile(files.memberCert), key: await readFile(files.memberKey) };
    });
    after(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    test("speaks h2 to a server that agreed to it by ALPN", async () => {
      const server = createSecureServer(options);
      server.on("stream", (stream, headers) => echo(stream, headers as Record<string | symbol, unknown>));
      const { port } = await listen(server);
      const conn = connect(port, { tls: true, ca });
      try {
        assert.equal((await call(conn, port, "/tls", Buffer.from("secret"))).body.toString(), "secret");
      } finally {
        conn.destroy();
        server.close();
      }
    });

    test("refuses a TLS server that did not agree to h2", async () => {
      // A TLS server that negotiates no application protocol at all.
      const { server, port } = await listen(createTlsServer(options, (socket) => socket.end()));
      const conn = connect(port, { tls: true, ca });
      try {
        const a = await call(conn, port, "/x", Buffer.from("x"));
        assert.match(a.end.error?.message ?? "", /does not speak HTTP\/2/);
        assert.equal(a.sent, false);
      } finally {
        conn.destroy();
        server.close();
      }
    });
  });
});
