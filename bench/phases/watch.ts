/**
 * WATCH fan-out: N.watchers watches spread over client processes (watch-clients.ts) while
 * N.wps writes/s rotate over a few Clusters, beside a bare node:https server sending each event
 * to every open response.
 */
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { type Child, type Counts, f, histogramPct, PATH, pct, req, type ServerBench, spawnChild } from "../harness.js";
import { clusterBytes } from "../objects.js";
import { type Collected, STAMP, wallMs } from "../watch-clients.js";

const WATCH_CLIENT = fileURLToPath(new URL("../watch-clients.js", import.meta.url));
const MERGE_PATCH = "application/merge-patch+json";

export interface WatchOptions {
  /** Watch client processes (`--watch-procs`). */
  procs: number;
  /** How many objects the writes rotate over (`--watched`). */
  watched: number;
}

export async function benchWatch(b: ServerBench, opts: WatchOptions): Promise<void> {
  const { port, key, N, row, childExecArgv } = b;
  // The same clients against a bare node:https server that sends each event to every open
  // response as it comes: what this machine's TLS and the clients allow at all.
  const platform = await platformFanOut(b.server, port, key, opts.watched);
  // The bare server sends the watched object exactly as the platform does (status, managed
  // fields and all), after one write, so both put the same bytes on the wire per event.
  await platform.write(0, wallMs());
  const object = (await req(port, key, "GET", `${PATH}/watched-0`)).body.toString();
  const bareChild = await spawnChild(["watchbaseline", b.dataDir, object], childExecArgv);
  b.children.push(bareChild);
  const bare = await watchFanOut(bareFanOut(bareChild), N, opts.procs, childExecArgv);
  await bareChild.ask({ cmd: "stop" }).catch(() => {});
  const w = await watchFanOut(platform, N, opts.procs, childExecArgv);
  const inTime = (x: FanOut) =>
    `${x.events} of ${x.expected} events${x.ended ? `; ${x.ended} watches ended early` : ""}`;
  row(
    `WATCH ${N.watchers} watchers (${opts.procs} client processes), ${N.wps} writes/s: delivery p50/p99 ms`,
    `${f(w.p50)}/${f(w.p99)}`,
    `${f(bare.p50)}/${f(bare.p99)} (bare node:https, one write per event per watcher)`,
    "",
  );
  row("WATCH events delivered", inTime(w), inTime(bare), "");
  row("WATCH phase: the PATCHes' own latency p50/p99 ms", `${f(w.writeP50)}/${f(w.writeP99)}`, "", "");
  const cpu = (x: FanOut) =>
    `${f(x.serverCpuMs, 0)} (${f((1000 * x.serverCpuMs) / Math.max(1, x.events))}); ` +
    `${f(x.clientCpuMs, 0)} (${f(x.events / Math.max(1, x.reads))})`;
  row("WATCH CPU ms: server (per 1000 deliveries); watch clients (events per read)", cpu(w), cpu(bare), "");
}

interface FanOut {
  p50: number;
  p99: number;
  /** The writes' own latency (PATCH sent → response), p50 and p99. */
  writeP50: number;
  writeP99: number;
  events: number;
  expected: number;
  ended: number;
  reads: number;
  serverCpuMs: number;
  clientCpuMs: number;
}

/** What the watch clients watch, and how one write (an event for every watcher) is made. */
interface FanOutTarget {
  port: number;
  key: string;
  path: string;
  /** Makes write number `i`, carrying `stamp`; resolves with the HTTP status of the write. */
  write(i: number, stamp: number): Promise<number>;
  cpuMs(): Promise<number>;
}

/** The platform: Clusters watched, merge PATCHes as the writes. */
async function platformFanOut(server: Child, port: number, key: string, watched: number): Promise<FanOutTarget> {
  // Writes rotate over a few objects: 200 merge PATCHes/s of ONE object mostly conflict with each
  // other once the server lags (each retries up to 8 times, then fails), which measures write
  // contention instead of fan-out. `--watched=1` measures that case.
  for (let i = 0; i < watched; i++) await req(port, key, "POST", PATH, clusterBytes(`watched-${i}`).toString());
  const rv = JSON.parse((await req(port, key, "GET", `${PATH}?limit=1`)).body.toString()).metadata.resourceVersion;
  return {
    port,
    key,
    path: `${PATH}?watch=1&resourceVersion=${rv}`,
    write: async (i, stamp) => {
      const body = JSON.stringify({ metadata: { annotations: { [STAMP]: String(stamp) } } });
      return (await req(port, key, "PATCH", `${PATH}/watched-${i % watched}`, body, MERGE_PATCH)).status;
    },
    cpuMs: async () => (await server.ask<{ cpuMs: number }>({ cmd: "cpu" })).cpuMs,
  };
}

