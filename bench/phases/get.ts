/** GET of one Cluster: the maximum rate (autocannon) and latency at half of it (paced-get.ts), beside a bare node:https server. */
import { fileURLToPath } from "node:url";
import type autocannon from "autocannon";
import { cannon, childCpuMs, f, histogramPct, PATH, req, type ServerBench, spawnChild } from "../harness.js";
import { clusterBytes } from "../objects.js";
import type { PacedResult } from "../paced-get.js";

const PACED_GET = fileURLToPath(new URL("../paced-get.js", import.meta.url));

/**
 * `label` prefixes every row (the etcd phase runs the same measurement on etcd, with
 * `storageReads`: how many reads the store has served so far, to show what each GET costs it).
 */
export async function benchGet(b: ServerBench, label = "", storageReads?: () => Promise<number>): Promise<void> {
  const { port, key, N, row } = b;
  const auth = { authorization: `Bearer ${key}` };
  const created = await req(port, key, "POST", PATH, clusterBytes("get-me").toString());
  if (created.status !== 201) throw new Error(`create failed: ${created.status} ${created.body}`);
  const one = await req(port, key, "GET", `${PATH}/get-me`);
  const base = await spawnChild(["baseline", b.dataDir, one.body.toString()], b.childExecArgv);
  b.children.push(base);
  const bport = base.first.port as number;
  const platformRun = { url: `https://127.0.0.1:${port}${PATH}/get-me`, headers: auth };
  const bareRun = { url: `https://127.0.0.1:${bport}/` };
  // Both warmed up alike (JIT, TLS session setup, the caches) before anything is counted; a
  // --smoke run (N.requests set) only proves the phase works, and measures nothing worth it.
  if (N.requests === undefined) {
    await cannon(1, platformRun);
    await cannon(1, bareRun);
  }
  // Platform, bare, bare, platform: the machine's speed drifts within seconds (other tenants);
  // in this order a steady drift weighs on both sides alike, where one run each charged it to one.
  const g = new Segments();
  const gb = new Segments();
  for (const side of ["platform", "bare", "bare", "platform"] as const) {
    const server = side === "platform" ? b.server : base;
    const cpuBefore = await childCpuMs(server);
    const readsBefore = side === "platform" ? await storageReads?.() : undefined;
    const result = await cannon(N.dur / 2, side === "platform" ? platformRun : bareRun);
    const cpuMs = (await childCpuMs(server)) - cpuBefore;
    const readsAfter = side === "platform" ? await storageReads?.() : undefined;
    const reads = readsBefore === undefined || readsAfter === undefined ? undefined : readsAfter - readsBefore;
    (side === "platform" ? g : gb).add(result, N.dur / 2, cpuMs, reads);
  }
  if (g.non2xx) throw new Error(`GET answered ${g.non2xx} non-2xx`);
  row(
    `${label}GET req/s (64 conns; platform, bare, bare, platform)`,
    f(g.rate, 0),
    f(gb.rate, 0),
    `${f((100 * g.rate) / gb.rate, 0)}%`,
  );
  // CPU per GET and the share of the run the server's thread was busy: below ~100% busy, the
  // server waited (on the store) rather than worked.
  const cpuUse = (s: Segments) =>
    `${f((1000 * s.cpuMs) / Math.max(1, s.requests), 0)} µs; ${f((100 * s.cpuMs) / (s.seconds * 1000), 0)}%`;
  const reads = storageReads === undefined ? "" : `; ${f(g.reads / Math.max(1, g.requests), 2)} store reads per GET`;
  row(`${label}GET server CPU per request; CPU busy share of the run`, cpuUse(g) + reads, cpuUse(gb), "");
  row(`${label}GET p50/p99 ms at max rate`, g.latency(), gb.latency(), "");
  // Half the measured maximum, evenly paced (paced-get.ts says why not autocannon's rate). A
  // p99 at this load is mostly the machine's scheduling noise, which comes and goes within
  // seconds: three short runs, alternating with the baseline's, and the median run of each.
  const half = Math.floor(g.rate / 2);
  const runs: { platform: PacedResult[]; bare: PacedResult[] } = { platform: [], bare: [] };
  for (let i = 0; i < 3; i++) {
    runs.platform.push(await pacedGet(N.dur, port, `${PATH}/get-me`, key, half));
    runs.bare.push(await pacedGet(N.dur, bport, "/", "", half));
  }
  const latency = (rs: PacedResult[]) => {
    const p = (r: PacedResult, q: number) => histogramPct(new Map(r.histogram), r.ok, q);
    const byP99 = [...rs].sort((a, b) => p(a, 99) - p(b, 99));
    const median = byP99[1]!;
    const failed = rs.reduce((n, r) => n + r.failed, 0);
    return (
      `${f(p(median, 50))}/${f(p(median, 99))} (p99 of the runs: ${byP99.map((r) => f(p(r, 99))).join(", ")})` +
      (failed ? ` (${failed} failed)` : "")
    );
  };
  row(
    `${label}GET p50/p99 ms at ${half} req/s (half max, paced; median of 3 runs)`,
    latency(runs.platform),
    latency(runs.bare),
    "",
  );
  base.proc.kill();
}

/** GETs at a steady `rate` from a child process (paced-get.ts), 64 connections, half of `dur` seconds. */
export async function pacedGet(
  dur: number,
  port: number,
  path: string,
  key: string,
  rate: number,
): Promise<PacedResult> {
  const ms = Math.max(1000, (dur * 1000) / 2);
  const c = await spawnChild([String(port), path, String(rate), String(ms), "64"], [], PACED_GET, { key });
  return c.first as unknown as PacedResult;
}

/** The measured runs of one side, added up. */
class Segments {
  requests = 0;
  seconds = 0;
  cpuMs = 0;
  reads = 0;
  non2xx = 0;
  private readonly p50: number[] = [];
  private readonly p99: number[] = [];

  add(r: autocannon.Result, seconds: number, cpuMs: number, reads: number | undefined): void {
    this.requests += r.requests.total;
    this.seconds += seconds;
    this.cpuMs += cpuMs;
    this.reads += reads ?? 0;
    this.non2xx += r.non2xx;
    this.p50.push(r.latency.p50);
    this.p99.push(r.latency.p99);
  }

  get rate(): number {
    return this.requests / Math.max(this.seconds, 1e-9);
  }

  /** p50/p99 of each run, in order. */
  latency(): string {
    return this.p50.map((p50, i) => `${p50}/${this.p99[i]}`).join(", ");
  }
}
