// Client CPU of the etcd client (dist/storage/etcd/kv-h2.js) per call and per watch event, for
// one or more builds against one fresh local etcd, alternating builds each round:
// Range(count_only) and Txn(one 200-byte put) with 64 calls in flight, and a watch receiving
// 10,000 single-put events written by a second process.
//   node scripts/etcd-h2-cpu.js [ROUNDS] DIST...      e.g. node scripts/etcd-h2-cpu.js 2 /tmp/old/dist dist
import { fork, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

const CONCURRENCY = 64;
const VALUE = "v".repeat(200);
const [first, ...rest] = process.argv.slice(2);

/** Runs `mode` in a child process for one build: each build loads its own modules. */
function child(dist, endpoint, mode, extra = []) {
  return new Promise((done) => {
    const p = fork(new URL(import.meta.url).pathname, ["--child", dist, endpoint, mode, ...extra]);
    p.once("exit", done);
  });
}

async function loop(calls, one) {
  let done = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (done < calls) await one(done++);
    }),
  );
}

/** etcd's CPU so far in µs (utime + stime of /proc/PID/stat, in 10 ms ticks). */
function etcdCpuUs() {
  const fields = readFileSync(`/proc/${process.env.ETCD_PID}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** One unmeasured quarter (warm-up: connection, JIT), then `calls` measured. */
async function measure(label, calls, one) {
  await loop(calls / 4, one);
  const cpu = process.cpuUsage();
  const etcd = etcdCpuUs();
  const t = performance.now();
  await loop(calls, one);
  const used = process.cpuUsage(cpu);
  const etcdUsed = etcdCpuUs() - etcd;
  const ms = performance.now() - t;
  console.log(
    `${label}: ${((used.user + used.system) / calls).toFixed(1)} µs client CPU per call, ` +
      `${(etcdUsed / calls).toFixed(0)} µs etcd CPU per call, ${((calls / ms) * 1000).toFixed(0)} calls/s`,
  );
}

async function runChild(dist, endpoint, mode, count) {
  const { EtcdKvH2 } = await import(resolve(dist, "storage/etcd/kv-h2.js"));
  const kv = new EtcdKvH2({ endpoints: [endpoint] });
  const put = (key) => kv.txn({ compare: [], success: [{ put: { key, value: VALUE } }], failure: [] });
  if (mode === "range") {
    await measure(`${dist} range`, 20_000, () => kv.range({ key: "/m/", range_end: "/m0", count_only: true }));
  } else if (mode === "txn") {
    await measure(`${dist} txn`, 5_000, (i) => put(`/m/t${i % 1000}`));
  } else if (mode === "writer") {
    await loop(Number(count), (i) => put(`/w/${i % 1000}`));
  } else if (mode === "watch") {
    await watch(dist, endpoint, kv);
  }
  await kv.close();
}

async function watch(dist, endpoint, kv) {
  const { encodeWatchCreate } = await import(resolve(dist, "storage/etcd/watch-response.js"));
  const events = 10_000;
  let messages = 0;
  let cpu;
  let t;
  let all;
  const finished = new Promise((r) => {
    all = r;
  });
  const stream = await kv.openStream("/etcdserverpb.Watch/Watch", {
    onMessage: () => {
      messages++;
      if (messages === 2) {
        cpu = process.cpuUsage();
        t = performance.now();
      }
      if (messages === events + 1) all();
    },
    onEnd: (e) => console.error("watch ended:", e.message),
  });
  const create = {
    key: Buffer.from("/w/"),
    rangeEnd: Buffer.from("/w0"),
    startRevision: 0,
    prevKv: false,
    progressNotify: false,
  };
  stream.write(encodeWatchCreate(create));
  await sleep(200);
  const writer = child(dist, endpoint, "writer", [String(events)]);
  await finished;
  const used = process.cpuUsage(cpu);
  const ms = performance.now() - t;
  console.log(
    `${dist} watch: ${((used.user + used.system) / events).toFixed(1)} µs client CPU per event, ${((events / ms) * 1000).toFixed(0)} events/s`,
  );
  stream.cancel();
  await writer;
}

async function main(rounds, dists) {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const dir = mkdtempSync(join(tmpdir(), "etcd-h2-cpu-"));
  const peer = `http://127.0.0.1:${port + 1}`;
  const client = `http://127.0.0.1:${port}`;
  const etcd = spawn(
    "etcd",
    ["--data-dir", dir, "--listen-client-urls", client, "--advertise-client-urls", client, "--listen-peer-urls", peer],
    { stdio: "ignore" },
  );
  process.env.ETCD_PID = String(etcd.pid);
  try {
    await sleep(1500);
    for (let round = 0; round < rounds; round++) {
      for (const mode of ["range", "txn", "watch"]) {
        for (const dist of dists) await child(dist, `127.0.0.1:${port}`, mode);
      }
    }
  } finally {
    etcd.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (first === "--child") await runChild(...rest);
else if (/^\d+$/.test(first ?? "")) await main(Number(first), rest);
else await main(2, [first ?? "dist", ...rest]);
