/**
 * The bench's child-process modes, each forked as `run.js MODE ...` (see spawnChild in
 * harness.ts): the server runs in a child process so that the load generator does not share its
 * event loop, and so do the bare node:https baselines.
 *
 * - `server DATADIR [STORAGE] [AUDITLOG]` (serverChild): the platform (embedded SQLite, or STORAGE
 *   such as `etcd://…`; an empty STORAGE is SQLite), with an audit log at AUDITLOG when given
 *   (every request at the Metadata level); first message {url, port, key, startedMs}, then
 *   IPC commands fill, prime, cpu, settle, revision, rss and stop.
 * - `baseline DATADIR BODY` (baselineChild): a bare node:https server answering every request with
 *   BODY; first message {port}.
 * - `watchbaseline DATADIR OBJECT` (watchBaselineChild): a bare node:https watch server; first
 *   message {port}, then {cmd:"event", stamp}, {cmd:"cpu"} and {cmd:"stop"}.
 */

import { readFileSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { createServer } from "node:https";
import { monitorEventLoopDelay, PerformanceObserver, constants as perfConstants } from "node:perf_hooks";
import {
  type CachedStorage,
  loadOrCreateServerTls,
  startServer,
  TLS_PREFERENCES,
} from "../dist/testing/bench-entry.js";
import { clusterBytes, storedTeamBytes } from "./objects.js";
import { STAMP } from "./watch-clients.js";

/** The admin key of bench servers on etcd: the replicas of one etcd share it. */
const BENCH_ETCD_KEY = "bench-etcd-admin-key-0123456789abcdefghijk";

// ---------------------------------------------------------------- child: the server
export async function serverChild(dataDir: string, storageUrl?: string, auditLog?: string): Promise<void> {
  const t0 = performance.now();
  const server = await startServer({
    host: "127.0.0.1",
    port: 0,
    dataDir,
    logLevel: "error",
    metrics: process.env.PLATFORM_BENCH_METRICS !== "off",
    // The gateway phase's stand-in cluster listens on 127.0.0.1.
    allowLocalEndpoints: true,
    ...(storageUrl ? { storage: storageUrl, bootstrapKey: BENCH_ETCD_KEY } : {}),
    ...(auditLog ? { auditLog } : {}),
  });
  const started = performance.now() - t0;
  const storage = server.storage as CachedStorage;
  // Sampled every 5 ms (a finer timer would cost the server CPU of its own); read by "loopdelay".
  const loopDelay = monitorEventLoopDelay({ resolution: 5 });
  loopDelay.enable();
  const gcPauses = watchGcPauses();
  // etcd refuses transactions of more than 128 operations (its --max-txn-ops default).
  const fillBatch = storageUrl ? 100 : 1000;
  process.on("message", async (msg: { cmd: string; n?: number; from?: number; kind?: string }) => {
    if (msg.cmd === "fill") {
      let bytes = 0;
      for (let i = msg.from ?? 0; i < (msg.from ?? 0) + msg.n!; i += fillBatch) {
        const ops = [];
        for (let j = i; j < Math.min(i + fillBatch, (msg.from ?? 0) + msg.n!); j++) {
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
      const primeMs = performance.now() - t;
      // The RSS of a server at rest: after the background check of the cache's stored bytes,
      // whose verdicts it keeps, not between its fill and that check.
      await server.storedBytesPrecheck.idle();
      globalThis.gc?.();
      process.send!({ ok: true, primeMs, rss: process.memoryUsage().rss });
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
    } else if (msg.cmd === "loopdelay") {
      // The server's event-loop delay since the last "loopdelay" (p50/p99/max, ms): how long a
      // request arriving at a random moment waits before the server even reads it.
      // The histogram holds the time between its 5 ms timer's runs: the delay is what exceeds 5 ms.
      const ms = (ns: number) => Math.max(0, ns / 1e6 - 5);
      const d = loopDelay;
      const gc = gcPauses.take();
      process.send!({ ok: true, p50: ms(d.percentile(50)), p99: ms(d.percentile(99)), max: ms(d.max), n: d.count, gc });
      d.reset();
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

/** The server's garbage-collection pauses since the last take(): young (scavenge) and full (mark-compact). */
export interface GcPauses {
  young: { count: number; maxMs: number };
  full: { count: number; maxMs: number };
}

function watchGcPauses(): { take: () => GcPauses } {
  let pauses: GcPauses = emptyGcPauses();
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as unknown as { detail?: { kind?: number } }).detail?.kind;
      const into = kind === perfConstants.NODE_PERFORMANCE_GC_MINOR ? pauses.young : pauses.full;
      into.count++;
      into.maxMs = Math.max(into.maxMs, entry.duration);
    }
  }).observe({ entryTypes: ["gc"] });
  return {
    take: () => {
      const taken = pauses;
      pauses = emptyGcPauses();
      return taken;
    },
  };
}

function emptyGcPauses(): GcPauses {
  return { young: { count: 0, maxMs: 0 }, full: { count: 0, maxMs: 0 } };
}

/** A bare node:https server answering every request with `body` (`@file`: that file's bytes). */
export async function baselineChild(dataDir: string, body: string): Promise<void> {
  const tls = await loadOrCreateServerTls(dataDir);
  const payload = body.startsWith("@") ? readFileSync(body.slice(1)) : Buffer.from(body);
  // Exit (not die) on kill(), so that a --cpu-prof profile is written.
  process.on("SIGTERM", () => process.exit(0));
  const srv = createServer({ key: tls.keyPem, cert: tls.certPem, ...TLS_PREFERENCES }, (_req, res) => {
    res.writeHead(200, { "content-type": "application/json", "content-length": payload.length });
    res.end(payload);
  });
  // {cmd:"cpu"}: this process's CPU so far, like the server child's (the GET phase compares them).
  process.on("message", (msg: { cmd?: string }) => {
    if (msg.cmd === "cpu") process.send!({ cpu: process.cpuUsage() });
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
export async function watchBaselineChild(dataDir: string, object: string): Promise<void> {
  const tls = await loadOrCreateServerTls(dataDir);
  const open = new Set<ServerResponse>();
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
