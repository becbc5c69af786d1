/**
 * A bench child process holding some of the WATCH phase's watches. Real watchers are spread over
 * many processes; holding all of them in the process that also sends the writes made the bench
 * measure its own event loop (TLS decryption and parsing for every watcher) as much as the
 * server. Each child parses its streams line by line and keeps a latency histogram (0.1 ms
 * buckets), which is small to send back however many events arrived.
 *
 * Protocol (IPC): argv = port, count, path; first message {key} → opens the watches and answers
 * {ready} once every response has its headers; {cmd:"reset"} clears the figures; {cmd:"collect",
 * expected, deadlineMs} answers {histogram, events, cpuMs} once `expected` events arrived or the
 * deadline passed.
 */
import { Agent, request } from "node:https";
import { fileURLToPath } from "node:url";

/** What the writer puts in every PATCH: the wall-clock ms at which it was sent. */
export const STAMP = "bench/t";
const NEEDLE = Buffer.from(`"${STAMP}":"`);
const NEWLINE = 0x0a;
const QUOTE = 0x22;

export interface Collected {
  /** [bucket (0.1 ms), count] pairs. */
  histogram: [number, number][];
  events: number;
  /** Watches that ended (a slow watcher is closed with a 410 ERROR event): they miss the rest. */
  ended: number;
  cpuMs: number;
}

/** Wall-clock ms with sub-ms precision, comparable across processes of one machine. */
export const wallMs = () => performance.timeOrigin + performance.now();

async function main(): Promise<void> {
  const [portArg, countArg, path] = process.argv.slice(2);
  const port = Number(portArg);
  const count = Number(countArg);
  const { key } = await new Promise<{ key: string }>((resolve) => process.once("message", resolve as never));
  const agent = new Agent({ keepAlive: false, maxSockets: count + 10, rejectUnauthorized: false });
  let histogram = new Map<number, number>();
  let events = 0;
  const ended = 0;
  let cpu = process.cpuUsage();

  const record = (line: Buffer, now: number) => {
    const at = line.indexOf(NEEDLE);
    if (at < 0) return;
    const from = at + NEEDLE.length;
    const to = line.indexOf(QUOTE, from);
    const bucket = Math.max(0, Math.round((now - Number(line.toString("latin1", from, to))) * 10));
    histogram.set(bucket, (histogram.get(bucket) ?? 0) + 1);
    events++;
  };

  let ready = 0;
  await new Promise<void>((resolve, reject) => {
    for (let i = 0; i < count; i++) {
      const r = request(
        { host: "127.0.0.1", port, path, agent, headers: { authorization: `Bearer ${key}` } },
        (res) => {
          if (++ready === count) resolve();
          // Events are newline-delimited; a chunk may end inside one, so the tail waits for the next.
          let carry: Buffer | undefined;
          res.on("data", (chunk: Buffer) => {
            const now = wallMs();
            const buf = carry ? Buffer.concat([carry, chunk]) : chunk;
            let start = 0;
            for (let nl = buf.indexOf(NEWLINE); nl >= 0; nl = buf.indexOf(NEWLINE, start)) {
              record(buf.subarray(start, nl), now);
              start = nl + 1;
            }
            carry = start < buf.length ? buf.subarray(start) : undefined;
          });
        },
      );
      r.on("error", (e) => (ready < count ? reject(e) : undefined));
      r.end();
    }
  });
  process.send!({ ready: true });

  process.on("message", async (msg: { cmd: string; expected?: number; deadlineMs?: number }) => {
    if (msg.cmd === "reset") {
      histogram = new Map();
      events = 0;
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
        cpuMs: (used.user + used.system) / 1000,
      };
      // The parent kills this process: exiting here could reach it before the answer does.
      process.send!(collected);
    }
  });
}

// Only as the forked child: run.ts imports the constants above.
if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
