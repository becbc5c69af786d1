/**
 * Fuzz suite: thousands of generated hostile requests over every kind and verb against a server
 * run in this process (so prototype pollution would be visible here). Asserts no 5xx, every
 * error body a meta/v1 Status whose code is the HTTP status, lists holding only their own kind,
 * the server healthy afterwards and no prototype touched. Bounded in count (FUZZ_COUNT, default
 * 2500) and time (FUZZ_TIME_MS, default 40 s); seeded: the seed is printed, FUZZ_SEED=N replays.
 */
import assert from "node:assert/strict";
import { appendFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { type FuzzRequest, type FuzzResource, hostileRequest } from "../testing/fuzz/hostile-requests.js";
import { KNOWN_NAMES } from "../testing/fuzz/hostile-values.js";
import { fuzzSeed, Rng } from "../testing/fuzz/prng.js";
import { type FuzzResponse, fuzzAgents, sendFuzzRequest } from "../testing/fuzz/raw-client.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";

const COUNT = Number(process.env.FUZZ_COUNT ?? 2500);
const TIME_MS = Number(process.env.FUZZ_TIME_MS ?? 40_000);
const WORKERS = 6;
const MAX_REPORTED = 8;
/** FUZZ_LOG=FILE: every exchange, in short, appended to FILE (to find what led to a failure). */
const LOG = process.env.FUZZ_LOG;

const PROTOTYPES: [string, object][] = [
  ["Object.prototype", Object.prototype],
  ["Array.prototype", Array.prototype],
  ["Function.prototype", Function.prototype],
  ["String.prototype", String.prototype],
];
const ownNames = () => PROTOTYPES.map(([n, p]) => `${n}: ${Object.getOwnPropertyNames(p).sort().join(",")}`);

let server: TestServer;
before(async () => {
  server = await startTestServer();
  const create = async (path: string, kind: string, name: string) => {
    const body = { apiVersion: "management.platform/v1", kind, metadata: { name, labels: { fuzz: "yes" } }, spec: {} };
    const res = await server.request("POST", path, { body });
    assert.equal(res.status, 201, res.text);
  };
  await create(`${GROUP_PATH}/projects`, "Project", "fuzz");
  for (const name of KNOWN_NAMES) {
    await create(`${GROUP_PATH}/users`, "User", name);
    await create(`${GROUP_PATH}/teams`, "Team", name);
    await create(`${GROUP_PATH}/namespaces/p-fuzz/sharedsecrets`, "SharedSecret", name);
  }
});
after(async () => {
  await server?.stop();
});

/** What is wrong with an answer, or undefined. */
function problem(req: FuzzRequest, res: FuzzResponse): string | undefined {
  const body = res.decoded as Record<string, unknown> | undefined;
  // kube-apiserver's answer to a read at a revision it has not reached (client-go knows it): the one 5xx allowed.
  const tooLargeVersion = res.status === 504 && String(body?.message).startsWith("Too large resource version");
  if (res.status >= 500 && !tooLargeVersion) return `answered ${res.status}`;
  if (res.status >= 400 && req.method !== "HEAD") {
    if (body?.kind !== "Status" || body.apiVersion !== "v1") return `error ${res.status} without a Status body`;
    if (body.code !== res.status) return `Status code ${String(body.code)} differs from HTTP ${res.status}`;
  }
  const watching = req.path.includes("watch=true");
  if (res.status === 200 && !watching && typeof body?.kind === "string" && body.kind.endsWith("List")) {
    const itemKind = body.kind.slice(0, -"List".length);
    const items = Array.isArray(body.items) ? (body.items as { kind?: string }[]) : [];
    const stranger = items.find((i) => i.kind !== undefined && i.kind !== itemKind);
    if (stranger) return `a ${body.kind} holds a ${stranger.kind}`;
  }
  return undefined;
}

function describeExchange(index: number, req: FuzzRequest, res: FuzzResponse): string {
  const headers = Object.entries(req.headers)
    .map(([k, v]) => `${k}: ${v.slice(0, 80)}`)
    .join("; ");
  const body =
    req.body === undefined ? "" : `\n  body (${req.body.length} chars): ${JSON.stringify(req.body.slice(0, 300))}`;
  return `#${index} ${req.method} ${req.path.slice(0, 300)} [auth ${req.auth}; ${headers}]${body}\n  → ${res.status} ${res.text.slice(0, 400)}`;
}

test("hostile requests get Status answers, never 5xx, and leave the server healthy and unpolluted", {
  timeout: TIME_MS + 120_000,
}, async (t) => {
  const seed = fuzzSeed();
  t.diagnostic(`fuzz seed ${seed} (replay: FUZZ_SEED=${seed} node scripts/run-tests.js fuzz.test)`);
  const protoBefore = ownNames();
  const discovery = await server.request("GET", GROUP_PATH);
  const resources = (discovery.json.resources as FuzzResource[]).filter((r) => !r.name.includes("/"));
  const rng = new Rng(seed);
  const agents = fuzzAgents();
  const failures: string[] = [];
  let next = 0;
  let sent = 0;
  let unsendable = 0;
  const deadline = Date.now() + TIME_MS;
  const worker = async () => {
    while (next < COUNT && Date.now() < deadline && failures.length < MAX_REPORTED) {
      const index = next++;
      const req = hostileRequest(rng, resources);
      const res = await sendFuzzRequest(server, agents, req).catch((err: Error) => {
        failures.push(`#${index} ${req.method} ${req.path.slice(0, 200)}: connection failed: ${err.message}`);
        return undefined;
      });
      if (!res) {
        unsendable++;
        continue;
      }
      sent++;
      if (LOG) appendFileSync(LOG, `${describeExchange(index, req, res)}\n`);
      const wrong = problem(req, res);
      if (wrong) failures.push(`${wrong}\n${describeExchange(index, req, res)}`);
    }
  };
  try {
    await Promise.all(Array.from({ length: WORKERS }, worker));
  } finally {
    agents.good.destroy();
    agents.bad.destroy();
  }
  t.diagnostic(`${sent} requests answered, ${unsendable} not sendable, ${next} generated`);
  const replay = `fuzz seed ${seed}; replay with FUZZ_SEED=${seed}`;
  assert.deepEqual(failures, [], `${replay}\n${failures.join("\n\n")}`);
  assert.ok(sent >= Math.min(COUNT, 200), `${replay}: only ${sent} requests were answered`);

  // Nothing touched a prototype of this process (the server runs in it).
  assert.equal(({} as Record<string, unknown>).polluted, undefined, replay);
  assert.equal(([] as unknown as Record<string, unknown>).polluted, undefined, replay);
  assert.deepEqual(ownNames(), protoBefore, replay);

  // Still healthy: ready, and a normal create, read and delete work.
  assert.equal((await server.request("GET", "/readyz", { token: null })).status, 200, replay);
  const team = { apiVersion: "management.platform/v1", kind: "Team", metadata: { name: "after-fuzz" }, spec: {} };
  const created = await server.request("POST", `${GROUP_PATH}/teams`, { body: team });
  assert.equal(created.status, 201, `${replay}: ${created.text}`);
  assert.equal((await server.request("GET", `${GROUP_PATH}/teams/after-fuzz`)).status, 200, replay);
  assert.equal((await server.request("DELETE", `${GROUP_PATH}/teams/after-fuzz`)).status, 200, replay);
});