/** The bare baseline (watchBaselineChild): every write is one event, sent to every open response. */
function bareFanOut(base: Child): FanOutTarget {
  return {
    port: base.first.port as number,
    key: "",
    path: "/watch",
    write: async (_i, stamp) => {
      base.proc.send({ cmd: "event", stamp });
      return 200;
    },
    cpuMs: async () => (await base.ask<{ cpuMs: number }>({ cmd: "cpu" })).cpuMs,
  };
}

async function watchFanOut(target: FanOutTarget, N: Counts, procs: number, execArgv: string[]): Promise<FanOut> {
  const { port, key, path } = target;
  const clients: Child[] = [];
  try {
    const counts = Array.from(
      { length: procs },
      (_, i) => Math.floor(N.watchers / procs) + (i < N.watchers % procs ? 1 : 0),
    );
    const spawning = counts.map((n) => spawnChild([String(port), String(n), path], execArgv, WATCH_CLIENT, { key }));
    // Children that did start are killed below even when another failed.
    for (const p of spawning) p.then((c) => clients.push(c)).catch(() => {});
    const live = await Promise.all(spawning);
    // Writes at the measured rate, with the writer's wall-clock stamp in every object.
    const writeAtRate = async (seconds: number) => {
      const total = Math.round(N.wps * seconds);
      const interval = 1000 / N.wps;
      const start = performance.now();
      const writes: Promise<{ status: number; ms: number }>[] = [];
      for (let i = 0; i < total; i++) {
        const wait = start + i * interval - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        const sent = wallMs();
        writes.push(target.write(i, sent).then((status) => ({ status, ms: wallMs() - sent })));
      }
      const done = await Promise.all(writes);
      const failed = done.filter((r) => r.status >= 300).length;
      if (failed) console.error(`  (${failed} of ${total} writes failed: conflicts)`);
      // Part of each delivery's latency is the write's own (until its response).
      return { total, writeMs: done.map((r) => r.ms) };
    };
    const deliveries = (writes: number, deadlineMs: number) =>
      Promise.all(live.map((c, i) => c.ask<Collected>({ cmd: "collect", expected: writes * counts[i]!, deadlineMs })));
    // A second of unmeasured writes first: the server (and the clients) are freshly started, and
    // the first second of a cold process (code not yet optimised) is not the steady state.
    await deliveries((await writeAtRate(1)).total, 10_000);
    await Promise.all(live.map((c) => c.ask({ cmd: "reset" })));
    const cpu0 = await target.cpuMs();
    const { total, writeMs } = await writeAtRate(N.watchSec);
    const collected = await deliveries(total, 3000);
    const cpu1 = await target.cpuMs();
    const histogram = new Map<number, number>();
    let events = 0;
    let ended = 0;
    let reads = 0;
    let clientCpuMs = 0;
    for (const r of collected) {
      for (const [bucket, n] of r.histogram) histogram.set(bucket, (histogram.get(bucket) ?? 0) + n);
      events += r.events;
      ended += r.ended;
      reads += r.reads;
      clientCpuMs += r.cpuMs;
    }
    return {
      p50: histogramPct(histogram, events, 50),
      p99: histogramPct(histogram, events, 99),
      writeP50: pct(writeMs, 50),
      writeP99: pct(writeMs, 99),
      events,
      expected: total * N.watchers,
      ended,
      reads,
      serverCpuMs: cpu1 - cpu0,
      clientCpuMs,
    };
  } finally {
    // Asked to exit (not killed), so that a --cpu-prof profile is written.
    await Promise.all(
      clients.map(async (c) => {
        if (c.proc.exitCode !== null) return;
        const exited = once(c.proc, "exit");
        c.proc.send({ cmd: "exit" });
        const timer = setTimeout(() => c.proc.kill(), 10_000);
        await exited;
        clearTimeout(timer);
      }),
    );
  }
}
