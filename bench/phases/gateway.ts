/**
 * GATEWAY: GETs of one pod through the cluster gateway beside the same GETs sent straight to the
 * same upstream (a stand-in cluster API server in its own child process), in the same run: the
 * maximum rate (autocannon) and latency at a steady moderate rate (paced-get.ts); then watch
 * event delivery through the gateway beside watches straight to the upstream.
 */
import { request } from "node:https";
import { FakeClusterApiServer } from "../../dist/testing/bench-entry.js";
import {
  type Child,
  cannon,
  f,
  histogramPct,
  perSecond,
  rateRun,
  req,
  type ServerBench,
  spawnChild,
} from "../harness.js";
import type { PacedResult } from "../paced-get.js";
import { pacedGet } from "./get.js";

const POD = "/api/v1/namespaces/default/pods/bench";
const WATCH = "/api/v1/namespaces/default/pods?watch=true";

/**
 * Child mode `fakecluster`: the upstream. First message {port, token, kubeconfig}; then
 * {cmd:"event"} adds a stamped pod, {cmd:"cpu"} answers {cpuMs} used so far.
 */
export async function fakeClusterChild(): Promise<void> {
  const fake = await FakeClusterApiServer.start();
  fake.add("pods", "default", "bench");
  let n = 0;
  process.on("message", (msg: { cmd: string }) => {
    if (msg.cmd === "event") {
      fake.add("pods", "default", `e${n++}`, { stamp: Date.now() });
      process.send!({ ok: true });
    } else if (msg.cmd === "cpu") {
      const used = process.cpuUsage();
      process.send!({ cpuMs: (used.user + used.system) / 1000 });
    }
  });
  process.send!({
    port: Number(new URL(fake.url).port),
    token: fake.token,
    kubeconfig: fake.kubeconfig(),
    caPem: fake.ca.certPem,
  });
}

/** The upstream, the minimal proxy beside it, and the gateway's paths to the upstream's pod. */
interface GatewaySetup {
  up: Child;
  upPort: number;
  upToken: string;
  mini: Child;
  miniPort: number;
  /** The pod's path through the gateway. */
  gw: string;
}

export async function benchGateway(b: ServerBench): Promise<void> {
  const setup = await startUpstreams(b);
  const maxRate = await benchGatewayRate(b, setup);
  await benchGatewayCpu(b, setup);
  await benchGatewayLatency(b, setup, maxRate);
  await benchGatewayWatch(b, setup);
  setup.up.proc.kill();
  setup.mini.proc.kill();
}

/** The upstream cluster and the minimal proxy in children of their own; the cluster registered on the platform. */
async function startUpstreams(b: ServerBench): Promise<GatewaySetup> {
  const { port, key } = b;
  const up = await spawnChild(["fakecluster"], b.childExecArgv);
  b.children.push(up);
  const upPort = up.first.port as number;
  const upToken = up.first.token as string;
  // The second baseline: the least any Node.js proxy does (minimal-proxy.ts), beside the same upstream.
  const mini = await spawnChild(["minproxy", b.dataDir], b.childExecArgv, undefined, {
    url: `https://127.0.0.1:${upPort}`,
    token: upToken,
    caPem: up.first.caPem,
  });
  b.children.push(mini);
  const base = "/kubernetes/management/apis/management.platform/v1";
  const secret = {
    metadata: { name: "bench-kc" },
    spec: { data: { config: Buffer.from(up.first.kubeconfig as string).toString("base64") } },
  };
  for (const [path, body] of [
    [`${base}/namespaces/platform/sharedsecrets`, secret],
    [`${base}/clusters`, { metadata: { name: "bench" }, spec: { config: { secretName: "bench-kc" } } }],
  ] as const) {
    const r = await req(port, key, "POST", path, JSON.stringify(body));
    if (r.status !== 201) throw new Error(`GATEWAY setup ${path}: ${r.status} ${r.body}`);
  }
  return { up, upPort, upToken, mini, miniPort: mini.first.port as number, gw: `/kubernetes/cluster/bench${POD}` };
}

