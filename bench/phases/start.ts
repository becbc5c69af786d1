/**
 * Server start: how long `platform start` takes from spawning the process to its first 200 on
 * GET /readyz (polled every 10 ms), on a fresh data dir (keys, certificates and the database
 * made), on an existing one and on etcd (etcd.ts), beside a bare node:https server started with
 * `node -e` and polled the same way. Runs alternate platform and baseline, so the machine's noise
 * hits both; medians are shown. Every e2e test starts servers: this is CI time too.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { request } from "node:https";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { TLS_PREFERENCES } from "../../dist/testing/bench-entry.js";
import { type Bench, f } from "../harness.js";

const PLATFORM = fileURLToPath(new URL("../../bin/platform.js", import.meta.url));
const POLL_MS = 10;

/** A free port now (the child binds it a moment later; nothing else on the machine races for it). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });
}

function answers(port: number, path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const r = request({ host: "127.0.0.1", port, path, rejectUnauthorized: false, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    r.on("error", () => resolve(false));
    r.end();
  });
}

/** Spawns `args`, polls `path` until it answers 200, stops the process; the ms from spawn to ready. */
async function timeToReady(args: string[], port: number, path: string, env: NodeJS.ProcessEnv): Promise<number> {
  const t = performance.now();
  const proc: ChildProcess = spawn(process.execPath, args, { stdio: ["ignore", "ignore", "inherit"], env });
  let exited = false;
  const exit = new Promise((resolve) => proc.once("exit", resolve)).then(() => {
    exited = true;
  });
  try {
    while (!(await answers(port, path))) {
      if (exited) throw new Error(`${args.join(" ")} exited before answering ${path}`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    return performance.now() - t;
  } finally {
    // SIGTERM: the server closes its store (and releases the data dir's lock) before the next run.
    proc.kill("SIGTERM");
    await exit;
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

/** How many alternating runs each row takes. */
export const startRuns = (b: Bench) => (b.N.dur <= 1 ? 1 : b.N.dur <= 3 ? 5 : 7);

/** `platform start` on a data dir (and storage URL), `runs` times, each beside a bare https start. */
export async function startBesideBare(
  b: Bench,
  what: string,
  dataDir: (run: number) => string,
  storage?: string,
): Promise<void> {
  const env = { ...process.env };
  const platform: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < startRuns(b); i++) {
    const dir = dataDir(i);
    let port = await freePort();
    const listen = ["--listen", `127.0.0.1:${port}`, ...(storage ? ["--storage", storage] : [])];
    platform.push(await timeToReady([PLATFORM, "start", "--data-dir", dir, ...listen], port, "/readyz", env));
    port = await freePort();
    // The bare server serves the certificate the platform just made, with the same TLS preferences
    // (plain data, written into the script: the bare start loads no module of the product).
    const script = `const TLS_PREFERENCES = ${JSON.stringify(TLS_PREFERENCES)};
      const { readFileSync } = await import("node:fs"); const { createServer } = await import("node:https");
      const read = (n) => readFileSync(${JSON.stringify(dir)} + "/" + n);
      createServer({ ...TLS_PREFERENCES, cert: read("server.crt"), key: read("server.key") }, (q, s) => s.end("ok"))
        .listen(${port}, "127.0.0.1");`;
    bare.push(await timeToReady(["--input-type=module", "-e", script], port, "/", env));
  }
  const p = median(platform);
  const base = median(bare);
  b.row(
    `START platform start → /readyz 200, ${what} (median of ${platform.length})`,
    `${f(p, 0)} ms`,
    `${f(base, 0)} ms (node -e bare https server → first 200)`,
    `${f(p / base, 1)}x`,
  );
}

export async function benchStart(b: Bench): Promise<void> {
  await startBesideBare(b, "fresh data dir", (i) => join(b.dir, `start-fresh-${i}`));
  const existing = join(b.dir, "start-existing");
  // An unmeasured first start makes the data dir (keys, certificates, database).
  await startBesideBare({ ...b, N: { ...b.N, dur: 1 }, row: () => {} }, "", () => existing);
  await startBesideBare(b, "existing data dir (SQLite)", () => existing);
}
