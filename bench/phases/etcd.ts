/**
 * The same measurements on etcd, each beside a baseline of the same run: GET beside a bare
 * node:https server, CREATE beside raw etcd puts of the same bytes with the same concurrency,
 * LIST of 10,000 beside the embedded store's LIST, and a write on one replica seen by a watcher
 * on another beside a watcher on the writing replica. etcd is a real one started here.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Etcd3 } from "etcd3";
import { EtcdClient, EtcdCluster, encodeWatchCreate, WatchResponseDecoder } from "../../dist/testing/bench-entry.js";
import type { GcPauses } from "../children.js";
import { type Bench, type Child, childCpuMs, f, PATH, pct, req, spawnChild, teamCreates } from "../harness.js";
import { cpuTimes, stealShare } from "../host-steal.js";
import { teamBytes } from "../objects.js";
import { type HistogramCounts, histogramSince, histogramSummary, readHistogram } from "../prom-histogram.js";
import type { DriverResult, DriverSetup } from "../replica-watch-driver.js";
import { workersBesideBaselines } from "./etcd-workers.js";
import { benchGet } from "./get.js";
import { startBesideBare } from "./start.js";

const TEAMS = PATH.replace("/clusters", "/teams");
const DRIVER = fileURLToPath(new URL("../replica-watch-driver.js", import.meta.url));

/** BENCH_ETCD_PARTS=get,list,create,watch,start,workers runs only those parts of the phase (to profile one). */
const parts = process.env.BENCH_ETCD_PARTS?.split(",");
const wants = (part: string) => parts === undefined || parts.includes(part);

export async function benchEtcd(b: Bench): Promise<void> {
  const etcd = await EtcdCluster.start(1);
  try {
    const a = await spawnChild(["server", join(b.dir, "etcd-a"), etcd.url], b.childExecArgv);
    b.children.push(a);
    const port = a.first.port as number;
    const key = a.first.key as string;
    if (wants("get")) {
      const ranges = async () => (await etcdCalls(etcd)).get("Range") ?? 0;
      await benchGet({ ...b, server: a, dataDir: join(b.dir, "etcd-a"), port, key }, "etcd: ", ranges);
    }
    if (wants("list")) await listBesideSqlite(b, a);
    if (wants("create")) await createBesideRawPuts(b, a, etcd);
    if (wants("watch")) await replicaWatch(b, etcd, a);
    // Stopped, not killed: a --cpu-prof profile is written on exit.
    await a.ask({ cmd: "stop" }).catch(() => {});
    // `platform start` on the etcd (and data dir) replica A used (start.ts).
    if (wants("start")) await startBesideBare(b, "etcd", () => join(b.dir, "etcd-a"), etcd.url);
    // After the single replica stopped: the two workers share the machine with etcd alone.
    if (wants("workers")) {
      await workersBesideBaselines(b, etcd.url, key, async () => {
        const value = teamBytes("raw-0123456789");
        const client = await warmedUp(ownClientPuts(etcd), value);
        try {
          return await rawEtcdPuts(client, "workers", value, 64, b.N.dur * 1000);
        } finally {
          await client.close();
        }
      });
    }
  } finally {
    for (const c of b.children) if (c.proc.exitCode === null) c.proc.kill();
    await etcd.stop();
  }
}

/** LIST of N.list Teams on etcd and on SQLite, interleaved (the machine's noise hits both). */
async function listBesideSqlite(b: Bench, a: Child): Promise<void> {
  const s = await spawnChild(["server", join(b.dir, "etcd-list-sqlite")], b.childExecArgv);
  b.children.push(s);
  await Promise.all([
    a.ask({ cmd: "fill", n: b.N.list, kind: "teams" }),
    s.ask({ cmd: "fill", n: b.N.list, kind: "teams" }),
  ]);
  const ports = [a.first.port as number, s.first.port as number];
  const keys = [a.first.key as string, s.first.key as string];
  const ms: [number[], number[]] = [[], []];
  let bytes = 0;
  for (let i = 0; i < 16; i++) {
    for (const j of [0, 1]) {
      const t = performance.now();
      const r = await req(ports[j]!, keys[j]!, "GET", TEAMS);
      if (r.status !== 200) throw new Error(`LIST answered ${r.status}`);
      // The first round warms both up (JIT, caches).
      if (i > 0) ms[j]!.push(performance.now() - t);
      bytes = r.body.length;
    }
  }
  const [etcdMs, sqliteMs] = [pct(ms[0], 50), pct(ms[1], 50)];
  b.row(
    `etcd: LIST ${b.N.list} Teams (${f(bytes / 1048576)} MiB) ms, median`,
    f(etcdMs),
    `${f(sqliteMs)} (embedded SQLite)`,
    `${f(etcdMs / sqliteMs, 2)}×`,
  );
  await s.ask({ cmd: "stop" }).catch(() => {});
}

