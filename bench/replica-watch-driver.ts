/**
 * A bench child process that drives the etcd phase's replica watch (phases/etcd.ts): it sends
 * PATCHes to replica A at a steady rate and reads a watch on replica A and one on replica B.
 *
 * It runs in a process of its own, started just before it is needed, because the bench's main
 * process had measured itself: after the earlier parts of the phase its heap was large, and one
 * of its scavenges (seen with --trace-gc) stopped the pacing timer; the PATCHes due meanwhile
 * then went out at once and queued on A, and their answers and watch events were read late.
 * Here the heap stays small, and the figures say how late the sends were and how
 * long this process's own event loop was blocked, so a stall on the client side is visible
 * instead of being reported as the server's.
 *
 * Every delay is counted from when the PATCH was due (open loop, as paced-get.ts does): a send
 * that was late counts its lateness. Like paced-get.ts and watch-clients.ts it is lean (raw TLS,
 * no HTTP client, no JSON), because it shares the cores with the servers it measures.
 *
 * Protocol (IPC): first message {port, portB, key, path, names, rate, total, warmUp} → opens both
 * watches and answers {ready}; {cmd:"warm"} sends `warmUp` PATCHes at the same rate, unmeasured,
 * and answers {warmed} once every one is answered; {cmd:"run"} sends the measured PATCHes and
 * answers {answered, cpuMs} once every one is answered; {cmd:"collect"} waits (bounded) until both
 * watches saw every measured PATCH and answers {onA, onB, lateMaxMs, loop}; then it exits.
 *
 * Why the warm-up: a replica that has not served PATCHes yet spends its first seconds of
 * them compiling (V8's optimizing compiler on its background threads took a large share of
 * replica A's CPU in the first seconds, and its main thread ran unoptimized code), so a window right
 * after start measured a replica that no running deployment is. The warm-up PATCHes set another
 * annotation (WARM_UP_STAMP), which the watches' stamp search does not match.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { connect, type TLSSocket } from "node:tls";
import { fileURLToPath } from "node:url";
import { responseEnd } from "./http-response-end.js";
import { stampReader } from "./stamp-reader.js";

export interface DriverSetup {
  /** Replica A (written to and watched) and replica B (watched). */
  port: number;
  portB: number;
  key: string;
  /** The collection: PATCHes go to `${path}/${name}`, the watches to `${path}?watch=true&resourceVersion=…`. */
  path: string;
  names: string[];
  /** The resourceVersion the watches start from. */
  resourceVersion: string;
  rate: number;
  total: number;
  /** PATCHes sent before the measured ones, at the same rate, to warm both replicas up. */
  warmUp: number;
}

export interface DriverResult {
  /** Per PATCH answered: ms from when it was due to its answer. */
  answered: number[];
  /** This process's CPU while sending (and reading both watches meanwhile), ms. */
  cpuMs: number;
  /** Per event seen by the watch on A and on B: ms from when its PATCH was due. */
  onA: number[];
  onB: number[];
  /** The latest a PATCH went out after it was due (ms). */
  lateMaxMs: number;
  /** This process's event-loop delay while sending, ms. */
  loop: { p50: number; p99: number; max: number };
}

/** The annotation each PATCH sets; its value is the PATCH's index. */
export const DRIVER_STAMP = "bench/stamp";
/** The annotation the warm-up PATCHes set instead (not matched by the watches' stamp search). */
const WARM_UP_STAMP = "bench/warm-up";
const LOOP_RESOLUTION_MS = 5;

