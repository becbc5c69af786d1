/**
 * A bench child process that sends GETs at a steady rate (open loop) and measures their latency
 * from the moment each was due, not from when it could be sent.
 *
 * autocannon's rate limit lets each connection send its quota for the second back to back and
 * then wait for the next second, so "half the maximum rate" is half a second at the maximum rate
 * and half a second idle, and its coordinated-omission correction then adds synthetic samples:
 * the bare node:https baseline showed a p99 of 40+ ms that way. Here one timer hands requests,
 * evenly spaced, to idle keep-alive connections; a request due while every connection is busy
 * waits in a queue and its wait counts, as it would for a real client.
 *
 * Like watch-clients.ts it is lean because it shares the cores with the server: raw TLS
 * sockets, one prebuilt request, only the status line and Content-Length are read.
 *
 * Protocol (IPC): argv = port, path, rate (req/s), durationMs, connections; first message {key}
 * (empty for no Authorization header) → runs, then answers {histogram, sent, ok, failed, cpuMs}
 * and exits.
 */
import { connect, type TLSSocket } from "node:tls";
import { responseEnd } from "./http-response-end.js";

export interface PacedResult {
  /** [bucket (0.1 ms), count] pairs of the latency of every 200. */
  histogram: [number, number][];
  sent: number;
  ok: number;
  /** Answers other than 200, and requests left unanswered when the run ended. */
  failed: number;
  cpuMs: number;
}

/** One keep-alive connection with at most one request in flight. */
class Connection {
  private pending: Buffer = Buffer.alloc(0);
  /** When the request in flight was due (performance.now()), or undefined when idle. */
  due: number | undefined;

  constructor(
    private readonly socket: TLSSocket,
    private readonly request: Buffer,
    private readonly onAnswer: (c: Connection, status: number, due: number | undefined) => void,
  ) {
    socket.on("data", (chunk: Buffer) => this.read(chunk));
  }

  send(due: number): void {
    this.due = due;
    this.socket.write(this.request);
  }

  private read(chunk: Buffer): void {
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    // Several answers may come in one read, and one answer in several.
    for (let end = responseEnd(this.pending); end > 0; end = responseEnd(this.pending)) {
      const status = Number(this.pending.subarray(9, 12).toString("latin1"));
      this.pending = this.pending.subarray(end);
      const due = this.due;
      this.due = undefined;
      this.onAnswer(this, status, due);
    }
  }

  close(): void {
    this.socket.destroy();
  }
}

async function main(): Promise<void> {
  const [portArg, path, rateArg, durationArg, connectionsArg] = process.argv.slice(2);
  const port = Number(portArg);
  const rate = Number(rateArg);
  const durationMs = Number(durationArg);
  const { key } = await new Promise<{ key?: string }>((resolve) => process.once("message", resolve as never));
  const auth = key ? `Authorization: Bearer ${key}\r\n` : "";
  const request = Buffer.from(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Accept: application/json\r\n\r\n`);

  const histogram = new Map<number, number>();
  let sent = 0;
  let ok = 0;
  let failed = 0;
  const idle: Connection[] = [];
  /** Due times of requests waiting for a connection. */
  const backlog: number[] = [];
  let backlogHead = 0;

  const onAnswer = (c: Connection, status: number, due: number | undefined) => {
    if (due === undefined) {
      // An answer with no request in flight (a framing error): never a latency, and the connection is not idle twice.
      failed++;
      return;
    }
    if (status === 200) {
      const bucket = Math.max(0, Math.round((performance.now() - due) * 10));
      histogram.set(bucket, (histogram.get(bucket) ?? 0) + 1);
      ok++;
    } else failed++;
    if (backlogHead < backlog.length) c.send(backlog[backlogHead++]!);
    else idle.push(c);
  };
  const connections = await Promise.all(
    Array.from(
      { length: Number(connectionsArg) },
      () =>
        new Promise<Connection>((resolve, reject) => {
          const socket = connect({ host: "127.0.0.1", port, rejectUnauthorized: false }, () => {
            socket.setNoDelay(true);
            resolve(new Connection(socket, request, onAnswer));
          });
          socket.once("error", reject);
        }),
    ),
  );
  idle.push(...connections);

  const cpu = process.cpuUsage();
  const start = performance.now();
  const interval = 1000 / rate;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const now = performance.now();
      const until = Math.min(now, start + durationMs);
      for (let due = start + sent * interval; due <= until; due = start + sent * interval) {
        sent++;
        const c = idle.pop();
        if (c) c.send(due);
        else backlog.push(due);
      }
      if (now >= start + durationMs) {
        clearInterval(timer);
        resolve();
      }
    }, 1);
  });
  // Let what is in flight finish (bounded), then count the rest as failed.
  const settleBy = performance.now() + 5000;
  while (ok + failed < sent && performance.now() < settleBy) await new Promise((r) => setTimeout(r, 10));
  failed += sent - ok - failed;
  const used = process.cpuUsage(cpu);
  for (const c of connections) c.close();
  const result: PacedResult = {
    histogram: [...histogram],
    sent,
    ok,
    failed,
    cpuMs: (used.user + used.system) / 1000,
  };
  process.send!(result, () => process.exit(0));
}

await main();
