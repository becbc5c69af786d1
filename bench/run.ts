/**
 * `npm run bench [-- --quick]`: every figure beside a baseline measured in the same run.
 * The server runs in a child process (so the load generator does not share its event loop);
 * so does the bare node:https baseline. See docs/performance.md.
 *
 * This file parses the flags, runs a child's mode when forked as one (children.ts) and otherwise
 * runs each phase (phases/) in order and prints the table. Shared helpers are in harness.ts.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { baselineChild, serverChild, watchBaselineChild } from "./children.js";
import { agent, type Bench, type Child, type Counts, type ServerBench, spawnChild, table } from "./harness.js";
import { minimalProxyChild } from "./minimal-proxy.js";
import { benchAudit } from "./phases/audit.js";
import { benchBackup } from "./phases/backup.js";
import { benchCli } from "./phases/cli.js";
import { benchCreate } from "./phases/create.js";
import { benchEtcd } from "./phases/etcd.js";
import { benchGateway, fakeClusterChild } from "./phases/gateway.js";
import { benchGet } from "./phases/get.js";
import { benchList } from "./phases/list.js";
import { benchMemory } from "./phases/memory.js";
import { benchStart } from "./phases/start.js";
import { benchWatch } from "./phases/watch.js";

const quick = process.argv.includes("--quick");
const smoke = process.argv.includes("--smoke");
/** `--only=get,create,audit,list,console,watch,cli,gateway,memory,start,etcd,backup` runs just those phases (for profiling one at a time). */
const onlyArg = process.argv.find((a) => a.startsWith("--only="));
const only = onlyArg ? new Set(onlyArg.slice("--only=".length).split(",")) : undefined;
/** `--skip=etcd,...` runs every phase but those. */
const skipArg = process.argv.find((a) => a.startsWith("--skip="));
const skip = new Set(skipArg ? skipArg.slice("--skip=".length).split(",") : []);
const wants = (phase: string) => (only === undefined || only.has(phase)) && !skip.has(phase);
const N: Counts = smoke
  ? {
      dur: 1,
      requests: 128,
      cpuGets: 50,
      list: 50,
      page: 10,
      watchers: 5,
      wps: 20,
      watchSec: 1,
      replicaSec: 1,
      warmSec: 1,
      mem: 200,
    }
  : quick
    ? {
        dur: 3,
        cpuGets: 2000,
        list: 10_000,
        page: 500,
        watchers: 200,
        wps: 200,
        watchSec: 3,
        replicaSec: 10,
        warmSec: 20,
        mem: 20_000,
      }
    : {
        dur: 8,
        cpuGets: 2000,
        list: 10_000,
        page: 500,
        watchers: 1000,
        wps: 200,
        watchSec: 8,
        replicaSec: 40,
        warmSec: 20,
        mem: 100_000,
      };
/** `--no-metrics`: the server counts nothing (to compare with metrics on; docs/performance.md). */
const noMetrics = process.argv.includes("--no-metrics");
if (noMetrics) process.env.PLATFORM_BENCH_METRICS = "off";
/** `--watchers=N`: another watcher count for the WATCH phase (to find where it stops keeping up). */
const watchersArg = process.argv.find((a) => a.startsWith("--watchers="));
if (watchersArg) N.watchers = Number(watchersArg.slice("--watchers=".length));

/** `--watch-procs=N`: watch client processes (real watchers are spread over processes; see watch-clients.ts). */
const watchProcsArg = process.argv.find((a) => a.startsWith("--watch-procs="));
const WATCH_PROCS = Math.min(N.watchers, Number(watchProcsArg?.slice("--watch-procs=".length) ?? 4));
/** `--watched=N`: how many objects the WATCH phase's writes rotate over. */
const WATCHED = Number(process.argv.find((a) => a.startsWith("--watched="))?.slice("--watched=".length) ?? 10);

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "platform-bench-"));
  // Not BENCH_NODE_ARGS: spawnChild() gives those flags to every child (added here as well, they
  // reached these children twice).
  const childExecArgv = process.env.BENCH_CPU_PROF
    ? [`--cpu-prof`, `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
    : [];
  const children: Child[] = [];
  const { rows, row } = table();
  try {
    console.error(
      `node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? "?"})${quick ? ", --quick" : ""}${noMetrics ? ", --no-metrics" : ""}`,
    );
    const bench: Bench = { dir, childExecArgv, N, children, row };
    const server = await spawnChild(["server", join(dir, "a")], childExecArgv);
    children.push(server);
    const served: ServerBench = {
      ...bench,
      server,
      dataDir: join(dir, "a"),
      port: server.first.port as number,
      key: server.first.key as string,
    };
    if (wants("get")) await benchGet(served);
    if (wants("create")) await benchCreate(served);
    if (wants("audit")) await benchAudit(served);
    if (wants("list")) await benchList(bench);
    // Loaded only when it runs: it brings playwright-core, which every forked child would load too.
    if (wants("console")) await (await import("./phases/console.js")).benchConsole(bench);
    if (wants("watch")) await benchWatch(served, { procs: WATCH_PROCS, watched: WATCHED });
    if (wants("cli")) await benchCli(served);
    if (wants("gateway")) await benchGateway(served);
    await server.ask({ cmd: "stop" }).catch(() => {});
    if (wants("memory")) await benchMemory(bench);
    if (wants("start")) await benchStart(bench);
    if (wants("etcd")) await benchEtcd(bench);
    if (wants("backup")) await benchBackup(bench);
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

const mode = process.argv[2];
if (process.send) {
  // A child: when the bench dies (a test's timeout kills it), its IPC channel closes; go with it
  // rather than live on as an orphan server.
  process.on("disconnect", () => process.exit(0));
} else {
  // Killed from outside: exit normally, so the exit handlers stop the etcd the bench started.
  for (const [signal, code] of [
    ["SIGTERM", 143],
    ["SIGINT", 130],
  ] as const)
    process.once(signal, () => process.exit(code));
}
if (mode === "server") await serverChild(process.argv[3]!, process.argv[4] || undefined, process.argv[5] || undefined);
else if (mode === "baseline") await baselineChild(process.argv[3]!, process.argv[4]!);
else if (mode === "fakecluster") await fakeClusterChild();
else if (mode === "minproxy") await minimalProxyChild(process.argv[3]!);
else if (mode === "watchbaseline") await watchBaselineChild(process.argv[3]!, process.argv[4]!);
else await main();