async function main(): Promise<void> {
  const setup = await new Promise<DriverSetup>((resolve) => process.once("message", resolve as never));
  const due: number[] = new Array(setup.total);
  const onA: number[] = [];
  const onB: number[] = [];
  const path = `${setup.path}?watch=true&resourceVersion=${setup.resourceVersion}`;
  const seen = (into: number[]) => (i: number) => {
    if (due[i] !== undefined) into.push(performance.now() - due[i]!);
  };
  await Promise.all([
    watchStamps(setup.port, setup.key, path, seen(onA)),
    watchStamps(setup.portB, setup.key, path, seen(onB)),
  ]);
  const send = await patcher(setup);
  process.send!({ ready: true });
  const answered: number[] = [];
  let lateMaxMs = 0;
  const loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  /**
   * Sends `total` PATCHes `rate` a second, each setting `annotation` to its index, noting when
   * each was due in `dueAt`; `answeredAt(i)` as each is answered.
   */
  const sendPaced = async (total: number, annotation: string, dueAt: number[], answeredAt: (i: number) => void) => {
    const start = performance.now() + 1;
    const sends: Promise<void>[] = [];
    for (let i = 0; i < total; i++) {
      dueAt[i] = start + (i * 1000) / setup.rate;
      const wait = dueAt[i]! - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      lateMaxMs = Math.max(lateMaxMs, performance.now() - dueAt[i]!);
      const body = JSON.stringify({ metadata: { annotations: { [annotation]: String(i) } } });
      const name = setup.names[i % setup.names.length]!;
      sends.push(send(name, body).then(() => answeredAt(i)));
    }
    await Promise.all(sends);
  };
  process.on("message", async (msg: { cmd: string }) => {
    if (msg.cmd === "warm") {
      await sendPaced(setup.warmUp, WARM_UP_STAMP, [], () => {});
      lateMaxMs = 0;
      process.send!({ warmed: true });
    } else if (msg.cmd === "run") {
      loop.enable();
      const cpu = process.cpuUsage();
      await sendPaced(setup.total, DRIVER_STAMP, due, (i) => void answered.push(performance.now() - due[i]!));
      loop.disable();
      const used = process.cpuUsage(cpu);
      process.send!({ answered, cpuMs: (used.user + used.system) / 1000 });
    } else if (msg.cmd === "collect") {
      for (let i = 0; i < 150 && (onA.length < setup.total || onB.length < setup.total); i++) {
        await new Promise((r) => setTimeout(r, 20));
      }
      const ms = (ns: number) => Math.max(0, ns / 1e6 - LOOP_RESOLUTION_MS);
      const result: Omit<DriverResult, "answered" | "cpuMs"> = {
        onA,
        onB,
        lateMaxMs,
        loop: { p50: ms(loop.percentile(50)), p99: ms(loop.percentile(99)), max: ms(loop.max) },
      };
      process.send!(result, () => process.exit(0));
    }
  });
}

/** Keep-alive connections to replica A, each with at most one PATCH in flight. */
const CONNECTIONS = 16;

/**
 * Sends PATCHes over raw TLS connections (prebuilt requests, only the status line and framing
 * of each answer read): the load generator shares the machine's cores with both replicas and
 * etcd, and node's HTTP client cost it more CPU per PATCH than etcd spent on it.
 */
async function patcher(setup: DriverSetup): Promise<(name: string, body: string) => Promise<void>> {
  const idle: Connection[] = [];
  const waiting: (() => void)[] = [];
  const sockets = await Promise.all(
    Array.from(
      { length: CONNECTIONS },
      () =>
        new Promise<TLSSocket>((resolve, reject) => {
          const socket = connect({ host: "127.0.0.1", port: setup.port, rejectUnauthorized: false }, () => {
            socket.setNoDelay(true);
            resolve(socket);
          });
          socket.once("error", reject);
        }),
    ),
  );
  idle.push(...sockets.map((socket) => new Connection(socket)));
  const head = (name: string, length: number) =>
    `PATCH ${setup.path}/${name} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${setup.key}\r\n` +
    `Content-Type: application/merge-patch+json\r\nContent-Length: ${length}\r\n\r\n`;
  return async (name, body) => {
    // A PATCH due while every connection is busy waits for one (its wait counts: it was due).
    while (idle.length === 0) await new Promise<void>((r) => waiting.push(r));
    const c = idle.pop()!;
    try {
      const status = await c.send(head(name, Buffer.byteLength(body)) + body);
      if (status !== 200) throw new Error(`PATCH answered ${status}`);
    } finally {
      idle.push(c);
      waiting.shift()?.();
    }
  };
}

class Connection {
  private pending: Buffer = Buffer.alloc(0);
  private answer: ((status: number) => void) | undefined;

  constructor(private readonly socket: TLSSocket) {
    socket.on("data", (chunk: Buffer) => this.read(chunk));
  }

  send(request: string): Promise<number> {
    return new Promise((resolve) => {
      this.answer = resolve;
      this.socket.write(request);
    });
  }

  private read(chunk: Buffer): void {
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    const end = responseEnd(this.pending);
    if (end < 0) return;
    const status = Number(this.pending.subarray(9, 12).toString("latin1"));
    this.pending = this.pending.subarray(end);
    const answer = this.answer;
    this.answer = undefined;
    answer?.(status);
  }
}

const NEEDLE = Buffer.from(`"${DRIVER_STAMP}":"`);

/**
 * A watch on a raw TLS connection whose events' stamps are passed to `seen` as they arrive
 * (found by a byte search: no HTTP parser, no JSON); resolves once the response head came.
 */
function watchStamps(port: number, key: string, path: string, seen: (i: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port, rejectUnauthorized: false }, () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\n\r\n`);
    });
    socket.on("data", stampReader(NEEDLE, { head: (error) => (error ? reject(error) : resolve()), stamp: seen }));
    socket.on("error", reject);
  });
}

// Only as the forked child (phases/etcd.ts imports the types).
if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
