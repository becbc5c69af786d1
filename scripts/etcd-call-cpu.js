// CPU per etcd create transaction, client and etcd, for three clients against one fresh etcd:
// the storage's own gRPC client (dist/storage/etcd/kv-h2.js), the `etcd3` client (grpc-js), and
// etcd's JSON gateway through an undici pool. 64 calls in flight, alternating rounds.
//   npm run build && node scripts/etcd-call-cpu.js [CALLS_PER_ROUND] [ROUNDS]
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Etcd3 } from "etcd3";
import { Pool } from "undici";
import { EtcdKvH2 } from "../dist/storage/etcd/kv-h2.js";

const calls = Number(process.argv[2] ?? 3000);
const rounds = Number(process.argv[3] ?? 3);
const port = 20000 + Math.floor(Math.random() * 20000);
const dir = mkdtempSync(join(tmpdir(), "etcd-call-cpu-"));
const peer = `http://127.0.0.1:${port + 1}`;
const etcd = spawn(
  "etcd",
  [
    "--data-dir",
    dir,
    "--listen-client-urls",
    `http://127.0.0.1:${port}`,
    "--advertise-client-urls",
    `http://127.0.0.1:${port}`,
    "--listen-peer-urls",
    peer,
    "--initial-advertise-peer-urls",
    peer,
    "--initial-cluster",
    `default=${peer}`,
  ],
  { stdio: "ignore" },
);
process.on("exit", () => {
  etcd.kill();
  rmSync(dir, { recursive: true, force: true });
});
const etcdCpuUs = () => {
  const f = readFileSync(`/proc/${etcd.pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(f[11]) + Number(f[12])) * 10_000; // clock ticks of 10 ms
};

const value = Buffer.alloc(300, 120);
const ours = new EtcdKvH2({ endpoints: [`127.0.0.1:${port}`] });
const e3 = new Etcd3({ hosts: `http://127.0.0.1:${port}` });
const pool = new Pool(`http://127.0.0.1:${port}`, { connections: 32 });
const b64 = (s) => Buffer.from(s).toString("base64");
const clients = {
  "own gRPC (kv-h2)": (k) =>
    ours.txn({
      compare: [{ key: k, target: "CREATE", result: "EQUAL", revision: 0 }],
      success: [{ put: { key: k, value } }],
      failure: [{ range: { key: k } }],
    }),
  "etcd3 (grpc-js)": (k) => e3.if(k, "Create", "==", 0).then(e3.put(k).value(value)).else(e3.get(k)).commit(),
  "JSON gateway (undici)": async (k) => {
    const body = JSON.stringify({
      compare: [{ key: b64(k), target: "CREATE", result: "EQUAL", create_revision: "0" }],
      success: [{ request_put: { key: b64(k), value: value.toString("base64") } }],
      failure: [{ request_range: { key: b64(k) } }],
    });
    const res = await pool.request({ path: "/v3/kv/txn", method: "POST", body });
    await res.body.text();
  },
};

async function round(name, n, tag) {
  let i = 0;
  const call = clients[name];
  const cpu0 = process.cpuUsage();
  const etcd0 = etcdCpuUs();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (i < n) await call(`/cpu/${tag}/${i++}`);
    }),
  );
  const cpu = process.cpuUsage(cpu0);
  const client = (cpu.user + cpu.system) / n;
  const server = (etcdCpuUs() - etcd0) / n;
  const rate = (n / (performance.now() - t0)) * 1000;
  console.log(
    `| ${name} | ${client.toFixed(0)} µs | ${server.toFixed(0)} µs | ${(client + server).toFixed(0)} µs | ${rate.toFixed(0)} |`,
  );
}

for (let tries = 0; ; tries++) {
  try {
    await ours.range({ key: "/", count_only: true });
    break;
  } catch (err) {
    if (tries > 50) throw err;
    await sleep(200);
  }
}
for (const name of Object.keys(clients)) await round(name, 500, "warm");
console.log("| client | client CPU per call | etcd CPU per call | sum | calls/s |\n|---|---|---|---|---|");
for (let r = 0; r < rounds; r++) for (const name of Object.keys(clients)) await round(name, calls, `r${r}`);
await ours.close();
e3.close();
await pool.close();
process.exit(0);