/**
 * CREATE of Teams through the platform on etcd, beside raw etcd puts of the same bytes, 64 at a
 * time. The two alternate in rounds (as the LIST part does), so that the machine's noise, which
 * comes and goes within seconds, falls on both.
 */
/**
 * CREATE Teams beside two baselines of raw etcd puts of the same bytes with the same 64-way
 * concurrency, the three alternating round by round: puts through the `etcd3` package (a
 * general-purpose etcd client: the baseline the CREATE target was set against) and puts through
 * the platform's own etcd client (much less client CPU per put, so nearly etcd's own rate on
 * this machine: the floor under any create).
 */
async function createBesideRawPuts(b: Bench, a: Child, etcd: EtcdCluster): Promise<void> {
  const port = a.first.port as number;
  const key = a.first.key as string;
  const creates = teamCreates(port, key, "e");
  await creates(1);
  const rounds = 2;
  const roundMs = (b.N.dur * 1000) / rounds;
  const total = { creates: 0, serverCpuMs: 0, etcdCpuMs: 0 };
  const rawValue = teamBytes("raw-0123456789");
  const library = { name: "etcd3", ...newRawTotals(), client: await warmedUp(etcd3Puts(etcd), rawValue) };
  const own = { name: "own", ...newRawTotals(), client: await warmedUp(ownClientPuts(etcd), rawValue) };
  const callsBefore = await etcdCalls(etcd);
  let callsAfterCreates = callsBefore;
  for (let round = 0; round < rounds; round++) {
    const callsAtStart = await etcdCalls(etcd);
    const before = await childCpuMs(a);
    const etcdBefore = await etcdCpuMs(etcd);
    const c = await creates(b.N.dur / rounds);
    if (c.non2xx) throw new Error(`CREATE on etcd answered ${c.non2xx} non-2xx`);
    total.serverCpuMs += (await childCpuMs(a)) - before;
    total.etcdCpuMs += (await etcdCpuMs(etcd)) - etcdBefore;
    total.creates += c["2xx"];
    callsAfterCreates = addCalls(callsAfterCreates, callsAtStart, await etcdCalls(etcd));
    for (const raw of [library, own]) await measureRawRound(raw, a, etcd, `${raw.name}-${round}`, rawValue, roundMs);
  }
  await library.client.close();
  await own.client.close();
  createRows(b, total, library, own, (method) => (callsAfterCreates.get(method) ?? 0) - (callsBefore.get(method) ?? 0));
}

/** What the raw puts of one client did over all rounds. */
interface RawTotals {
  puts: number;
  clientCpuUs: number;
  etcdCpuMs: number;
  serverCpuMs: number;
}

const newRawTotals = (): RawTotals => ({ puts: 0, clientCpuUs: 0, etcdCpuMs: 0, serverCpuMs: 0 });

/** One round of raw puts, with etcd's CPU and the (idle, watching) server's CPU meanwhile. */
async function measureRawRound(
  raw: RawTotals & { client: RawPutClient },
  a: Child,
  etcd: EtcdCluster,
  keyPrefix: string,
  value: Buffer,
  ms: number,
): Promise<void> {
  const etcdBefore = await etcdCpuMs(etcd);
  const serverBefore = await childCpuMs(a);
  const r = await rawEtcdPuts(raw.client, keyPrefix, value, 64, ms);
  raw.etcdCpuMs += (await etcdCpuMs(etcd)) - etcdBefore;
  raw.serverCpuMs += (await childCpuMs(a)) - serverBefore;
  raw.puts += r.puts;
  raw.clientCpuUs += r.cpuPerPutUs * r.puts;
}

/** The counts of `now` minus `start`, added to `sum` (the etcd calls made while the creates ran). */
function addCalls(sum: Map<string, number>, start: Map<string, number>, now: Map<string, number>): Map<string, number> {
  const out = new Map(sum);
  for (const [method, n] of now) out.set(method, (out.get(method) ?? 0) + n - (start.get(method) ?? 0));
  return out;
}