/** The maximum GET rate through the gateway, straight to the upstream and through the minimal proxy; returns the gateway's. */
async function benchGatewayRate(b: ServerBench, { upPort, upToken, miniPort, gw }: GatewaySetup): Promise<number> {
  const { port, key, N, row } = b;
  const viaGw = { url: `https://127.0.0.1:${port}${gw}`, headers: { authorization: `Bearer ${key}` } };
  const toUp = { url: `https://127.0.0.1:${upPort}${POD}`, headers: { authorization: `Bearer ${upToken}` } };
  // Warm both first: a cold process compiles its hot paths and opens its connections (two TLS
  // handshakes per gateway connection) during the first second, which a short run would charge
  // to the gateway alone (it runs first).
  const viaMini = { url: `https://127.0.0.1:${miniPort}${POD}` };
  // A run of a fixed number of requests (--smoke) measures nothing worth warming up for.
  if (N.requests === undefined) {
    await cannon(1, viaGw);
    await cannon(1, toUp);
    await cannon(1, viaMini);
  }
  const g = await rateRun(N, viaGw);
  const d = await rateRun(N, toUp);
  const m = await rateRun(N, viaMini);
  if (g.errors || d.errors || m.errors)
    console.error(`GATEWAY GET errors: ${g.errors} through, ${d.errors} direct, ${m.errors} minimal proxy`);
  if (g.non2xx || d.non2xx || m.non2xx)
    throw new Error(`GATEWAY GET answered non-2xx: ${g.non2xx} through, ${d.non2xx} direct, ${m.non2xx} minimal proxy`);
  const [through, direct, minimal] = [perSecond(g), perSecond(d), perSecond(m)];
  row(
    "GATEWAY GET req/s (64 conns) through / direct",
    f(through, 0),
    f(direct, 0),
    `${f((100 * through) / direct, 0)}%`,
  );
  row(
    "GATEWAY GET req/s (64 conns) minimal Node.js proxy / direct",
    f(minimal, 0),
    f(direct, 0),
    `${f((100 * minimal) / direct, 0)}%`,
  );
  return through;
}

/**
 * CPU per request depends far less on how busy the shared machine is than throughput does,
 * and a ratio of two processes measured over the same requests in the same window cancels
 * most of what is left: the proxy's CPU per forwarded GET beside the upstream's CPU for the
 * same GETs, on connections opened beforehand (a TLS handshake costs as much as dozens of GETs).
 */
async function benchGatewayCpu(b: ServerBench, { up, mini, miniPort, gw }: GatewaySetup): Promise<void> {
  const n = b.N.cpuGets;
  const gwCpu = await cpuPerGet(b.server, up, b.port, gw, b.key, n);
  b.row(
    `GATEWAY CPU µs per GET (${n} on open connections): gateway process / upstream process, same GETs`,
    f(gwCpu.proxy, 0),
    f(gwCpu.upstream, 0),
    `${f(gwCpu.proxy / gwCpu.upstream, 1)}×`,
  );
  const miniCpu = await cpuPerGet(mini, up, miniPort, POD, "", n);
  b.row(
    `GATEWAY CPU µs per GET (${n} on open connections): minimal Node.js proxy / upstream process, same GETs`,
    f(miniCpu.proxy, 0),
    f(miniCpu.upstream, 0),
    `${f(miniCpu.proxy / miniCpu.upstream, 1)}×`,
  );
}

/** Latency at a moderate steady rate both can serve: half of the gateway's maximum. */
async function benchGatewayLatency(b: ServerBench, { upPort, upToken, gw }: GatewaySetup, maxRate: number) {
  const rate = Math.max(1, Math.floor(maxRate / 2));
  const through: PacedResult = await pacedGet(b.N.dur, b.port, gw, b.key, rate);
  const direct: PacedResult = await pacedGet(b.N.dur, upPort, POD, upToken, rate);
  const p = (r: PacedResult, q: number) => histogramPct(new Map(r.histogram), r.ok, q);
  const latency = (r: PacedResult) => `${f(p(r, 50))}/${f(p(r, 99))}${r.failed ? ` (${r.failed} failed)` : ""}`;
  b.row(
    `GATEWAY GET p50/p99 ms at ${rate} req/s (paced) through / direct`,
    latency(through),
    latency(direct),
    `+${f(p(through, 50) - p(direct, 50))} ms p50`,
  );
}

