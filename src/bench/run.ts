/**
 * `npm run bench [-- --quick]`: every figure beside a baseline measured in the same run.
 * The server runs in a child process (so the load generator does not share its event loop);
 * so does the bare node:https baseline. See docs/performance.md.
 */
import { type ChildProcess, fork } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Agent, createServer, request as httpsRequest } from "node:https";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import Database from "better-sqlite3";
import { loadOrCreateServerTls } from "../crypto/certificates.js";
import { TLS_PREFERENCES } from "../crypto/tls-preferences.js";
import type { CachedStorage } from "../registry/cache/cached-storage.js";
import { startServer } from "../server/server.js";
import type { PacedResult } from "./paced-get.js";
import { type Collected, STAMP, wallMs } from "./watch-clients.js";

const SELF = fileURLToPath(import.meta.url);
const WATCH_CLIENT = fileURLToPath(new URL("./watch-clients.js", import.meta.url));
const PACED_GET = fileURLToPath(new URL("./paced-get.js", import.meta.url));
const MERGE_PATCH = "application/merge-patch+json";
const PATH = "/kubernetes/management/apis/management.platform/v1/clusters";
const quick = process.argv.includes("--quick");
const smoke = process.argv.includes("--smoke");
/** `--only=get,create,list,watch,memory` runs just those phases (for profiling one at a time). */
const onlyArg = process.argv.find((a) => a.startsWith("--only="));
const only = onlyArg ? new Set(onlyArg.slice("--only=".length).split(",")) : undefined;
const wants = (phase: string) => only === undefined || only.has(phase);
const N = smoke
  ? { dur: 1, list: 50, page: 10, watchers: 5, wps: 20, watchSec: 1, mem: 200 }
  : quick
    ? { dur: 3, list: 10_000, page: 500, watchers: 200, wps: 200, watchSec: 3, mem: 20_000 }
    : { dur: 8, list: 10_000, page: 500, watchers: 1000, wps: 200, watchSec: 8, mem: 100_000 };
/** `--watchers=N`: another watcher count for the WATCH phase (to find where it stops keeping up). */
const watchersArg = process.argv.find((a) => a.startsWith("--watchers="));
if (watchersArg) N.watchers = Number(watchersArg.slice("--watchers=".length));

/** `--watch-procs=N`: watch client processes (real watchers are spread over processes; see watch-clients.ts). */
const watchProcsArg = process.argv.find((a) => a.startsWith("--watch-procs="));
const WATCH_PROCS = Math.min(N.watchers, Number(watchProcsArg?.slice("--watch-procs=".length) ?? 4));
/** `--watched=N`: how many objects the WATCH phase's writes rotate over. */
const WATCHED = Number(process.argv.find((a) => a.startsWith("--watched="))?.slice("--watched=".length) ?? 10);

/** A Cluster of about 1 KiB as the API stores it (no resourceVersion). */
function clusterBytes(name: string): Buffer {
  return Buffer.from(
    JSON.stringify({
      apiVersion: "management.platform/v1",
      kind: "Cluster",
      metadata: {
        name,
        uid: `00000000-0000-4000-8000-${name.padStart(12, "0").slice(-12)}`,
        creationTimestamp: "2025-01-01T00:00:00Z",
        generation: 1,
        annotations: { "bench/pad": "x".repeat(700) },
      },
      spec: { displayName: name, config: { secretName: `${name}-kubeconfig`, secretNamespace: "platform" } },
      status: {},
    }),
  );
}

/** A Team of about 1 KiB, as a client sends it. */
function teamBytes(name: string): Buffer {
  return Buffer.from(
    JSON.stringify({
      apiVersion: "management.platform/v1",
      kind: "Team",
      metadata: { name, annotations: { "bench/pad": "x".repeat(800) } },
      spec: { displayName: name },
    }),
  );
}

/** A Team of about 1 KiB as the API stores it (no resourceVersion). */
function storedTeamBytes(name: string): Buffer {
  const obj = JSON.parse(clusterBytes(name).toString());
  return Buffer.from(JSON.stringify({ ...obj, kind: "Team", spec: { displayName: name } }));
}

