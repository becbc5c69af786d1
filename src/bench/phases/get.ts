/** GET of one Cluster: the maximum rate (autocannon) and latency at half of it (paced-get.ts), beside a bare node:https server. */
import { fileURLToPath } from "node:url";
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
  const base = await spawnChild(["baseline", b.dataDir, one.body.toString()], b.cpuProf);
  b.children.push(base);
  const bport = base.first.port as number;
  const cpuBefore = await Promise.all([childCpuMs(b.server), childCpuMs(base)]);
  const readsBefore = await storageReads?.();
  const g = await cannon(N.dur, { url: `https://127.0.0.1:${port}${PATH}/get-me`, headers: auth });
  const cpuBetween = await Promise.all([childCpuMs(b.server), childCpuMs(base)]);
  const readsAfter = await storageReads?.();
  const gb = await cannon(N.dur, { url: `https://127.0.0.1:${bport}/` });
  const cpuAfter = await Promise.all([childCpuMs(b.server), childCpuMs(base)]);
  if (g.non2xx) throw new Error(`GET answered ${g.non2xx} non-2xx`);
  row(
    `${label}GET req/s (64 conns)`,
    f(g.requests.average, 0),
    f(gb.requests.average, 0),
    `${f((100 * g.requests.average) / gb.requests.average, 0)}%`,
  );
  // CPU per GET and the share of the run the server's thread was busy: below ~100% busy, the
  // server waited (on the store) rather than worked.
  const cpuUse = (ms: number, requests: number) =>
    `${f((1000 * ms) / Math.max(1, requests), 0)} µs; ${f((100 * ms) / (N.dur * 1000), 0)}%`;
  const reads =
    readsBefore === undefined || readsAfter === undefined
      ? ""
      : `; ${f((readsAfter - readsBefore) / Math.max(1, g.requests.total), 2)} store reads per GET`;
  row(
    `${label}GET server CPU per request; CPU busy share of the run`,
    cpuUse(cpuBetween[0] - cpuBefore[0], g.requests.total) + reads,
    cpuUse(cpuAfter[1] - cpuBetween[1], gb.requests.total),
    "",
  );
  row(
    `${label}GET p50/p99 ms at max rate`,
    `${g.latency.p50}/${g.latency.p99}`,
    `${gb.latency.p50}/${gb.latency.p99}`,
    "",
  );
  // Half the measured maximum, evenly paced (paced-get.ts says why not autocannon's rate). A
  // p99 at this load is mostly the machine's scheduling noise, which comes and goes within
  // seconds: three short runs, alternating with the baseline's, and the median run of each.
  const half = Math.floor(g.requests.average / 2);
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
