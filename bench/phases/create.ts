/**
 * CREATE: Teams take the plain write path; each new Cluster also gets its status written by the
 * health controller (two writes per create), as it would in production. Beside raw SQLite inserts
 * of the same bytes.
 */
import { join } from "node:path";
import Database from "better-sqlite3";
import { cannon, f, PATH, type ServerBench } from "../harness.js";
import { clusterBytes, teamBytes } from "../objects.js";

export async function benchCreate(b: ServerBench): Promise<void> {
  const { server, port, key, N, row } = b;
  const auth = { authorization: `Bearer ${key}` };
  const rawRate = rawSqliteInserts(join(b.dir, "raw.db"), clusterBytes("k123456"), 64, N.dur * 1000);
  for (const kind of ["teams", "clusters"] as const) {
    let seq = 0;
    const bytes = kind === "teams" ? teamBytes : clusterBytes;
    const creates = (duration: number) =>
      cannon(duration, {
        url: `https://127.0.0.1:${port}${PATH.replace("/clusters", `/${kind}`)}`,
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        requests: [{ setupRequest: (r) => ({ ...r, body: bytes(`k${seq++}`).toString() }) }],
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
