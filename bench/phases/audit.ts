/**
 * GET and CREATE with the audit log on, as a hardened deployment runs (`--audit-log FILE`, every
 * request at the Metadata level: the default policy), beside the same measurements on the shared
 * server, which keeps no audit log. The two servers alternate (audited, plain, plain, audited),
 * so that the machine's drift weighs on both alike; the ratio is what the audit log costs.
 */
import { join } from "node:path";
import type autocannon from "autocannon";
import { type Child, cannon, childCpuMs, f, PATH, req, type ServerBench, spawnChild, teamCreates } from "../harness.js";
import { clusterBytes } from "../objects.js";

type Side = "audited" | "plain";

export async function benchAudit(b: ServerBench): Promise<void> {
  const { N, row } = b;
  const dataDir = join(b.dir, "audited");
  // `server DATADIR STORAGE AUDITLOG` (children.ts); no STORAGE: embedded SQLite.
  const audited = await spawnChild(["server", dataDir, "", join(b.dir, "audit.log")], b.childExecArgv);
  b.children.push(audited);
  const servers: Record<Side, { child: Child; port: number; key: string }> = {
    audited: { child: audited, port: audited.first.port as number, key: audited.first.key as string },
    plain: { child: b.server, port: b.port, key: b.key },
  };
  const gets = {} as Record<Side, autocannon.Options>;
  const creates = {} as Record<Side, (duration: number) => Promise<autocannon.Result>>;
  for (const side of ["audited", "plain"] as const) {
    const { port, key } = servers[side];
    const created = await req(port, key, "POST", PATH, clusterBytes("audit-get-me").toString());
    if (created.status !== 201) throw new Error(`create failed: ${created.status} ${created.body}`);
    gets[side] = { url: `https://127.0.0.1:${port}${PATH}/audit-get-me`, headers: { authorization: `Bearer ${key}` } };
    creates[side] = teamCreates(port, key, `audit-${side}-`);
    // Warmed up alike (JIT, TLS sessions, the caches) before anything is counted; a --smoke run
    // (N.requests set) only proves the phase works, and measures nothing worth it.
    if (N.requests === undefined) {
      await cannon(1, gets[side]);
      await creates[side](1);
    }
  }
  for (const [what, run] of [
    ["GET req/s (64 conns)", (side: Side, seconds: number) => cannon(seconds, gets[side])],
    ["CREATE teams/s (64 clients)", (side: Side, seconds: number) => creates[side](seconds)],
  ] as const) {
    const sum = { audited: { ok: 0, seconds: 0, cpuMs: 0 }, plain: { ok: 0, seconds: 0, cpuMs: 0 } };
    for (const side of ["audited", "plain", "plain", "audited"] as const) {
      const server = servers[side].child;
      const cpuBefore = await childCpuMs(server);
      const result = await run(side, N.dur / 2);
      const s = sum[side];
      s.cpuMs += (await childCpuMs(server)) - cpuBefore;
      s.seconds += N.dur / 2;
      s.ok += result["2xx"];
      if (result.non2xx) throw new Error(`AUDIT ${what}: ${result.non2xx} non-2xx answers`);
    }
    const rate = (side: Side) => sum[side].ok / sum[side].seconds;
    const cpu = (side: Side) => `${f((1000 * sum[side].cpuMs) / Math.max(1, sum[side].ok), 0)} µs`;
    row(
      `AUDIT ${what}: audit log on (Metadata); server CPU per request`,
      `${f(rate("audited"), 0)}; ${cpu("audited")}`,
      `${f(rate("plain"), 0)}; ${cpu("plain")} (audit log off)`,
      `${f((100 * rate("audited")) / rate("plain"), 0)}%`,
    );
  }
  await audited.ask({ cmd: "stop" }).catch(() => {});
}