// ---------------------------------------------------------------- child: the server
async function serverChild(dataDir: string): Promise<void> {
  const t0 = performance.now();
  const server = await startServer({ host: "127.0.0.1", port: 0, dataDir, logLevel: "error" });
  const started = performance.now() - t0;
  const storage = server.storage as CachedStorage;
  process.on("message", async (msg: { cmd: string; n?: number; from?: number; kind?: string }) => {
    if (msg.cmd === "fill") {
      let bytes = 0;
      for (let i = msg.from ?? 0; i < (msg.from ?? 0) + msg.n!; i += 1000) {
        const ops = [];
        for (let j = i; j < Math.min(i + 1000, (msg.from ?? 0) + msg.n!); j++) {
          const value = msg.kind === "teams" ? storedTeamBytes(`c${j}`) : clusterBytes(`c${j}`);
          bytes += value.length;
          ops.push({
            type: "create" as const,
            key: `/registry/management.platform/${msg.kind ?? "clusters"}/c${j}`,
            value,
          });
        }
        await storage.txn(ops);
      }
      process.send!({ ok: true, bytes });
    } else if (msg.cmd === "prime") {
      const t = performance.now();
      await storage.list(`/registry/management.platform/${msg.kind ?? "clusters"}/`, { limit: 1 });
      globalThis.gc?.();
      process.send!({ ok: true, primeMs: performance.now() - t, rss: process.memoryUsage().rss });
    } else if (msg.cmd === "cpu") {
      // CPU time and group commits so far: how much server work one request costs.
      const inner = storage.inner as { commits?: number };
      const used = process.cpuUsage();
      process.send!({ ok: true, cpu: used, cpuMs: (used.user + used.system) / 1000, commits: inner.commits ?? 0 });
    } else if (msg.cmd === "settle") {
      // The controllers react to a fill (cluster-health writes every new Cluster's status):
      // measuring while they run would measure them too. Settled: no write for half a second.
      let last = await storage.currentRevision();
      for (let i = 0; i < 240; i++) {
        await new Promise((r) => setTimeout(r, 500));
        const now = await storage.currentRevision();
        if (now === last) break;
        last = now;
      }
      process.send!({ ok: true });
    } else if (msg.cmd === "revision") {
      process.send!({ ok: true, revision: await storage.currentRevision() });
    } else if (msg.cmd === "rss") {
      globalThis.gc?.();
      process.send!({ ok: true, rss: process.memoryUsage().rss });
    } else if (msg.cmd === "stop") {
      await server.close();
      process.exit(0);
    }
  });
  process.send!({ url: server.url, port: server.port, key: server.adminKey, startedMs: started });
}

/** A bare node:https server answering every request with `body` (`@file`: that file's bytes). */
async function baselineChild(dataDir: string, body: string): Promise<void> {
  const tls = await loadOrCreateServerTls(dataDir);
  const payload = body.startsWith("@") ? readFileSync(body.slice(1)) : Buffer.from(body);
  // Exit (not die) on kill(), so that a --cpu-prof profile is written.
  process.on("SIGTERM", () => process.exit(0));
  const srv = createServer({ key: tls.keyPem, cert: tls.certPem, ...TLS_PREFERENCES }, (_req, res) => {
    res.writeHead(200, { "content-type": "application/json", "content-length": payload.length });
    res.end(payload);
  });
  srv.listen(0, "127.0.0.1", () => {
    const addr = srv.address() as { port: number };
    process.send!({ port: addr.port });
  });
}

/**
 * A bare node:https watch server: every request gets a chunked 200 that stays open; each
 * {cmd:"event", stamp} from the driver becomes one watch event (`object`, the platform's watched
 * Cluster as it serves it, with the stamp in its annotation) written to every open response,
 * one res.write each.
 */
