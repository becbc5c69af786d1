/**
 * The etcd phase's figures for `platform start --workers 2`: the real CLI server (a primary and two
 * worker processes on one listening address, each a replica on the bench's etcd), measured with
 * the same clients as the single-process lines, beside the same baselines. Two processes: on a
 * machine of two cores they share them with etcd, the load generator and each other.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type Bench, cannon, f, PATH, perSecond, rateRun, req, spawnChild, teamCreates } from "../harness.js";
import { clusterBytes } from "../objects.js";

/** `platform start --workers 2` on `storageUrl`, until its banner says it serves; `key` is the shared admin key. */
async function startWorkers(
  dataDir: string,
  storageUrl: string,
  key: string,
): Promise<{ proc: ChildProcess; port: number; pids: number[] }> {
  const proc = spawn(
    process.execPath,
    [
      "bin/platform.js",
      "start",
      "--data-dir",
      dataDir,
      "--listen",
      "127.0.0.1:0",
      "--storage",
      storageUrl,
      "--workers",
      "2",
    ],
    {
      // The bench's replicas share one admin key (children.ts): a store bootstrapped before keeps it.
      env: { ...process.env, PLATFORM_BOOTSTRAP_KEY: key },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  proc.stdout?.setEncoding("utf8");
  let out = "";
  const [port, ...pids] = await new Promise<number[]>((resolve, reject) => {
    proc.stdout?.on("data", (chunk: string) => {
      out += chunk;
      const m = /listening on 127\.0\.0\.1:(\d+)[\s\S]*workers: +2 processes \(pids (\d+), (\d+)\)/.exec(out);
      if (m) resolve([Number(m[1]), Number(m[2]), Number(m[3])]);
    });
    proc.once("exit", (code) => reject(new Error(`platform start --workers 2 exited (${code}):\n${out}`)));
  });
  return { proc, port: port!, pids };
}

/** CPU milliseconds (user + system) a process has used so far, from /proc (Linux; 100 ticks a second). */
function cpuMsOf(pid: number): number {
  // Fields after the command name, which is in parentheses and may hold spaces.
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * CREATE of Teams with 64 clients (32 connections reach each worker), beside raw etcd puts of the
 * same bytes measured right after, and GET of one object beside a bare node:https server
 * sending the same bytes, measured now.
 */
export async function workersBesideBaselines(
  b: Bench,
  storageUrl: string,
  key: string,
  rawPuts: () => Promise<{ rate: number }>,
): Promise<void> {
  const { proc, port, pids } = await startWorkers(join(b.dir, "etcd-workers"), storageUrl, key);
  // Stopped (SIGTERM) by the bench's own cleanup too, should this phase fail half-way.
  b.children.push({ proc, first: { port }, ask: () => Promise.reject(new Error("no IPC with platform start")) });
  try {
    const creates = teamCreates(port, key, "w");
    await creates(1);
    const cpu = () => pids.reduce((ms, pid) => ms + cpuMsOf(pid), 0);
    const before = cpu();
    const c = await creates(b.N.dur);
    const cpuMs = cpu() - before;
    if (c.non2xx) throw new Error(`CREATE with 2 workers answered ${c.non2xx} non-2xx`);
    const rate = c["2xx"] / b.N.dur;
    // Measured right after, not reused from the single-process line: on a shared machine the
    // load of a minute ago is not the load now.
    const rawRate = (await rawPuts()).rate;
    b.row(
      "etcd: CREATE teams/s (64 clients), server with 2 workers",
      f(rate, 0),
      `${f(rawRate, 0)} (raw etcd puts)`,
      `${f((100 * rate) / rawRate, 0)}%`,
    );
    b.row(
      "etcd: CREATE server CPU per object, 2 workers together",
      `${f((1000 * cpuMs) / Math.max(1, c["2xx"]), 0)} µs`,
      "",
      "",
    );
    const created = await req(port, key, "POST", PATH, clusterBytes("get-me-workers").toString());
    if (created.status !== 201) throw new Error(`create failed: ${created.status} ${created.body}`);
    const one = await req(port, key, "GET", `${PATH}/get-me-workers`);
    const base = await spawnChild(["baseline", join(b.dir, "etcd-workers"), one.body.toString()], b.childExecArgv);
    b.children.push(base);
    const auth = { authorization: `Bearer ${key}` };
    await cannon(1, { url: `https://127.0.0.1:${port}${PATH}/get-me-workers`, headers: auth });
    const g = await rateRun(b.N, { url: `https://127.0.0.1:${port}${PATH}/get-me-workers`, headers: auth });
    const gb = await rateRun(b.N, { url: `https://127.0.0.1:${base.first.port as number}/` });
    if (g.non2xx) throw new Error(`GET with 2 workers answered ${g.non2xx} non-2xx`);
    b.row(
      "etcd: GET req/s (64 conns), server with 2 workers",
      f(perSecond(g), 0),
      f(perSecond(gb), 0),
      `${f((100 * perSecond(g)) / perSecond(gb), 0)}%`,
    );
    base.proc.kill();
  } finally {
    if (proc.exitCode === null) {
      const exited = new Promise((r) => proc.once("exit", r));
      proc.kill("SIGTERM");
      await exited;
    }
  }
}
