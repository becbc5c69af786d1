/**
 * Fuzz suite beyond the management API: generated hostile requests (hostile-surfaces.ts) to the
 * cluster gateway, the agent, the web console and single sign-on, against a server and an agent
 * run in this process. After each request: the server and the agent still answer, and the
 * answer is what that surface answers (a Status whose code is the HTTP status for every error
 * of the API-like surfaces; a page or a redirect of the browser ones), never a 5xx but the 508
 * of a loop. The test runner keeps its process alive through an exception nothing caught, so
 * those are collected here and fail the run. Bounded in count (FUZZ_COUNT, default 600) and
 * time (FUZZ_TIME_MS, default 30 s); seeded: FUZZ_SEED=N replays.
 */
import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { RunningAgent } from "../agent/agent.js";
import { prepareAgentDir, startTestAgent } from "../testing/agent-fixture.js";
import { FakeClusterApiServer } from "../testing/fake-cluster-apiserver.js";
import { hostileSurfaceRequest, type SurfaceRequest } from "../testing/fuzz/hostile-surfaces.js";
import { fuzzSeed, Rng } from "../testing/fuzz/prng.js";
import { type FuzzResponse, fuzzAgents, sendFuzzRequest } from "../testing/fuzz/raw-client.js";
import { accessKey, connectCluster, postObject } from "../testing/gateway-fixture.js";
import { TestIdentityProvider } from "../testing/oidc-test-provider.js";
import { startTestServer, type TestServer } from "../testing/test-server.js";

const COUNT = Number(process.env.FUZZ_COUNT ?? 600);
const TIME_MS = Number(process.env.FUZZ_TIME_MS ?? 30_000);
const WORKERS = 4;
const MAX_REPORTED = 8;
/** FUZZ_LOG=FILE: each request, in short, appended to FILE before it is sent (to find what led to a failure). */
const LOG = process.env.FUZZ_LOG;

let server: TestServer;
let cluster: FakeClusterApiServer;
let idp: TestIdentityProvider;
let agent: RunningAgent;
let agentCa = "";
const credentials: Record<string, string> = {};
/** Whether this build has the console's files (without them, every console page is 503 saying so). */
let consoleBuilt = true;
/** What escaped every handler while the fuzz ran: each one would have ended a real server process. */
const escaped: string[] = [];
const onEscape = (err: unknown) => escaped.push(err instanceof Error ? (err.stack ?? err.message) : String(err));

before(async () => {
  [cluster, idp] = await Promise.all([FakeClusterApiServer.start(), TestIdentityProvider.start()]);
  server = await startTestServer({
    freshnessWaitMs: 200,
    allowLocalEndpoints: true,
    oidc: idp.platformConfig("fuzz-client-secret"),
  });
  idp.trustPlatform(server.url, "fuzz-client-secret");
  cluster.add("pods", "default", "web-1");
  await postObject(server, "users", { metadata: { name: "fuzzer" }, spec: {} });
  await postObject(server, "projects", { metadata: { name: "fuzz" }, spec: {} });
  await connectCluster(server, "c1", cluster, { access: [{ verbs: ["use", "get"], users: ["fuzzer"] }] });
  credentials.scoped = await accessKey(server, "fuzzer", {
    rules: [{ cluster: "c1", verbs: ["get", "list"], namespaces: ["default"], resources: [{ resources: ["pods"] }] }],
  });
  const fuzzerKey = await accessKey(server, "fuzzer");
  const issued = await postObject(
    server,
    "directclusterendpointtokens",
    {
      metadata: {},
      spec: {
        ttl: 600,
        scope: { rules: [{ cluster: "c1", verbs: ["get", "list"], resources: [{ resources: ["pods"] }] }] },
      },
    },
    fuzzerKey,
  );
  credentials.direct = issued.status.token as string;
  const dir = mkdtempSync(join(tmpdir(), "fuzz-surfaces-"));
  agentCa = await prepareAgentDir(dir, cluster);
  agent = await startTestAgent(server, dir);
  const page = await server.request("GET", "/console/", { token: null });
  consoleBuilt = !(page.status === 503 && page.text.includes("was not built"));
  process.on("uncaughtException", onEscape);
  process.on("unhandledRejection", onEscape);
});
after(async () => {
  process.off("uncaughtException", onEscape);
  process.off("unhandledRejection", onEscape);
  await agent?.close();
  await server?.stop();
  await cluster?.stop();
  await idp?.close();
});

/** The browser surfaces answer pages and redirects; everything else answers errors as a Status. */
const BROWSER_PAGE = /^\/(console(\/(?!api\/)|$)|auth\/oidc\/(login|callback)|$)/;