function createRows(
  b: Bench,
  total: { creates: number; serverCpuMs: number; etcdCpuMs: number },
  library: RawTotals,
  own: RawTotals,
  callsDuringCreates: (method: string) => number,
): void {
  const rate = total.creates / b.N.dur;
  const libraryRate = library.puts / b.N.dur;
  const ownRate = own.puts / b.N.dur;
  const perPut = (raw: RawTotals, x: number) => f(x / Math.max(1, raw.puts), 0);
  b.row(
    "etcd: CREATE teams/s (64 clients; rounds alternating with the raw puts) beside raw puts through `etcd3` (the target's baseline)",
    f(rate, 0),
    `${f(libraryRate, 0)} (etcd3 client, ${perPut(library, library.clientCpuUs)} µs client CPU per put)`,
    `${f((100 * rate) / libraryRate, 0)}%`,
  );
  b.row(
    "etcd: CREATE teams/s beside raw puts through the platform's own etcd client",
    f(rate, 0),
    `${f(ownRate, 0)} (own client, ${perPut(own, own.clientCpuUs)} µs client CPU per put)`,
    `${f((100 * rate) / ownRate, 0)}%`,
  );
  const perCreateUs = (ms: number) => `${f((1000 * ms) / Math.max(1, total.creates), 0)} µs`;
  // The server watches every key, so it decodes the raw puts' events too; what it spends while
  // they run beyond that is work of the creates left over (it would flatter the ratio).
  b.row(
    "etcd: CREATE server CPU per object; the server's CPU per raw put (own client) while they run",
    `${perCreateUs(total.serverCpuMs)}; ${perPut(own, 1000 * own.serverCpuMs)} µs`,
    "",
    "",
  );
  // etcd's CPU is part of what a create costs the machine (the bench shares its cores with etcd).
  b.row(
    "etcd: CREATE etcd CPU per object",
    perCreateUs(total.etcdCpuMs),
    `${perPut(library, 1000 * library.etcdCpuMs)} µs per etcd3 put; ${perPut(own, 1000 * own.etcdCpuMs)} µs per own-client put`,
    "",
  );
  // Counted while the creates ran only: the raw puts are Put calls, Range and Txn are the creates'.
  const perCreate = (method: string) => f(callsDuringCreates(method) / Math.max(1, total.creates), 2);
  b.row("etcd: requests etcd served per CREATE: Range; Txn", `${perCreate("Range")}; ${perCreate("Txn")}`, "", "");
}

/** A client that puts raw values into etcd, whichever library it is. */
interface RawPutClient {
  put(key: string, value: Buffer): Promise<unknown>;
  close(): Promise<void> | void;
}

/**
 * Puts of `value` under fresh keys (below `/bench-raw/<keyPrefix>/`) from `concurrency` loops
 * for `ms`: puts per second, and the CPU this (otherwise idle) process spent per put: the etcd
 * client's own cost of one call.
 */
