// What the stored-bytes verdicts cost in memory (docs/performance.md, "Where the verdicts live"):
//   npm run build && node scripts/verdict-memory.js N [ROUNDS] DIST...   e.g. ... 100000 3 /tmp/old/dist dist
//     N of the bench's Teams in a fresh SQLite data dir; per round and build, a server started on
//     it (a child process, --expose-gc) reads them into its cache, runs the background check of
//     their stored bytes and a full GC, as the bench's memory phase does, then prints its heap and
//     RSS then, 0.1 s and 1 s later. A DIST ending in ":unchecked" runs that build with the
//     background check never scheduled (its queue kept: 8 bytes per version), for the base.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import v8 from "node:v8";

const [, script, mode, ...args] = process.argv;

if (mode === "child") {
  const [what, dataDir, distArg, n] = args;
  const [dist, variant] = distArg.split(":");
  const load = (module) => import(pathToFileURL(resolve(dist, module)).href);
  const { startServer } = await load("app/start-server.js");
  const { storedTeamBytes } = await load("bench/objects.js");
  if (variant === "unchecked") {
    const { StoredBytesPrecheck } = await load("registry/stored-bytes-precheck.js");
    StoredBytesPrecheck.prototype.schedule = () => {};
  }
  const server = await startServer({ host: "127.0.0.1", port: 0, dataDir, logLevel: "error" });
  const prefix = "/registry/management.platform/teams/";
  if (what === "fill") {
    for (let i = 0; i < Number(n); i += 1000) {
      const ops = [];
      for (let j = i; j < Math.min(i + 1000, Number(n)); j++) {
        ops.push({ type: "create", key: `${prefix}c${j}`, value: storedTeamBytes(`c${j}`) });
      }
      await server.storage.txn(ops);
    }
  } else {
    const mib = (x) => (x / 1048576).toFixed(1);
    const sample = () => {
      globalThis.gc();
      const m = process.memoryUsage();
      return `heapUsed ${mib(m.heapUsed)} rss ${mib(m.rss)} malloced ${mib(v8.getHeapStatistics().malloced_memory)}`;
    };
    const pause = (ms) => new Promise((r) => setTimeout(r, ms));
    await server.storage.list(prefix, { limit: 1 });
    if (variant !== "unchecked") await server.storedBytesPrecheck.idle();
    const now = sample();
    await pause(100);
    const soon = sample();
    await pause(900);
    console.log(`${distArg}: after the check and a GC: ${now}; 0.1 s later: ${soon}; 1 s later: ${sample()}`);
  }
  await server.close();
  process.exit(0);
}

const [n, roundsArg, ...dists] = [mode, ...args];
if (!n || dists.length === 0) {
  console.error(`usage: node ${script} N [ROUNDS] DIST[:unchecked]...`);
  process.exit(2);
}
const dataDir = mkdtempSync(join(tmpdir(), "verdict-memory-"));
const run = (...childArgs) => {
  const r = spawnSync(process.execPath, ["--expose-gc", script, "child", ...childArgs], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  if (r.status !== 0) throw new Error(`${childArgs[0]} failed`);
  return r.stdout.trim();
};
try {
  run("fill", dataDir, dists[0].split(":")[0], n);
  for (let round = 0; round < Number(roundsArg ?? 3); round++) {
    for (const dist of dists) console.log(run("measure", dataDir, dist));
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