/** What is wrong with an answer, or undefined. */
function problem(req: SurfaceRequest, res: FuzzResponse): string | undefined {
  const body = res.decoded as Record<string, unknown> | undefined;
  const loop = res.status === 508 && req.headers["platform-gateway-hops"] !== undefined;
  // A server whose console was not built says so on every console page (as it is in some test runs).
  const unbuiltConsole = res.status === 503 && req.path.startsWith("/console") && !consoleBuilt;
  if (res.status >= 500 && !loop && !unbuiltConsole) return `answered ${res.status}`;
  if (unbuiltConsole) return undefined;
  if (res.status < 400 || req.method === "HEAD") return undefined;
  const page = BROWSER_PAGE.test(req.path) && String(res.headers["content-type"]).startsWith("text/html");
  if (page) return undefined;
  // An upgrade the gateway let through and the cluster refused: the cluster's own answer, relayed.
  // (The gateway's own refusals always carry a Status body.)
  if (req.headers.upgrade !== undefined && res.text === "") return undefined;
  if (body?.kind !== "Status" || body.apiVersion !== "v1") return `error ${res.status} without a Status body`;
  if (body.code !== res.status) return `Status code ${String(body.code)} differs from HTTP ${res.status}`;
  return undefined;
}

function describeExchange(index: number, req: SurfaceRequest, res: FuzzResponse): string {
  const headers = Object.entries(req.headers)
    .map(([k, v]) => `${k}: ${v.slice(0, 60)}`)
    .join("; ");
  return `#${index} ${req.surface} ${req.method} ${req.path.slice(0, 300)} [${req.credential}; ${headers.slice(0, 400)}]\n  → ${res.status} ${res.text.slice(0, 300)}`;
}

/** Whether the server and the agent still answer (with a Status: the agent has no page of its own). */
async function stillAlive(agents: ReturnType<typeof fuzzAgents>): Promise<string | undefined> {
  const ready = await sendFuzzRequest(server, agents, { method: "GET", path: "/readyz", headers: {}, auth: "admin" });
  if (ready?.status !== 200) return `the server no longer answers /readyz (${ready?.status})`;
  const agentTarget = { port: agent.port, caPem: agentCa, adminKey: credentials.direct! };
  const agentRes = await sendFuzzRequest(agentTarget, agents, {
    method: "GET",
    path: "/api",
    headers: {},
    auth: "admin",
  });
  if (agentRes?.status !== 200) return `the agent no longer answers (${agentRes?.status})`;
  return undefined;
}

test("hostile requests to the gateway, agent, console and SSO get their answers, and both processes live on", {
  timeout: TIME_MS + 120_000,
}, async (t) => {
  const seed = fuzzSeed();
  t.diagnostic(`fuzz seed ${seed} (replay: FUZZ_SEED=${seed} node scripts/run-tests.js fuzz-surfaces)`);
  const rng = new Rng(seed);
  const agents = fuzzAgents();
  const failures: string[] = [];
  let next = 0;
  let sent = 0;
  const deadline = Date.now() + TIME_MS;
  const worker = async () => {
    while (next < COUNT && Date.now() < deadline && failures.length < MAX_REPORTED) {
      const index = next++;
      const req = hostileSurfaceRequest(rng);
      const toAgent = req.surface === "agent";
      const target = toAgent
        ? { port: agent.port, caPem: agentCa, adminKey: credentials.direct! }
        : { port: server.port, caPem: server.caPem, adminKey: server.adminKey };
      if (req.credential === "scoped" || (req.credential === "direct" && toAgent)) {
        req.headers.authorization = `Bearer ${credentials[req.credential]}`;
      } else if (req.credential === "bad") req.headers.authorization = "Bearer not-a-key";
      if (LOG)
        appendFileSync(
          LOG,
          `#${index} ${req.surface} ${req.method} ${req.path} ${JSON.stringify(req.headers).slice(0, 300)}\n`,
        );
      const res = await sendFuzzRequest(target, agents, req).catch((err: Error) => {
        failures.push(
          `#${index} ${req.surface} ${req.method} ${req.path.slice(0, 200)}: connection failed: ${err.message}`,
        );
        return undefined;
      });
      if (!res) continue;
      if (LOG) appendFileSync(LOG, `#${index} → ${res.status}\n`);
      sent++;
      const wrong = problem(req, res) ?? (await stillAlive(agents));
      if (wrong) failures.push(`${wrong}\n${describeExchange(index, req, res)}`);
    }
  };
  try {
    await Promise.all(Array.from({ length: WORKERS }, worker));
  } finally {
    agents.good.destroy();
    agents.bad.destroy();
  }
  t.diagnostic(`${sent} requests answered, ${next} generated`);
  const replay = `fuzz seed ${seed}; replay with FUZZ_SEED=${seed}`;
  assert.deepEqual(escaped, [], `${replay}: exceptions escaped every handler`);
  assert.deepEqual(failures, [], `${replay}\n${failures.join("\n\n")}`);
  assert.ok(sent >= Math.min(COUNT, 100), `${replay}: only ${sent} requests were answered`);
});
