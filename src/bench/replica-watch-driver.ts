/**
 * A bench child process that drives the etcd phase's replica watch (phases/etcd.ts): it sends
 * PATCHes to replica A at a steady rate and reads a watch on replica A and one on replica B.
 *
 * It runs in a process of its own, started just before it is needed, because the bench's main
 * process had measured itself: after the earlier parts of the phase its heap held tens of MiB,
 * and one of its scavenges (128 ms, seen with --trace-gc) stopped the pacing timer; the PATCHes
 * due meanwhile then went out at once and queued on A, and their answers and watch events were
 * read late. Here the heap is a few MiB, and the figures say how late the sends were and how
 * long this process's own event loop was blocked, so a stall on the client side is visible
 * instead of being reported as the server's.
 *
 * Every delay is counted from when the PATCH was due (open loop, as paced-get.ts does): a send
 * that was late counts its lateness.
 *
 * Protocol (IPC): first message {port, portB, key, path, names, rate, total} → opens both watches
 * and answers {ready}; {cmd:"run"} sends the PATCHes and answers {answered} once every one is
 * answered; {cmd:"collect"} waits (bounded) until both watches saw every PATCH and answers
 * {onA, onB, lateMaxMs, loop}; then it exits.
 */
import { Agent, request } from "node:https";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { fileURLToPath } from "node:url";

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
}

export interface DriverResult {
  /** Per PATCH answered: ms from when it was due to its answer. */
  answered: number[];
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
const LOOP_RESOLUTION_MS = 5;

const agent = new Agent({ keepAlive: true, maxSockets: 64, rejectUnauthorized: false });

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
  process.send!({ ready: true });
  const answered: number[] = [];
  let lateMaxMs = 0;
  const loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  process.on("message", async (msg: { cmd: string }) => {
    if (msg.cmd === "run") {
      loop.enable();
      const start = performance.now() + 1;
      const sends: Promise<void>[] = [];
      for (let i = 0; i < setup.total; i++) {
        due[i] = start + (i * 1000) / setup.rate;
        const wait = due[i]! - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        lateMaxMs = Math.max(lateMaxMs, performance.now() - due[i]!);
        const body = JSON.stringify({ metadata: { annotations: { [DRIVER_STAMP]: String(i) } } });
        const name = setup.names[i % setup.names.length]!;
        sends.push(patch(setup, name, body).then(() => void answered.push(performance.now() - due[i]!)));
      }
      await Promise.all(sends);
      loop.disable();
      process.send!({ answered });
    } else if (msg.cmd === "collect") {
      for (let i = 0; i < 150 && (onA.length < setup.total || onB.length < setup.total); i++) {
        await new Promise((r) => setTimeout(r, 20));
      }
      const ms = (ns: number) => Math.max(0, ns / 1e6 - LOOP_RESOLUTION_MS);
      const result: Omit<DriverResult, "answered"> = {
        onA,
        onB,
        lateMaxMs,
        loop: { p50: ms(loop.percentile(50)), p99: ms(loop.percentile(99)), max: ms(loop.max) },
      };
      process.send!(result, () => process.exit(0));
    }
  });
}

function patch(setup: DriverSetup, name: string, body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const r = request(
      {
        host: "127.0.0.1",
        port: setup.port,
        method: "PATCH",
        path: `${setup.path}/${name}`,
        agent,
        headers: { authorization: `Bearer ${setup.key}`, "content-type": "application/merge-patch+json" },
      },
      (res) => {
        res.resume();
        res.on("end", () =>
          res.statusCode === 200 ? resolve() : reject(new Error(`PATCH answered ${res.statusCode}`)),
        );
      },
    );
    r.on("error", reject);
    r.end(body);
  });
}

/** A watch whose events' stamps are passed to `seen` as they arrive; resolves once it is open. */
function watchStamps(port: number, key: string, path: string, seen: (i: number) => void): Promise<void> {
  const needle = new RegExp(`"${DRIVER_STAMP}":"(\\d+)"`);
  return new Promise((resolve, reject) => {
    const r = request(
      { host: "127.0.0.1", port, path, rejectUnauthorized: false, headers: { authorization: `Bearer ${key}` } },
      (res) => {
        if (res.statusCode !== 200) reject(new Error(`watch answered ${res.statusCode}`));
        else resolve();
        let buffered = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          buffered += chunk;
          let nl = buffered.indexOf("\n");
          while (nl >= 0) {
            const stamp = needle.exec(buffered.slice(0, nl))?.[1];
            if (stamp !== undefined) seen(Number(stamp));
            buffered = buffered.slice(nl + 1);
            nl = buffered.indexOf("\n");
          }
        });
        res.on("error", () => {});
      },
    );
    r.on("error", reject);
    r.end();
  });
}

// Only as the forked child (phases/etcd.ts imports the types).
if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