async function watchBaselineChild(dataDir: string, object: string): Promise<void> {
  const tls = await loadOrCreateServerTls(dataDir);
  const open = new Set<import("node:http").ServerResponse>();
  const srv = createServer({ key: tls.keyPem, cert: tls.certPem, ...TLS_PREFERENCES }, (req, res) => {
    res.writeHead(200, { "content-type": "application/json", "transfer-encoding": "chunked" });
    res.flushHeaders();
    open.add(res);
    req.on("close", () => open.delete(res));
  });
  const cluster = JSON.parse(object);
  process.on("message", (msg: { cmd: string; stamp?: number }) => {
    if (msg.cmd === "event") {
      cluster.metadata.annotations = { ...(cluster.metadata.annotations ?? {}), [STAMP]: String(msg.stamp) };
      const frame = Buffer.from(`${JSON.stringify({ type: "MODIFIED", object: cluster })}\n`);
      for (const res of open) res.write(frame);
    } else if (msg.cmd === "cpu") {
      const used = process.cpuUsage();
      process.send!({ cpuMs: (used.user + used.system) / 1000 });
    } else if (msg.cmd === "stop") {
      for (const res of open) res.end();
      srv.close();
      process.send!({ ok: true }, () => process.exit(0));
    }
  });
  srv.listen(0, "127.0.0.1", () => process.send!({ port: (srv.address() as { port: number }).port }));
}

// ---------------------------------------------------------------- driver helpers
interface Child {
  proc: ChildProcess;
  ask<T = Record<string, unknown>>(msg: object): Promise<T>;
  first: Record<string, unknown>;
}

