import assert from "node:assert/strict";
import { createServer, type ServerResponse } from "node:http";
import { connect, type Socket } from "node:net";
import { describe, it } from "node:test";
import { waitFor } from "../testing/wait-for.js";
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

/** Waits until `check` holds (the shared waitFor: a hang guard, not a timing assertion). */
async function until(check: () => boolean): Promise<void> {
  await waitFor(
    String(check),
    async () => check(),
    (ok) => ok,
  );
}

/** The last chunk of a chunked response: the end of the stream. */
const STREAM_END = "0\r\n\r\n";

/**
 * A server stopping while a request is held in flight (on `heldConnection`, which keeps it
 * draining), with `open` connections whose streamed responses the drain ended and which stay
 * open, so a request sent on one now comes after the stop. `endedAtOnce` counts the calls of
 * the drain's endStreams made before it returned; `finishHeld` answers the held request.
 */
async function stoppingWithOpenConnections(open: number) {
  const { inFlight, server, port, streams, held } = await serve();
  const heldConnection = await rawConnection(port);
  heldConnection.socket.write("GET /held HTTP/1.1\r\nHost: x\r\n\r\n");
  const connections = await Promise.all(Array.from({ length: open }, () => rawConnection(port)));
  for (const c of connections) c.socket.write("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n");
  await until(() => held.length === 1 && connections.every((c) => c.text.includes("started")));
  let ended = 0;
  const drained = inFlight.drain(server, 60_000, () => {
    for (const s of streams) s.end();
    ended++;
  });
  const endedAtOnce = ended;
  await until(() => connections.every((c) => c.text.includes(STREAM_END)));
  return { heldConnection, connections, drained, endedAtOnce, finishHeld: () => held[0]!() };
}

/** What a connection received after its streamed response ended. */
function afterStream(conn: { text: string }): string {
  return conn.text.slice(conn.text.indexOf(STREAM_END) + STREAM_END.length);
}

/**
 * What a stopping server answers to an upgrade request sent with `method` on a connection left
 * open (a request held in flight keeps it draining meanwhile); checks that the drain then ends
 * with nothing cut off.
 */
async function upgradeWhileStopping(method: "GET" | "HEAD"): Promise<string> {
  const {
    connections: [c],
    drained,
    finishHeld,
  } = await stoppingWithOpenConnections(1);
  c!.socket.write(`${method} /exec HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n\r\n`);
  await until(() => c!.closed);
  finishHeld();
  assert.equal(await drained, 0);
  return afterStream(c!);
}

describe("InFlightRequests", () => {
  it("lets a request in flight finish with Connection: close, and refuses what comes after on an open connection", async () => {
    const {
      heldConnection: a,
      connections: [b],
      drained,
      endedAtOnce,
      finishHeld,
    } = await stoppingWithOpenConnections(1);
    assert.equal(endedAtOnce, 1, "the long-running responses were ended at once");
    // B's response is over; its connection is still open: a new request on it is refused.
    b!.socket.write("GET /other HTTP/1.1\r\nHost: x\r\n\r\n");
    await until(() => b!.closed);
    const refused = afterStream(b!);
    assert.match(refused, /^HTTP\/1\.1 429 /);
    assert.match(refused, /\r\nretry-after: 1\r\n/i);
    assert.match(refused, /\r\nconnection: close\r\n/i);
    const status = JSON.parse(refused.slice(refused.indexOf("\r\n\r\n") + 4));
    assert.equal(status.kind, "Status");
    assert.equal(status.reason, "TooManyRequests");
    assert.equal(status.code, 429);
    assert.equal(status.details.retryAfterSeconds, 1);

    // A's request finishes, its answer closing the connection; then the drain is over.
    finishHeld();
    assert.equal(await drained, 0, "nothing was cut off");
    await until(() => a.closed);
    assert.match(a.text, /^HTTP\/1\.1 200 /);
    assert.match(a.text, /\r\nconnection: close\r\n/i);
    assert.ok(a.text.endsWith("done"));
  });

  it("refuses an upgrade (exec, port-forward, a WebSocket) on an open connection once stopping, with Retry-After", async () => {
    const refused = await upgradeWhileStopping("GET");
    assert.match(refused, /^HTTP\/1\.1 429 /);
    assert.match(refused, /\r\nretry-after: 1\r\n/i, "an upgrade refused is asked to retry too");
    assert.match(refused, /\r\nconnection: close\r\n/i);
    assert.match(refused, /"reason":"TooManyRequests"/);
    assert.match(refused, /"retryAfterSeconds":1/);
  });

  it("refuses a HEAD upgrade once stopping with the header block alone, no body", async () => {
    const refused = await upgradeWhileStopping("HEAD");
    assert.match(refused, /^HTTP\/1\.1 429 /);
    assert.match(refused, /\r\ncontent-length: [1-9]\d*\r\n/i);
    assert.ok(refused.endsWith("\r\n\r\n"), `nothing after the header block: ${JSON.stringify(refused)}`);
  });

  it("still answers a health probe on an open connection once stopping, closing the connection", async () => {
    const paths = ["/readyz?verbose", "/livez", "/healthz"];
    const { connections: probes, drained, finishHeld } = await stoppingWithOpenConnections(paths.length);
    for (const [i, path] of paths.entries()) {
      const p = probes[i]!;
      p.socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
      await until(() => p.closed);
      const answer = afterStream(p);
      assert.match(answer, /^HTTP\/1\.1 200 /, `${path} is answered, not refused`);
      assert.match(answer, /\r\nconnection: close\r\n/i);
      assert.ok(answer.endsWith("ok"));
    }
    finishHeld();
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