/** Watch event delivery through the gateway beside watches straight to the upstream. */
async function benchGatewayWatch(b: ServerBench, { up, upPort, upToken }: GatewaySetup): Promise<void> {
  const { N } = b;
  const watchers = Math.min(N.watchers, 200);
  const viaGateway = await watchDelivery(b.port, `/kubernetes/cluster/bench${WATCH}`, b.key, watchers, up, N.watchSec);
  const straight = await watchDelivery(upPort, WATCH, upToken, watchers, up, N.watchSec);
  b.row(
    `GATEWAY watch delivery p50/p99 ms (${watchers} watchers) through / direct`,
    `${f(viaGateway.p50)}/${f(viaGateway.p99)} (${viaGateway.received}/${viaGateway.expected})`,
    `${f(straight.p50)}/${f(straight.p99)} (${straight.received}/${straight.expected})`,
    "",
  );
}

/**
 * CPU (µs) per GET of `path` that the proxy and the upstream behind it each spend, measured over
 * the same GETs (16 at a time on kept-alive connections warmed first, with a twentieth as many).
 */
async function cpuPerGet(
  proxy: { ask<T>(m: object): Promise<T> },
  upstream: { ask<T>(m: object): Promise<T> },
  port: number,
  path: string,
  key: string,
  n: number,
): Promise<{ proxy: number; upstream: number }> {
  const many = async (count: number) => {
    let left = count;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (left-- > 0) {
          const r = await req(port, key, "GET", path);
          if (r.status !== 200) throw new Error(`GATEWAY GET ${path}: ${r.status}`);
        }
      }),
    );
  };
  await many(Math.ceil(n / 20));
  const cpu = async () =>
    Promise.all([proxy, upstream].map(async (p) => (await p.ask<{ cpuMs: number }>({ cmd: "cpu" })).cpuMs));
  const before = await cpu();
  await many(n);
  const after = await cpu();
  return { proxy: (1000 * (after[0]! - before[0]!)) / n, upstream: (1000 * (after[1]! - before[1]!)) / n };
}

/** Opens `n` watches, has the upstream add a stamped pod 10 times a second, and measures stamp-to-arrival. */
async function watchDelivery(
  port: number,
  path: string,
  key: string,
  n: number,
  up: { ask(m: object): Promise<unknown> },
  seconds: number,
) {
  const delays: number[] = [];
  let open = 0;
  const reqs = Array.from({ length: n }, () => {
    const r = request(
      { host: "127.0.0.1", port, path, rejectUnauthorized: false, headers: { authorization: `Bearer ${key}` } },
      (res) => {
        open++;
        let buf = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          buf += chunk;
          let i = buf.indexOf("\n");
          while (i >= 0) {
            const stamp = /"stamp":(\d+)/.exec(buf.slice(0, i))?.[1];
            if (stamp) delays.push(Date.now() - Number(stamp));
            buf = buf.slice(i + 1);
            i = buf.indexOf("\n");
          }
        });
        res.on("error", () => {});
      },
    );
    r.on("error", () => {});
    r.end();
    return r;
  });
  const deadline = Date.now() + 60_000;
  while (open < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  const events = Math.max(1, seconds * 10);
  for (let i = 0; i < events; i++) {
    await up.ask({ cmd: "event" });
    await new Promise((r) => setTimeout(r, 100));
  }
  await new Promise((r) => setTimeout(r, 500));
  for (const r of reqs) r.destroy();
  const sorted = [...delays].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor((q / 100) * sorted.length))] ?? Number.NaN;
  return { p50: at(50), p99: at(99), received: delays.length, expected: events * n };
}