async function rawEtcdPuts(
  client: RawPutClient,
  keyPrefix: string,
  value: Buffer,
  concurrency: number,
  ms: number,
): Promise<{ rate: number; cpuPerPutUs: number; puts: number }> {
  let n = 0;
  const cpu = process.cpuUsage();
  const end = performance.now() + ms;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, lane) => {
      for (let i = 0; performance.now() < end; i++) {
        await client.put(`/bench-raw/${keyPrefix}/${lane}/${i}`, value);
        n++;
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  return { rate: n / (ms / 1000), cpuPerPutUs: (used.user + used.system) / Math.max(1, n), puts: n };
}

/** Raw puts through the platform's own etcd client (etcd's Put call, one connection). */
function ownClientPuts(etcd: EtcdCluster): RawPutClient {
  return new EtcdClient({ endpoints: etcd.endpoints });
}

/** Raw puts through the `etcd3` package (grpc-js), the general-purpose client. */
function etcd3Puts(etcd: EtcdCluster): RawPutClient {
  const client = new Etcd3({ hosts: etcd.endpoints.map((e) => `http://${e}`) });
  return { put: (key, value) => client.put(key).value(value).exec(), close: () => client.close() };
}

/**
 * A raw-put client warmed up as the platform's creates are (a second of puts first: its
 * connection, and the JIT in this process), so that the baseline does not pay a start-up the
 * platform's figure does not.
 */
async function warmedUp(client: RawPutClient, value: Buffer): Promise<RawPutClient> {
  await rawEtcdPuts(client, "warm-up", value, 64, 1000);
  return client;
}

/**
 * N.wps PATCHes a second on replica A for N.replicaSec seconds, after N.warmSec seconds of them
 * unmeasured; the delay until a watcher on replica B sees each one, beside a watcher on A
 * itself, the PATCHes' own response time, and the floor: raw etcd puts at the same rate seen by a raw etcd watch (rawEtcdWatch). The
 * PATCHes are sent and the watches read by a process of their own (replica-watch-driver.ts).
 */
async function replicaWatch(b: Bench, etcd: EtcdCluster, a: Child): Promise<void> {
  const setup = await startReplicaWatch(b, etcd, a);
  const measured = await measureReplicaWatch(etcd, a, setup);
  replicaWatchRows(b, setup.total, measured);
  await setup.r2.ask({ cmd: "stop" }).catch(() => {});
  const raw = await rawEtcdWatch(etcd, teamBytes("raw-watch-0123"), b.N.wps, setup.total);
  b.row(
    `etcd: raw etcd put → raw etcd watch event, ms p50/p99 (${b.N.wps} puts/s)`,
    `${f(pct(raw.seen, 50))}/${f(pct(raw.seen, 99))}`,
    `${f(pct(raw.acked, 50))}/${f(pct(raw.acked, 99))} (put acknowledged)`,
    "",
  );
}

interface ReplicaWatchSetup {
  /** Replica B. */
  r2: Child;
  /** The process sending the PATCHes and reading the watches (replica-watch-driver.ts). */
  driver: Child;
  portA: number;
  key: string;
  /** PATCHes measured. */
  total: number;
}

/** Replica B on the same etcd, the watched Teams, and the driver, warmed up. */
async function startReplicaWatch(b: Bench, etcd: EtcdCluster, a: Child): Promise<ReplicaWatchSetup> {
  const r2 = await spawnChild(["server", join(b.dir, "etcd-b"), etcd.url], b.childExecArgv);
  b.children.push(r2);
  const key = a.first.key as string;
  const portA = a.first.port as number;
  const names = Array.from({ length: 10 }, (_, i) => `watched-${i}`);
  for (const name of names) await req(portA, key, "POST", TEAMS, teamBytes(name).toString());
  const list = JSON.parse((await req(portA, key, "GET", `${TEAMS}?limit=1`)).body.toString());
  const total = b.N.wps * b.N.replicaSec;
  const setup: DriverSetup = {
    port: portA,
    portB: r2.first.port as number,
    key,
    path: TEAMS,
    names,
    resourceVersion: list.metadata.resourceVersion as string,
    rate: b.N.wps,
    total,
    warmUp: b.N.wps * b.N.warmSec,
  };
  const driver = await spawnChild([], [], DRIVER, setup);
  b.children.push(driver);
  // Both replicas serve N.warmSec seconds of the same PATCHes first, unmeasured: a replica's first
  // seconds of them are mostly its JIT compiling (replica-watch-driver.ts).
  await driver.ask({ cmd: "warm" });
  await new Promise((r) => setTimeout(r, 500));
  return { r2, driver, portA, key, total };
}

/** What the measured PATCHes cost and how fast the watchers saw them. */
interface ReplicaWatchResult extends DriverResult {
  /** The driver's CPU, ms. */
  driverCpuMs: number;
  used: Record<"a" | "b" | "etcd", number>;
  loopA: LoopDelay;
  callsBefore: Map<string, number>;
  callsAfter: Map<string, number>;
  latencyBefore: TailSources;
  latencyAfter: TailSources;
  steal: number;
}

async function measureReplicaWatch(
  etcd: EtcdCluster,
  a: Child,
  { r2, driver, portA, key }: ReplicaWatchSetup,
): Promise<ReplicaWatchResult> {
  const before = await cpuNow(etcd, a, r2);
  // One read of etcd's metrics serves its call counts and its disk latencies.
  const etcdTextBefore = await etcdMetrics(etcd);
  const callsBefore = callsIn(etcdTextBefore);
  const latencyBefore = await tailSources(etcdTextBefore, portA, key);
  const timesBefore = cpuTimes();
  await a.ask({ cmd: "loopdelay" });
  const { answered, cpuMs } = await driver.ask<Pick<DriverResult, "answered" | "cpuMs">>({ cmd: "run" });
  const used = cpuSince(before, await cpuNow(etcd, a, r2));
  const loopA = await a.ask<LoopDelay>({ cmd: "loopdelay" });
  const etcdTextAfter = await etcdMetrics(etcd);
  const callsAfter = callsIn(etcdTextAfter);
  const latencyAfter = await tailSources(etcdTextAfter, portA, key);
  const steal = stealShare(timesBefore, cpuTimes());
  const collected = await driver.ask<DriverResult>({ cmd: "collect" });
  return {
    ...collected,
    answered,
    driverCpuMs: cpuMs,
    used,
    loopA,
    callsBefore,
    callsAfter,
    latencyBefore,
    latencyAfter,
    steal,
  };
}

function replicaWatchRows(b: Bench, total: number, r: ReplicaWatchResult): void {
  const { onA, onB, answered, used, loopA: loop, lateMaxMs, loop: own } = r;
  b.row(
    `etcd: write on replica A → watcher on B, ms p50/p99 (${b.N.wps} writes/s; ${onB.length}/${total} seen)`,
    `${f(pct(onB, 50))}/${f(pct(onB, 99))}`,
    `${f(pct(onA, 50))}/${f(pct(onA, 99))} (watcher on A; ${onA.length}/${total} seen)`,
    "",
  );
  b.row(
    "etcd: write on replica A → watcher on B, the tail: ms p99.9/max; seen later than 50 ms",
    `${f(pct(onB, 99.9))}/${f(pct(onB, 100))}; ${onB.filter((ms) => ms > 50).length} of ${onB.length}`,
    "",
    "",
  );
  const us = (cpuMs: number) => `${f((1000 * cpuMs) / total, 0)}`;
  b.row(
    "etcd: those PATCHes' response time on A, ms p50/p99; A's CPU per PATCH",
    `${f(pct(answered, 50))}/${f(pct(answered, 99))}; ${us(used.a)} µs`,
    `B ${us(used.b)}; etcd ${us(used.etcd)}; load generator ${us(r.driverCpuMs)} µs (CPU per PATCH)`,
    "",
  );
  b.row(
    "etcd: event-loop delay during those PATCHes, ms p50/p99/max: replica A",
    `${f(loop.p50)}/${f(loop.p99)}/${f(loop.max)}; GC pauses: ${loop.gc.young.count} young (max ${f(loop.gc.young.maxMs)} ms), ${loop.gc.full.count} full (max ${f(loop.gc.full.maxMs)} ms)`,
    `${f(own.p50)}/${f(own.p99)}/${f(own.max)} (the load generator; latest send ${f(lateMaxMs)} ms after due)`,
    "",
  );
  const perPatch = (method: string) =>
    f(((r.callsAfter.get(method) ?? 0) - (r.callsBefore.get(method) ?? 0)) / total, 2);
  b.row(
    "etcd: requests etcd served per PATCH (both replicas): Range; Txn",
    `${perPatch("Range")}; ${perPatch("Txn")}`,
    "",
    "",
  );
  const since = (k: keyof TailSources) => histogramSummary(histogramSince(r.latencyBefore[k], r.latencyAfter[k]), 99);
  const [update, fsync, commit] = [since("update"), since("fsync"), since("commit")];
  b.row(
    "etcd: where a tail could come from, ms p99/max (histogram buckets): A's etcd updates",
    `${f(update.pMs)}/${f(update.maxMs)} (${update.count})`,
    `etcd's WAL fsync ${f(fsync.pMs)}/${f(fsync.maxMs)} (${fsync.count}); backend commit ${f(commit.pMs)}/${f(commit.maxMs)} (${commit.count}); CPU time the host gave to other machines ${f(100 * r.steal)}%`,
    "",
  );
}

interface TailSources {
  update: HistogramCounts;
  fsync: HistogramCounts;
  commit: HistogramCounts;
}

/**
 * The latency histograms that say whether a slow PATCH waited on etcd: A's own
 * etcd_request_duration_seconds for updates, and etcd's WAL fsync and backend commit times.
 */
async function tailSources(etcdText: string, portA: number, key: string): Promise<TailSources> {
  const aText = (await req(portA, key, "GET", "/metrics")).body.toString();
  return {
    update: readHistogram(aText, "etcd_request_duration_seconds", 'operation="update"'),
    fsync: readHistogram(etcdText, "etcd_disk_wal_fsync_duration_seconds"),
    commit: readHistogram(etcdText, "etcd_disk_backend_commit_duration_seconds"),
  };
}

/** A server child's event-loop delay (children.ts, "loopdelay"), ms. */
interface LoopDelay {
  p50: number;
  p99: number;
  max: number;
  gc: GcPauses;
}

/** CPU etcd has used so far (ms), from its own process_cpu_seconds_total. */
async function etcdCpuMs(etcd: EtcdCluster): Promise<number> {
  const text = await etcdMetrics(etcd);
  return 1000 * Number(/^process_cpu_seconds_total (\S+)$/m.exec(text)?.[1] ?? Number.NaN);
}

/** CPU used so far (ms) by replica A, replica B and etcd. */
async function cpuNow(etcd: EtcdCluster, a: Child, r2: Child): Promise<Record<"a" | "b" | "etcd", number>> {
  const [aMs, bMs, etcdMs] = await Promise.all([childCpuMs(a), childCpuMs(r2), etcdCpuMs(etcd)]);
  return { a: aMs, b: bMs, etcd: etcdMs };
}

function cpuSince<K extends string>(before: Record<K, number>, after: Record<K, number>): Record<K, number> {
  const out = { ...after };
  for (const k in after) out[k] = after[k] - before[k];
  return out;
}

/** etcd's own /metrics text. */
async function etcdMetrics(etcd: EtcdCluster): Promise<string> {
  return (await fetch(`http://${etcd.endpoints[0]}/metrics`)).text();
}

/** Unary requests etcd has answered so far, by method (its own grpc_server_handled_total). */
async function etcdCalls(etcd: EtcdCluster): Promise<Map<string, number>> {
  return callsIn(await etcdMetrics(etcd));
}

function callsIn(text: string): Map<string, number> {
  const calls = new Map<string, number>();
  for (const m of text.matchAll(/^grpc_server_handled_total\{([^}]*)\} (\S+)$/gm)) {
    const method = /grpc_method="([^"]+)"/.exec(m[1]!)?.[1];
    if (method) calls.set(method, (calls.get(method) ?? 0) + Number(m[2]));
  }
  return calls;
}

