/**
 * A bench child process holding some of the WATCH phase's watches. Real watchers are spread over
 * many processes; holding all of them in the process that also sends the writes made the bench
 * measure its own event loop (TLS decryption and parsing for every watcher) as much as the
 * server. The client side shares the machine's cores with the server, so it is kept lean: a
 * watch is a raw TLS connection with a hand-written request, and only the writers' stamps are
 * read from the stream (no HTTP parser, no JSON). Each child keeps a latency histogram (0.1 ms
 * buckets), which is small to send back however many events arrived.
 *
 * Protocol (IPC): argv = port, count, path; first message {key} → opens the watches and answers
 * {ready} once every response has its headers; {cmd:"reset"} clears the figures; {cmd:"collect",
 * expected, deadlineMs} answers {histogram, events, ended, cpuMs} once `expected` events arrived or
 * the deadline passed; {cmd:"exit"} ends it.
 */
import { connect } from "node:tls";
import { fileURLToPath } from "node:url";
import { stampReader } from "./stamp-reader.js";

/** What the writer puts in every PATCH: the wall-clock ms at which it was sent. */
export const STAMP = "bench/t";
const NEEDLE = Buffer.from(`"${STAMP}":"`);

export interface Collected {
  /** [bucket (0.1 ms), count] pairs. */
  histogram: [number, number][];
  events: number;
  /** Watches that ended (a slow watcher is closed with a 410 ERROR event): they miss the rest. */
  ended: number;
  /** Socket reads: how many events a read carried on average says how well the server batched. */
  reads: number;
  cpuMs: number;
}

/** Wall-clock ms with sub-ms precision, comparable across processes of one machine. */
export const wallMs = () => performance.timeOrigin + performance.now();

async function main(): Promise<void> {
  const [portArg, countArg, path] = process.argv.slice(2);
  const port = Number(portArg);
  const count = Number(countArg);
  const { key } = await new Promise<{ key: string }>((resolve) => process.once("message", resolve as never));
  let histogram = new Map<number, number>();
  let events = 0;
  let ended = 0;
  let reads = 0;
  let cpu = process.cpuUsage();

  const record = (stamp: number, now: number) => {
    const bucket = Math.max(0, Math.round((now - stamp) * 10));
    histogram.set(bucket, (histogram.get(bucket) ?? 0) + 1);
    events++;
  };

  let ready = 0;
  await new Promise<void>((resolve, reject) => {
    for (let i = 0; i < count; i++) {
      const socket = connect({ host: "127.0.0.1", port, rejectUnauthorized: false }, () => {
        socket.write(
          `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nAccept: application/json\r\n\r\n`,
        );
      });
      let now = 0;
      const read = stampReader(NEEDLE, {
        head: (error) => (error ? reject(error) : ++ready === count && resolve()),
        stamp: (stamp) => record(stamp, now),
      });
      socket.on("data", (chunk: Buffer) => {
        now = wallMs();
        reads++;
        read(chunk);
      });
      socket.on("end", () => ended++);
      socket.on("error", (e) => (ready < count ? reject(e) : undefined));
    }
  });
  process.send!({ ready: true });

  process.on("message", async (msg: { cmd: string; expected?: number; deadlineMs?: number }) => {
    if (msg.cmd === "reset") {
      histogram = new Map();
      events = 0;
      reads = 0;
      cpu = process.cpuUsage();
      process.send!({ ok: true });
    } else if (msg.cmd === "collect") {
      const deadline = performance.now() + (msg.deadlineMs ?? 3000);
      while (events < (msg.expected ?? 0) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      const used = process.cpuUsage(cpu);
      const collected: Collected = {
        histogram: [...histogram],
        events,
        ended,
        reads,
        cpuMs: (used.user + used.system) / 1000,
      };
      // Exiting here could reach the parent before the answer does: it says when.
      process.send!(collected);
    } else if (msg.cmd === "exit") {
      process.exit(0);
    }
  });
}

// Only as the forked child: the bench driver (children.ts, phases/watch.ts) imports the constants above.
if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
