/**
 * What every bench phase shares: forking and talking to child processes, HTTPS requests to a
 * child, autocannon, percentiles, number formatting and the table of results.
 */
import { type ChildProcess, fork } from "node:child_process";
import { Agent, request as httpsRequest } from "node:https";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { teamBytes } from "./objects.js";

/** run.js: children are forked as `run.js MODE ...` (children.ts). */
const RUN = fileURLToPath(new URL("./run.js", import.meta.url));
export const PATH = "/kubernetes/management/apis/management.platform/v1/clusters";

/** The counts of one run: --smoke, --quick or full (run.ts). */
export interface Counts {
  /** Seconds of each autocannon run. */
  dur: number;
  /**
   * --smoke: each maximum-rate run of the gateway and etcd phases makes this many requests
   * (rateRun), however long they take, instead of running `dur` seconds.
   */
  requests?: number;
  /** GETs over which the gateway phase measures CPU per GET. */
  cpuGets: number;
  list: number;
  page: number;
  watchers: number;
  wps: number;
  watchSec: number;
  /**
   * Seconds of measured PATCHes in the etcd phase's replica watch. Longer than the WATCH phase's
   * window: its target is a p99 at 200 writes/s, and 8 s (1,600 PATCHes) put the p99 at the 16th
   * slowest PATCH, so one stall of the host in the window decided it; 40 s gives 8,000 samples.
   */
  replicaSec: number;
  /** Seconds of unmeasured PATCHes before the etcd phase's replica watch (replica-watch-driver.ts). */
  warmSec: number;
  mem: number;
}

export type Row = (what: string, value: string, baseline: string, ratio: string) => void;

/** What every phase is given. */
export interface Bench {
  /** The run's temporary directory; every server child keeps its data in a directory under it. */
  dir: string;
  /**
   * More execArgv for the measured children (the servers, the bare baselines, the watch clients):
   * --cpu-prof and its directory when BENCH_CPU_PROF is set, else none. spawnChild() adds
   * --expose-gc and BENCH_NODE_ARGS to every child itself.
   */
  childExecArgv: string[];
  N: Counts;
  /** Every child started; those still running are killed when the run ends. */
  children: Child[];
  /** Adds a row to the table (and prints it as it comes). */
  row: Row;
}

/** What the phases measuring the shared server child (GET, CREATE, WATCH) are given. */
export interface ServerBench extends Bench {
  server: Child;
  /** The server's data directory: the bare baselines serve its TLS certificate. */
  dataDir: string;
  port: number;
  key: string;
}

export interface Child {
  proc: ChildProcess;
  ask<T = Record<string, unknown>>(msg: object): Promise<T>;
  first: Record<string, unknown>;
}

export async function spawnChild(
  args: string[],
  execArgv: string[] = [],
  script = RUN,
  hello?: object,
): Promise<Child> {
  const proc = fork(script, args, {
    // BENCH_NODE_ARGS: more node flags for every child (e.g. --trace-gc, which NODE_OPTIONS refuses).
    execArgv: ["--expose-gc", ...(process.env.BENCH_NODE_ARGS?.split(" ").filter(Boolean) ?? []), ...execArgv],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  if (hello) proc.send(hello);
  const next = () =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      // Each answer removes its exit listener: a long phase asks many times.
      const onExit = (code: number | null) => reject(new Error(`bench child exited (${code})`));
      proc.once("message", (m) => {
        proc.off("exit", onExit);
        resolve(m as Record<string, unknown>);
      });
      proc.once("exit", onExit);
    });
  const first = await next();
  return {
    proc,
    first,
    ask: async <T>(msg: object) => {
      const reply = next();
      proc.send(msg);
      return (await reply) as T;
    },
  };
}

export const agent = new Agent({ keepAlive: true, maxSockets: 64, rejectUnauthorized: false });

export function req(
  port: number,
  key: string,
  method: string,
  path: string,
  body?: string,
  contentType = "application/json",
): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const r = httpsRequest(
      {
        host: "127.0.0.1",
        port,
        method,
        path,
        agent,
        headers: { authorization: `Bearer ${key}`, ...(body ? { "content-type": contentType } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks) }));
      },
    );
    r.on("error", reject);
    r.end(body);
  });
}

/** CPU a server or bare child has used so far, ms (both answer {cmd:"cpu"} with process.cpuUsage()). */
export async function childCpuMs(child: Child): Promise<number> {
  const { cpu } = await child.ask<{ cpu: NodeJS.CpuUsage }>({ cmd: "cpu" });
  return (cpu.user + cpu.system) / 1000;
}

/** autocannon for `duration` seconds, 64 connections. */
export async function cannon(duration: number, opts: autocannon.Options): Promise<autocannon.Result> {
  return autocannon({ duration, connections: 64, ...opts });
}

/**
 * A maximum-rate run: `N.dur` seconds at 64 connections, or `N.requests` requests when set
 * (--smoke). A run of one second on a busy machine can end before the first answer (its first
 * second goes to 64 TLS handshakes, two per connection through a proxy), and autocannon then
 * reports 0 req/s for a server that works; a fixed number of requests all get their answers,
 * so a rate of 0 means that nothing answered.
 */
export function rateRun(N: Counts, opts: autocannon.Options): Promise<autocannon.Result> {
  return N.requests === undefined ? cannon(N.dur, opts) : autocannon({ connections: 64, amount: N.requests, ...opts });
}

/**
 * Answers per second of a run: all of them over the run's own length. autocannon's
 * `requests.average` is the mean of its per-second counts, the last of which covers part of a
 * second only when the run is of a fixed number of requests.
 */
export function perSecond(r: autocannon.Result): number {
  return r.requests.total / Math.max(r.duration, 1e-9);
}

/** `duration` seconds of Team CREATEs, 64 at a time, each with a fresh name `${namePrefix}${n}`. */
export function teamCreates(
  port: number,
  key: string,
  namePrefix: string,
): (duration: number) => Promise<autocannon.Result> {
  let seq = 0;
  return (duration) =>
    cannon(duration, {
      url: `https://127.0.0.1:${port}${PATH.replace("/clusters", "/teams")}`,
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      requests: [{ setupRequest: (r) => ({ ...r, body: teamBytes(`${namePrefix}${seq++}`).toString() }) }],
    });
}

export const pct = (xs: number[], p: number) => {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

/** The p-th percentile (ms) of a histogram of 0.1 ms buckets. */
export function histogramPct(histogram: Map<number, number>, count: number, p: number): number {
  if (count === 0) return Number.NaN;
  const rank = Math.min(count - 1, Math.floor((p / 100) * count));
  let seen = 0;
  for (const [bucket, n] of [...histogram].sort((a, b) => a[0] - b[0])) {
    seen += n;
    if (seen > rank) return bucket / 10;
  }
  return Number.NaN;
}

export const f = (x: number, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : "n/a");

/** The table's rows, and `row` to add one (printed to stderr as it comes). */
export function table(): { rows: [string, string, string, string][]; row: Row } {
  const rows: [string, string, string, string][] = [];
  const row = (what: string, value: string, baseline: string, ratio: string) => {
    rows.push([what, value, baseline, ratio]);
    console.error(`  ${what}: ${value} | ${baseline} | ${ratio}`);
  };
  return { rows, row };
}