/** Calls `write(i)` for i < total, `rate` a second on schedule (not waiting for answers). */
async function paced<T>(rate: number, total: number, write: (i: number) => Promise<T>): Promise<Promise<T>[]> {
  const start = performance.now();
  const writes: Promise<T>[] = [];
  for (let i = 0; i < total; i++) {
    const wait = start + (i * 1000) / rate - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    writes.push(write(i));
  }
  return writes;
}

/**
 * The floor under the replica watch figure: `rate` puts a second straight to etcd (the etcd
 * client, one connection), and the delay until an etcd watch on their prefix (another client)
 * sees each one, beside the puts' own acknowledgement time.
 */
async function rawEtcdWatch(
  etcd: EtcdCluster,
  value: Buffer,
  rate: number,
  total: number,
): Promise<{ seen: number[]; acked: number[] }> {
  const writer = new EtcdClient({ endpoints: etcd.endpoints });
  const reader = new EtcdClient({ endpoints: etcd.endpoints });
  const sent = new Map<string, number>();
  const seen: number[] = [];
  const acked: number[] = [];
  const prefix = Buffer.from("/bench-raw-watch/");
  const decoder = new WatchResponseDecoder(prefix);
  let created: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    created = resolve;
  });
  try {
    const watch = await reader.openStream("/etcdserverpb.Watch/Watch", {
      onMessage: (message) => {
        const res = decoder.decode(message);
        if (res.created) created();
        for (const e of res.events) {
          const at = sent.get(e.kv.key);
          if (e.type === "put" && at !== undefined) seen.push(performance.now() - at);
        }
      },
      onEnd: (err) => {
        throw err;
      },
    });
    watch.write(
      encodeWatchCreate({
        key: prefix,
        rangeEnd: Buffer.from("/bench-raw-watch0"),
        startRevision: 0,
        prevKv: false,
        progressNotify: false,
        fragment: false,
      }),
    );
    await ready;
    const puts = await paced(rate, total, (i) => {
      const k = `/bench-raw-watch/${i}`;
      const at = performance.now();
      sent.set(k, at);
      return writer.put(k, value).then(() => {
        acked.push(performance.now() - at);
      });
    });
    await Promise.all(puts);
    await new Promise((r) => setTimeout(r, 500));
    watch.cancel();
    return { seen, acked };
  } finally {
    await Promise.all([writer.close(), reader.close()]);
  }
}
