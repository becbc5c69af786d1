import assert from "node:assert/strict";
import { createServer, type ServerResponse } from "node:http";
import { connect, type Socket } from "node:net";
import { describe, it } from "node:test";
import { InFlightRequests } from "./in-flight-requests.js";

/**
 * InFlightRequests on a plain node HTTP server: what a stopping server does to the requests it
 * has (they finish), to long-running responses (ended by the caller's endStreams), to requests
 * and upgrades arriving afterwards on a connection still open (429 Status, Retry-After), and to
 * what outlives the grace period (cut, and counted).
 */
async function serve() {
  const inFlight = new InFlightRequests();
  const streams: ServerResponse[] = [];
  const held: Array<() => void> = [];
  const server = createServer((req, res) => {
    if (!inFlight.admit(res)) return;
    if (req.url === "/stream") {
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("started\n");
      streams.push(res);
    } else if (req.url === "/held") {
      held.push(() => res.end("done"));
    } else {
      res.end("ok");
    }
  });
  server.on("upgrade", (req, socket) => {
    if (inFlight.admitUpgrade(req, socket)) socket.destroy();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return { inFlight, server, port, streams, held };
}

/** A raw connection, collecting what it receives. */
async function rawConnection(port: number) {
  const socket: Socket = connect(port, "127.0.0.1");
  await new Promise((r) => socket.once("connect", r));
  const conn = { socket, text: "", closed: false };
  socket.setEncoding("utf8");
  socket.on("data", (d: string) => {
    conn.text += d;
  });
  socket.on("close", () => {
    conn.closed = true;
  });
  return conn;
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; !check(); i++) {
    if (i > 2000) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe("InFlightRequests", () => {
  it("lets a request in flight finish with Connection: close, and refuses what comes after on an open connection", async () => {
    const { inFlight, server, port, streams, held } = await serve();
    const a = await rawConnection(port);
    a.socket.write("GET /held HTTP/1.1\r\nHost: x\r\n\r\n");
    const b = await rawConnection(port);
    b.socket.write("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n");
    await until(() => held.length === 1 && b.text.includes("started"));

    let ended = 0;
    const drained = inFlight.drain(server, 60_000, () => {
      for (const s of streams) s.end();
      ended++;
    });
    assert.equal(ended, 1, "the long-running responses were ended at once");
    // B's response is over; its connection is still open: a new request on it is refused.
    await until(() => b.text.includes("0\r\n\r\n"));
    b.socket.write("GET /other HTTP/1.1\r\nHost: x\r\n\r\n");
    await until(() => b.closed);
    const refused = b.text.slice(b.text.indexOf("0\r\n\r\n") + 5);
    assert.match(refused, /^HTTP\/1\.1 429 /);
    assert.match(refused, /\r\nretry-after: 1\r\n/i);
    assert.match(refused, /\r\nconnection: close\r\n/i);
    const status = JSON.parse(refused.slice(refused.indexOf("\r\n\r\n") + 4));
    assert.equal(status.kind, "Status");
    assert.equal(status.reason, "TooManyRequests");
    assert.equal(status.code, 429);
    assert.equal(status.details.retryAfterSeconds, 1);

    // A's request finishes, its answer closing the connection; then the drain is over.
    held[0]!();
    assert.equal(await drained, 0, "nothing was cut off");
    await until(() => a.closed);
    assert.match(a.text, /^HTTP\/1\.1 200 /);
    assert.match(a.text, /\r\nconnection: close\r\n/i);
    assert.ok(a.text.endsWith("done"));
  });

  it("refuses an upgrade (exec, port-forward, a WebSocket) on an open connection once stopping, with Retry-After", async () => {
    const { inFlight, server, port, streams, held } = await serve();
    // A request held in flight keeps the server draining (and connection C open) meanwhile.
    const a = await rawConnection(port);
    a.socket.write("GET /held HTTP/1.1\r\nHost: x\r\n\r\n");
    const c = await rawConnection(port);
    c.socket.write("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n");
    await until(() => held.length === 1 && c.text.includes("started"));
    const drained = inFlight.drain(server, 60_000, () => {
      for (const s of streams) s.end();
    });
    await until(() => c.text.includes("0\r\n\r\n"));
    c.socket.write("GET /exec HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n\r\n");
    await until(() => c.closed);
    const refused = c.text.slice(c.text.indexOf("0\r\n\r\n") + 5);
    assert.match(refused, /^HTTP\/1\.1 429 /);
    assert.match(refused, /\r\nretry-after: 1\r\n/i, "an upgrade refused is asked to retry too");
    assert.match(refused, /\r\nconnection: close\r\n/i);
    assert.match(refused, /"reason":"TooManyRequests"/);
    assert.match(refused, /"retryAfterSeconds":1/);
    held[0]!();
    assert.equal(await drained, 0);
  });

  it("refuses a HEAD upgrade once stopping with the header block alone, no body", async () => {
    const { inFlight, server, port, streams, held } = await serve();
    const a = await rawConnection(port);
    a.socket.write("GET /held HTTP/1.1\r\nHost: x\r\n\r\n");
    const c = await rawConnection(port);
    c.socket.write("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n");
    await until(() => held.length === 1 && c.text.includes("started"));
    const drained = inFlight.drain(server, 60_000, () => {
      for (const s of streams) s.end();
    });
    await until(() => c.text.includes("0\r\n\r\n"));
    c.socket.write("HEAD /exec HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n\r\n");
    await until(() => c.closed);
    const refused = c.text.slice(c.text.indexOf("0\r\n\r\n") + 5);
    assert.match(refused, /^HTTP\/1\.1 429 /);
    assert.match(refused, /\r\ncontent-length: [1-9]\d*\r\n/i);
    assert.ok(refused.endsWith("\r\n\r\n"), `nothing after the header block: ${JSON.stringify(refused)}`);
    held[0]!();
    assert.equal(await drained, 0);
  });

  it("still answers a health probe on an open connection once stopping, closing the connection", async () => {
    const { inFlight, server, port, streams, held } = await serve();
    const a = await rawConnection(port);
    a.socket.write("GET /held HTTP/1.1\r\nHost: x\r\n\r\n");
    const probes = await Promise.all(["/readyz?verbose", "/livez", "/healthz"].map(() => rawConnection(port)));
    for (const p of probes) p.socket.write("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n");
    await until(() => held.length === 1 && probes.every((p) => p.text.includes("started")));
    const drained = inFlight.drain(server, 60_000, () => {
      for (const s of streams) s.end();
    });
    await until(() => probes.every((p) => p.text.includes("0\r\n\r\n")));
    for (const [i, path] of ["/readyz?verbose", "/livez", "/healthz"].entries()) {
      const p = probes[i]!;
      p.socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
      await until(() => p.closed);
      const answer = p.text.slice(p.text.indexOf("0\r\n\r\n") + 5);
      assert.match(answer, /^HTTP\/1\.1 200 /, `${path} is answered, not refused`);
      assert.match(answer, /\r\nconnection: close\r\n/i);
      assert.ok(answer.endsWith("ok"));
    }
    held[0]!();
    assert.equal(await drained, 0);
  });

  it("cuts what outlives the grace period, and says how many", async () => {
    const { inFlight, server, port, held } = await serve();
    const a = await rawConnection(port);
    a.socket.write("GET /held HTTP/1.1\r\nHost: x\r\n\r\n");
    await until(() => held.length === 1);
    const cut = await inFlight.drain(server, 10, () => {});
    assert.equal(cut, 1);
    await until(() => a.closed);
    assert.equal(a.text, "", "no answer");
  });
});
