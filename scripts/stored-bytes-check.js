// What the stored-bytes fast paths' check of a stored version costs (src/registry/raw-read.ts,
// sendableAsStored; docs/performance.md, "Checking stored bytes"):
//   npm run build && node scripts/stored-bytes-check.js micro [DIST]
//     CPU per ~1 KiB Team: the resourceVersion splice alone, the decode check, the whole check
//   node scripts/stored-bytes-check.js list N [ROUNDS] DIST...   e.g. ... list 10000 3 /tmp/old/dist dist
//     N Teams in a fresh SQLite data dir; per round and build, a server started on it (a child
//     process): start → listening, the cache filled, the first in-process raw LIST and the next
//     ones, and what checking every version at once (as a cache fill would) costs. With
//     FIRST_LIST_AFTER_MS=MS the first LIST comes that long after the start (as a client's would),
//     and builds with the background check (stored-bytes-precheck.ts) say when it was done.
//   node scripts/stored-bytes-check.js getdelay N [ROUNDS] DIST
//     N Teams; a client in its own process GETs one Team (the fast path) one request after the
//     other while the server checks 10 × N versions in the background, then while it is idle:
//     the GET's latency during and after (how long the background's slices hold a request)
import { fork, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";

const [, script, mode, ...args] = process.argv;
const load = (dist, module) => import(pathToFileURL(resolve(dist, module)).href);

/** A Team of about 1 KiB as the server stores it. */
function team(i) {
  return {
    apiVersion: "management.platform/v1",
    kind: "Team",
    metadata: {
      name: `team-${String(i).padStart(6, "0")}`,
      uid: `0b6f3f7e-8d7c-4a53-9b0e-${String(i).padStart(12, "0")}`,
      creationTimestamp: "2026-11-23T14:00:00Z",
      labels: { tier: "gold", env: "prod" },
      annotations: { "platform/description": "x".repeat(300) },
    },
    spec: { displayName: `Team ${i}`, users: Array.from({ length: 20 }, (_, k) => `user-${k}@example.com`) },
  };
}

if (mode === "micro") {
  const dist = args[0] ?? "dist";
  const { sendableAsStored } = await load(dist, "registry/raw-read.js");
  const { parseStoredObject } = await load(dist, "registry/stored-object.js");
  const { withResourceVersion } = await load(dist, "registry/shared-codec.js");
  const { encodeObject } = await load(dist, "registry/codec.js");
  const rt = {
    group: "management.platform",
    version: "v1",
    kind: "Team",
    plural: "teams",
    namespaced: false,
    strategy: {},
  };
  const value = encodeObject(team(42));
  const key = "/registry/management.platform/teams/team-000042";
  const N = 200_000;
  // A fresh KeyValue per call: a version is checked once, then its verdict is remembered.
  const kvs = () => Array.from({ length: N }, (_, i) => ({ key, value, createRevision: 1, modRevision: i + 1 }));
  const time = (label, f) => {
    const warm = kvs();
    for (let i = 0; i < 20_000; i++) f(warm[i]);
    const all = kvs();
    const t = process.hrtime.bigint();
    for (let i = 0; i < N; i++) f(all[i]);
    console.log(label.padEnd(56), (Number(process.hrtime.bigint() - t) / N / 1000).toFixed(2), "µs");
  };
  console.log(`value ${value.length} bytes`);
  for (let round = 0; round < 3; round++) {
    time("resourceVersion splice (a GET's answer)", (kv) => withResourceVersion(kv.value, kv.modRevision));
    time("decode check (UTF-8, JSON.parse, identity)", (kv) => parseStoredObject(rt, kv));
    time("whole check (+ encodes back to itself, remembered)", (kv) => sendableAsStored(rt, kv));
  }
} else if (mode === "list") {
  const [n, roundsArg, ...dists] = args;
  const rounds = Number(roundsArg ?? 3);
  const dataDir = mkdtempSync(join(tmpdir(), "stored-bytes-check-"));
  try {
    run("fill", dataDir, dists[0], n);
    for (let round = 0; round < rounds; round++) {
      for (const dist of dists) console.log(dist, run("measure", dataDir, dist).trim());
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
} else if (mode === "getdelay") {
  const [n, roundsArg, dist] = args;
  const dataDir = mkdtempSync(join(tmpdir(), "stored-bytes-check-"));
  try {
    run("fill", dataDir, dist, n);
    for (let round = 0; round < Number(roundsArg ?? 3); round++) console.log(run("getserver", dataDir, dist).trim());
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
} else if (mode === "getclient") {
  // Sequential GETs over one keep-alive connection from "start" until "stop"; latencies in ms.
  const { request, Agent } = await import("node:https");
  const [url, key, path] = args;
  const ca = process.env.STORED_BYTES_CHECK_CA;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const get = () =>
    new Promise((resolve, reject) => {
      const t = performance.now();
      const req = request(new URL(path, url), { ca, agent, headers: { authorization: `Bearer ${key}` } }, (res) => {
        res.resume();
        res.on("end", () =>
          res.statusCode === 200 ? resolve(performance.now() - t) : reject(new Error(`GET ${res.statusCode}`)),
        );
      });
      req.on("error", reject);
      req.end();
    });
  let running = false;
  process.on("message", async ({ cmd }) => {
    if (cmd === "stop") running = false;
    if (cmd !== "start") return;
    running = true;
    const latencies = [];
    while (running) latencies.push(await get());
    process.send({ latencies });
  });
  process.send({ ready: true });
} else if (mode === "getserver") {
  const [dataDir, dist] = args;
  const { startTestServer, GROUP_PATH } = await load(dist, "testing/test-server.js");
  const server = await startTestServer({ dataDir });
  const precheck = server.storedBytesPrecheck;
  await precheck.idle();
  const prefix = "/registry/management.platform/teams/";
  const all = (await server.storage.list(prefix)).items;
  const path = `${GROUP_PATH}/teams/${all[0].key.slice(prefix.length)}`;
  const client = fork(script, ["getclient", server.url, server.adminKey, path], {
    env: { ...process.env, STORED_BYTES_CHECK_CA: server.caPem },
  });
  const reply = () => new Promise((resolve) => client.once("message", resolve));
  await reply();
  const measure = async (whileRunning) => {
    const answer = reply();
    client.send({ cmd: "start" });
    await whileRunning();
    client.send({ cmd: "stop" });
    return (await answer).latencies;
  };
  const pause = (ms) => new Promise((r) => setTimeout(r, ms));
  await measure(() => pause(300)); // warm: the key authenticated, the answer spliced
  let backgroundMs = 0;
  const during = await measure(async () => {
    await pause(20);
    // Ten fills' worth of fresh versions (copies: the cache's own are checked already).
    for (let i = 0; i < 10; i++)
      precheck.filled(
        prefix,
        all.map((kv) => ({ ...kv })),
        () => true,
      );
    const t = performance.now();
    await precheck.idle();
    backgroundMs = performance.now() - t;
  });
  const idle = await measure(() => pause(backgroundMs));
  client.kill();
  await server.stop({ keepData: true });
  const stats = (l) => {
    const sorted = [...l].sort((x, y) => x - y);
    const q = (p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))].toFixed(2);
    return `n ${l.length} p50 ${q(0.5)} p99 ${q(0.99)} max ${sorted[sorted.length - 1].toFixed(2)} ms`;
  };
  console.log(
    `${all.length * 10} versions checked in the background in ${Math.round(backgroundMs)} ms; ` +
      `GET during: ${stats(during)}; GET idle: ${stats(idle)}`,
  );
} else if (mode === "fill" || mode === "measure") {
  const [dataDir, dist, n] = args;
  const { startTestServer } = await load(dist, "testing/test-server.js");
  const { systemContext } = await load(dist, "registry/request-context.js");
  const t0 = performance.now();
  const server = await startTestServer({ dataDir });
  const startMs = performance.now() - t0;
  const store = server.registry.store("teams");
  if (mode === "fill") {
    const { encodeObject } = await load(dist, "registry/codec.js");
    for (let i = 0; i < Number(n); i += 500) {
      const batch = [];
      for (let k = i; k < Math.min(Number(n), i + 500); k++) {
        batch.push(server.storage.create(store.key(undefined, team(k).metadata.name), encodeObject(team(k))));
      }
      await Promise.all(batch);
    }
  } else {
    // When the background check (if this build has one) was done, counted from the start.
    let checkedMs;
    server.storedBytesPrecheck?.idle().then(() => {
      checkedMs = performance.now() - t0;
    });
    const later = Number(process.env.FIRST_LIST_AFTER_MS ?? 0);
    if (later > 0) await new Promise((r) => setTimeout(r, later));
    const f = performance.now();
    const all = await server.storage.list("/registry/management.platform/teams/");
    const fillMs = performance.now() - f;
    const lists = [];
    for (let i = 0; i < 4; i++) {
      const t = performance.now();
      (await store.listRaw(systemContext(), undefined, {})).toBuffer();
      lists.push(Math.round(performance.now() - t));
    }
    // Every version checked again, from fresh copies (the cache's ones are remembered now).
    let eagerMs;
    const raw = await load(dist, "registry/raw-read.js");
    if (raw.sendableAsStored) {
      const copies = all.items.map((kv) => ({ ...kv }));
      const t = performance.now();
      for (const kv of copies) raw.sendableAsStored(store.rt, kv);
      eagerMs = Math.round(performance.now() - t);
    }
    await server.storedBytesPrecheck?.idle();
    console.log(
      `objects ${all.items.length}: start ${Math.round(startMs)} ms, cache filled +${Math.round(fillMs)} ms, ` +
        (later > 0 ? `first LIST ${later} ms after, ` : "") +
        `raw LIST ms ${lists.join(", ")}` +
        (checkedMs === undefined
          ? ""
          : `, background check done ${Math.round(checkedMs - startMs)} ms after listening`) +
        (eagerMs === undefined ? "" : `, checking every version at once ${eagerMs} ms`),
    );
  }
  await server.stop({ keepData: true });
} else {
  console.error(`usage: node ${script} micro [DIST] | list N [ROUNDS] DIST... | getdelay N [ROUNDS] DIST`);
  process.exit(2);
}

function run(...childArgs) {
  const r = spawnSync(process.execPath, [script, ...childArgs], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  if (r.status !== 0) throw new Error(`${childArgs[0]} failed`);
  return r.stdout;
}