async function spawnChild(args: string[], execArgv: string[] = [], script = SELF, hello?: object): Promise<Child> {
  const proc = fork(script, args, {
    execArgv: ["--expose-gc", ...execArgv],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  if (hello) proc.send(hello);
  const next = () =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      proc.once("message", (m) => resolve(m as Record<string, unknown>));
      proc.once("exit", (code) => reject(new Error(`bench child exited (${code})`)));
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

const agent = new Agent({ keepAlive: true, maxSockets: 64, rejectUnauthorized: false });

function req(
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

/** GETs at a steady `rate` from a child process (paced-get.ts), 64 connections, half of N.dur seconds. */
async function pacedGet(port: number, path: string, key: string, rate: number): Promise<PacedResult> {
  const ms = Math.max(1000, (N.dur * 1000) / 2);
  const c = await spawnChild([String(port), path, String(rate), String(ms), "64"], [], PACED_GET, { key });
  return c.first as unknown as PacedResult;
}

async function cannon(opts: autocannon.Options): Promise<autocannon.Result> {
  return autocannon({ duration: N.dur, connections: 64, ...opts });
}

const pct = (xs: number[], p: number) => {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const f = (x: number, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : "n/a");
const rows: [string, string, string, string][] = [];
const row = (what: string, value: string, baseline: string, ratio: string) => {
  rows.push([what, value, baseline, ratio]);
  console.error(`  ${what}: ${value} | ${baseline} | ${ratio}`);
};

// ---------------------------------------------------------------- driver
async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "platform-bench-"));
  const cpuProf = process.env.BENCH_CPU_PROF ? [`--cpu-prof`, `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const children: Child[] = [];
  try {
    console.error(
      `node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? "?"})${quick ? ", --quick" : ""}`,
    );
    const server = await spawnChild(["server", join(dir, "a")], cpuProf);
    children.push(server);
    const port = server.first.port as number;
    const key = server.first.key as string;
    const auth = { authorization: `Bearer ${key}` };

    if (wants("get")) {
      // ---- GET
      const created = await req(port, key, "POST", PATH, clusterBytes("get-me").toString());
      if (created.status !== 201) throw new Error(`create failed: ${created.status} ${created.body}`);
      const one = await req(port, key, "GET", `${PATH}/get-me`);
      const base = await spawnChild(["baseline", join(dir, "a"), one.body.toString()], cpuProf);
      children.push(base);
      const bport = base.first.port as number;
      const g = await cannon({ url: `https://127.0.0.1:${port}${PATH}/get-me`, headers: auth });
      const gb = await cannon({ url: `https://127.0.0.1:${bport}/` });
      if (g.non2xx) throw new Error(`GET answered ${g.non2xx} non-2xx`);
      row(
        "GET req/s (64 conns)",
        f(g.requests.average, 0),
        f(gb.requests.average, 0),
        `${f((100 * g.requests.average) / gb.requests.average, 0)}%`,
      );
      row("GET p50/p99 ms at max rate", `${g.latency.p50}/${g.latency.p99}`, `${gb.latency.p50}/${gb.latency.p99}`, "");
      // Half the measured maximum, evenly paced (paced-get.ts says why not autocannon's rate). A
      // p99 at this load is mostly the machine's scheduling noise, which comes and goes within
      // seconds: three short runs, alternating with the baseline's, and the median run of each.
      const half = Math.floor(g.requests.average / 2);
      const runs: { platform: PacedResult[]; bare: PacedResult[] } = { platform: [], bare: [] };
      for (let i = 0; i < 3; i++) {
        runs.platform.push(await pacedGet(port, `${PATH}/get-me`, key, half));
        runs.bare.push(await pacedGet(bport, "/", "", half));
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
        `GET p50/p99 ms at ${half} req/s (half max, paced; median of 3 runs)`,
        latency(runs.platform),
        latency(runs.bare),
        "",
      );
      base.proc.kill();
    }
    if (wants("create")) {
      // ---- CREATE: Teams take the plain write path; each new Cluster also gets its status written
      // by the health controller (two writes per create), as it would in production.
      const rawRate = rawSqliteInserts(join(dir, "raw.db"), clusterBytes("k123456"), 64, N.dur * 1000);
      for (const kind of ["teams", "clusters"] as const) {
        let seq = 0;
        const bytes = kind === "teams" ? teamBytes : clusterBytes;
        const creates = (duration: number) =>
          cannon({
            url: `https://127.0.0.1:${port}${PATH.replace("/clusters", `/${kind}`)}`,
            method: "POST",
            headers: { ...auth, "content-type": "application/json" },
            requests: [{ setupRequest: (r) => ({ ...r, body: bytes(`k${seq++}`).toString() }) }],
            duration,
          });
        // A second unmeasured first: a cold process's first second (JIT) is not its steady state.
        await creates(1);
        const before = await server.ask<{ cpu: NodeJS.CpuUsage; commits: number }>({ cmd: "cpu" });
        const c = await creates(N.dur);
        const after = await server.ask<{ cpu: NodeJS.CpuUsage; commits: number }>({ cmd: "cpu" });
        if (c.non2xx) throw new Error(`CREATE ${kind} answered ${c.non2xx} non-2xx`);
        const okCreates = c["2xx"] / N.dur;
        row(
          `CREATE ${kind}/s (64 clients)`,
          f(okCreates, 0),
          `${f(rawRate, 0)} (raw SQLite)`,
          `${f((100 * okCreates) / rawRate, 0)}%`,
        );
        const cpuMs = (after.cpu.user + after.cpu.system - before.cpu.user - before.cpu.system) / 1000;
        row(
          `CREATE ${kind}: server CPU per object; writes per commit`,
          `${f((1000 * cpuMs) / Math.max(1, c["2xx"]), 0)} µs; ${f(c["2xx"] / Math.max(1, after.commits - before.commits))}`,
          "",
          "",
        );
      }
    }
    if (wants("list")) {
      // ---- LIST 10k
      const d = await spawnChild(["server", join(dir, "b")], cpuProf);
      children.push(d);
      const lport = d.first.port as number;
      const lkey = d.first.key as string;
      const empty = await d.ask<{ revision: number }>({ cmd: "revision" });
      await d.ask({ cmd: "fill", n: N.list });
      await d.ask({ cmd: "settle" });
      // One revision per created object; the rest are the controllers' (Cluster status).
      const reacted = (await d.ask<{ revision: number }>({ cmd: "revision" })).revision - empty.revision - N.list;
      // The first request also warms up (JIT, the caller's key activity record).
      const body = (await req(lport, lkey, "GET", PATH)).body;
      // The same bytes from a bare node:https server, fetched the same way and interleaved with
      // the real ones (the machine's noise hits both): the transport's share of the figure.
      const bodyFile = join(dir, "list-body.json");
      writeFileSync(bodyFile, body);
      const base = await spawnChild(["baseline", join(dir, "b"), `@${bodyFile}`]);
      children.push(base);
      const before = await d.ask<{ revision: number }>({ cmd: "revision" });
      const whole: number[] = [];
      const bare: number[] = [];
      for (let i = 0; i < 15; i++) {
        let t = performance.now();
        await req(lport, lkey, "GET", PATH);
        whole.push(performance.now() - t);
        t = performance.now();
        await req(base.first.port as number, "", "GET", "/");
        bare.push(performance.now() - t);
      }
      base.proc.kill();
      const paged: number[] = [];
      const pages: number[] = [];
      for (let i = 0; i < 3; i++) {
        const t = performance.now();
        let cont = "";
        for (let p = 0; p < 1000; p++) {
          const tp = performance.now();
          const r = await req(
            lport,
            lkey,
            "GET",
            `${PATH}?limit=${N.page}${cont ? `&continue=${encodeURIComponent(cont)}` : ""}`,
          );
          pages.push(performance.now() - tp);
          cont = continueOf(r.body);
          if (!cont) break;
        }
        paged.push(performance.now() - t);
      }
      const after = await d.ask<{ revision: number }>({ cmd: "revision" });
      // What a client that decodes the list pays on top (not part of the figures above).
      const tp = performance.now();
      JSON.parse(body.toString("utf8"));
      const parseMs = performance.now() - tp;
      const rawList = rawSqliteList(join(dir, "b", "platform.db"));
      const quiet = after.revision === before.revision ? "" : ` (${after.revision - before.revision} writes during it)`;
      row(
        `LIST ${N.list} (${f(body.length / 1048576)} MiB) ms, median${quiet}`,
        f(pct(whole, 50)),
        `${f(pct(bare, 50))} (bare node:https, same bytes); ${f(rawList)} (SQLite read alone)`,
        `${f((100 * pct(bare, 50)) / pct(whole, 50), 0)}%`,
      );
      row(
        `LIST in pages of ${N.page}: ms per page p50/p99; whole walk`,
        `${f(pct(pages, 50))}/${f(pct(pages, 99))}; ${f(pct(paged, 50))}`,
        `client JSON.parse of the whole list: ${f(parseMs)} ms; measured after ${reacted} controller writes settled`,
        "",
      );
      await d.ask({ cmd: "stop" }).catch(() => {});
    }
    if (wants("watch")) {
      // ---- WATCH fan-out
      // The same clients against a bare node:https server that sends each event to every open
      // response as it comes: what this machine's TLS and the clients allow at all.
      const platform = await platformFanOut(server, port, key);
      // The bare server sends the watched object exactly as the platform does (status, managed
      // fields and all), after one write, so both put the same bytes on the wire per event.
      await platform.write(0, wallMs());
      const object = (await req(port, key, "GET", `${PATH}/watched-0`)).body.toString();
      const bareChild = await spawnChild(["watchbaseline", join(dir, "a"), object], cpuProf);
      children.push(bareChild);
      const bare = await watchFanOut(bareFanOut(bareChild), cpuProf);
      await bareChild.ask({ cmd: "stop" }).catch(() => {});
      const w = await watchFanOut(platform, cpuProf);
      const inTime = (x: FanOut) =>
        `${x.events} of ${x.expected} events${x.ended ? `; ${x.ended} watches ended early` : ""}`;
      row(
        `WATCH ${N.watchers} watchers (${WATCH_PROCS} client processes), ${N.wps} writes/s: delivery p50/p99 ms`,
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
    await server.ask({ cmd: "stop" }).catch(() => {});

    if (wants("memory")) {
      // ---- Memory and cold start
      const empty = await spawnChild(["server", join(dir, "empty")]);
      children.push(empty);
      const emptyRss = (await empty.ask<{ rss: number }>({ cmd: "prime" })).rss;
      await empty.ask({ cmd: "stop" }).catch(() => {});
      const m = await spawnChild(["server", join(dir, "m")]);
      children.push(m);
      // Teams: no controller writes back to them, so what is measured is what the server holds.
      const filled = await m.ask<{ bytes: number }>({ cmd: "fill", n: N.mem, kind: "teams" });
      await m.ask({ cmd: "stop" }).catch(() => {});
      const t = performance.now();
      const cold = await spawnChild(["server", join(dir, "m")]);
      children.push(cold);
      const listening = performance.now() - t;
      const primed = await cold.ask<{ primeMs: number; rss: number }>({ cmd: "prime", kind: "teams" });
      const extra = primed.rss - emptyRss;
      row(
        `RSS with ${N.mem} objects (${f(filled.bytes / 1048576)} MiB serialized)`,
        `${f(primed.rss / 1048576)} MiB`,
        `${f(emptyRss / 1048576)} MiB empty`,
        `${f(extra / filled.bytes, 2)}x above base`,
      );
      row(
        `Cold start with ${N.mem} objects: process→listening; +cache filled`,
        `${f(listening, 0)} ms; +${f(primed.primeMs, 0)} ms`,
        "",
        "",
      );
      await cold.ask({ cmd: "stop" }).catch(() => {});
    }
    console.log(
      `\nnode ${process.version}, ${cpus().length} cores, ${cpus()[0]?.model ?? "?"}${quick ? " (--quick)" : ""}\n`,
    );
    console.log("| measure | platform | baseline | ratio |\n|---|---|---|---|");
    for (const r of rows) console.log(`| ${r.join(" | ")} |`);
  } finally {
    for (const c of children) if (c.proc.exitCode === null) c.proc.kill();
    agent.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Same bytes, same durability (WAL, synchronous=FULL), batched as the group commit batches: `batch` concurrent writers. */
function rawSqliteInserts(file: string, value: Buffer, batch: number, ms: number): number {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  db.exec("CREATE TABLE kv (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT, value BLOB)");
  const ins = db.prepare("INSERT INTO kv (name, value) VALUES (?, ?)");
  const many = db.transaction((from: number) => {
    for (let i = 0; i < batch; i++) ins.run(`/registry/x/${from + i}`, value);
  });
  let n = 0;
  const end = performance.now() + ms;
  while (performance.now() < end) {
    many(n);
    n += batch;
  }
  db.close();
  return n / (ms / 1000);
}

/** metadata.continue of a list body, read from the envelope before `"items"` (no parse of the items). */
function continueOf(body: Buffer): string {
  const head = body.subarray(0, body.indexOf('"items":')).toString("utf8");
  return /"continue":"([^"]*)"/.exec(head)?.[1] ?? "";
}

function rawSqliteList(file: string): number {
  const db = new Database(file, { readonly: true });
  const t = performance.now();
  db.prepare("SELECT name, value FROM kv WHERE name >= ? AND name < ?").all(
    "/registry/management.platform/clusters/",
    "/registry/management.platform/clusters0",
  );
  const ms = performance.now() - t;
  db.close();
  return ms;
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
async function platformFanOut(server: Child, port: number, key: string): Promise<FanOutTarget> {
  // Writes rotate over a few objects: 200 merge PATCHes/s of ONE object mostly conflict with each
  // other once the server lags (each retries up to 8 times, then fails), which measures write
  // contention instead of fan-out. `--watched=1` measures that case.
  for (let i = 0; i < WATCHED; i++) await req(port, key, "POST", PATH, clusterBytes(`watched-${i}`).toString());
  const rv = JSON.parse((await req(port, key, "GET", `${PATH}?limit=1`)).body.toString()).metadata.resourceVersion;
  return {
    port,
    key,
    path: `${PATH}?watch=1&resourceVersion=${rv}`,
    write: async (i, stamp) => {
      const body = JSON.stringify({ metadata: { annotations: { [STAMP]: String(stamp) } } });
      return (await req(port, key, "PATCH", `${PATH}/watched-${i % WATCHED}`, body, MERGE_PATCH)).status;
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

async function watchFanOut(target: FanOutTarget, execArgv: string[]): Promise<FanOut> {
  const { port, key, path } = target;
  const clients: Child[] = [];
  try {
    const counts = Array.from(
      { length: WATCH_PROCS },
      (_, i) => Math.floor(N.watchers / WATCH_PROCS) + (i < N.watchers % WATCH_PROCS ? 1 : 0),
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

/** The p-th percentile (ms) of a histogram of 0.1 ms buckets. */
function histogramPct(histogram: Map<number, number>, count: number, p: number): number {
  if (count === 0) return Number.NaN;
  const rank = Math.min(count - 1, Math.floor((p / 100) * count));
  let seen = 0;
  for (const [bucket, n] of [...histogram].sort((a, b) => a[0] - b[0])) {
    seen += n;
    if (seen > rank) return bucket / 10;
  }
  return Number.NaN;
}

const mode = process.argv[2];
if (mode === "server") await serverChild(process.argv[3]!);
else if (mode === "baseline") await baselineChild(process.argv[3]!, process.argv[4]!);
else if (mode === "watchbaseline") await watchBaselineChild(process.argv[3]!, process.argv[4]!);
else await main();
