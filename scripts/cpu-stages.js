#!/usr/bin/env node
// Splits a server's .cpuprofile (`BENCH_CPU_PROF=<dir>`) into the stages of a request:
//   node scripts/cpu-stages.js FILE [--from=S] [--to=S] [--us=CPU_PER_REQUEST] [--leaves=STAGE]
// Each sample goes to the innermost frame on its stack that belongs to a stage (node's own
// http/stream frames only when nothing else matches, so a TLS write under the response counts as
// the response's). --us turns shares into microseconds per request; --leaves=STAGE lists the
// functions a stage's samples were in. Find --from/--to with `cpu-profile.js FILE --timeline`.
import { readFileSync } from "node:fs";

const [file, ...args] = process.argv.slice(2);
if (!file) {
  console.error("usage: cpu-stages.js FILE [--from=S] [--to=S] [--us=N] [--leaves=STAGE]");
  process.exit(2);
}
const opt = (name, fallback) => {
  const a = args.find((x) => x.startsWith(`--${name}=`));
  return a === undefined ? fallback : a.slice(name.length + 3);
};
const from = Number(opt("from", 0)) * 1e6;
const to = Number(opt("to", 1e9)) * 1e6;
const us = Number(opt("us", 0));
const leavesOf = opt("leaves", undefined);

const NODE = "node http, sockets, streams (not under another stage)";
/** [stage, test(url, functionName)], tried in this order on each frame from the leaf up. */
const STAGES = [
  [
    "etcd client (grpc-js, etcd3, src/storage/etcd)",
    (u) =>
      /grpc-js|proto-loader|node_modules\/etcd3|node_modules\/long|cockatiel|Executor\.js|http2|storage\/etcd\//.test(
        u,
      ),
  ],
  ["garbage collection", (_u, f) => f === "(garbage collector)"],
  ["SQLite storage and group commit", (u) => /storage\/sqlite\//.test(u)],
  [
    "watch cache, informers, controllers",
    (u) =>
      /storage\/cache\/|registry\/informer|queued-watcher|shared-informers|shared-codec|controllers\/|events\//.test(u),
  ],
  [
    "response write (fastify send, TLS write)",
    (u, f) =>
      /server\/respond\.js/.test(u) ||
      // The fast paths' own writes (fast-create.js, fast-get.js).
      (/server\/fast-(create|get)\.js/.test(u) && /^(write|succeed|fail|send)$/.test(f)) ||
      (/fastify\/lib\/reply/.test(u) && /^(Reply\.send|onSendHook|onSendEnd|writePayload|safeWriteHead)$/.test(f)),
  ],
  ["body read, JSON.parse, duplicate keys", (u) => /server\/body\.js|duplicate-keys|content-type-parser/.test(u)],
  ["authentication", (u) => /crypto\/access-keys|\/auth\/|access-control\.js/.test(u)],
  ["authorization", (u) => /\/authz\//.test(u)],
  ["admission chain", (u) => /registry\/admission\.js|dist\/admission\//.test(u)],
  ["schema prune and check (ajv), depth", (u) => /schema-check|nesting-depth|node_modules\/ajv/.test(u)],
  ["managedFields", (u) => /managed-fields|fields-v1/.test(u)],
  ["metadata defaults and validation", (u) => /registry\/metadata|api\/object|api\/validation|generate-name/.test(u)],
  ["encode to stored bytes (JSON.stringify)", (u) => /registry\/codec/.test(u)],
  ["metrics", (u) => /\/metrics\//.test(u)],
  ["request log, audit, request-done", (u) => /request-log|\/audit\/|request-done/.test(u)],
  [
    "store and verb handlers (incl. copies)",
    (u) =>
      /registry\/store\.js|server\/resource-verbs|resource-handler|resource-path|server\/query|negotiation|request-verb|kinds\//.test(
        u,
      ),
  ],
  [
    "fastify routing and hooks (or the fast paths' checks)",
    (u) =>
      /fastify|find-my-way|avvio|pino|server\/server\.js|light-my-request|toad-cache|server\/fast-(create|get)\.js|in-flight-requests/.test(
        u,
      ),
  ],
  [NODE, (u) => u.startsWith("node:")],
];

const prof = JSON.parse(readFileSync(file, "utf8"));
const nodes = new Map(prof.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

function stageOf(leaf) {
  for (const nodeFrames of [false, true]) {
    for (let n = leaf; n; n = nodes.get(parent.get(n.id))) {
      for (const [name, test] of STAGES) {
        if ((name === NODE) === nodeFrames && test(n.callFrame.url, n.callFrame.functionName)) return name;
      }
    }
  }
  return "V8 and runtime (program, microtask queue, other)";
}

const counts = new Map();
const leaves = new Map();
let total = 0;
let t = prof.startTime;
prof.samples.forEach((id, i) => {
  t += prof.timeDeltas[i];
  const at = t - prof.startTime;
  const leaf = nodes.get(id);
  if (at < from || at > to || leaf.callFrame.functionName === "(idle)") return;
  total++;
  const stage = stageOf(leaf);
  counts.set(stage, (counts.get(stage) ?? 0) + 1);
  if (leavesOf !== undefined && stage.startsWith(leavesOf)) {
    const l = `${leaf.callFrame.functionName || "(anonymous)"} ${leaf.callFrame.url.split("/").slice(-2).join("/")}`;
    leaves.set(l, (leaves.get(l) ?? 0) + 1);
  }
});

console.log(`${total} busy samples`);
console.log("| stage | share | per request |\n|---|---|---|");
for (const [k, v] of [...counts].sort((a, b) => b[1] - a[1])) {
  const share = (100 * v) / total;
  console.log(`| ${k} | ${share.toFixed(1)}% | ${us ? `${Math.round((us * v) / total)} µs` : ""} |`);
}
for (const [k, v] of [...leaves].sort((a, b) => b[1] - a[1]).slice(0, 30)) {
  console.log(`  ${((100 * v) / total).toFixed(2)}% ${k}`);
}
