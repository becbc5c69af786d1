#!/usr/bin/env node
// The CPU one etcd watch stream costs the process that watches, per event, and what it costs etcd.
//   node scripts/watch-decode-bench.js [--dist=DIR,DIR...] [--n=N] [--rounds=R] [--value=BYTES] [--prefix=P]
//   node scripts/watch-decode-bench.js --etcd [--n=N] [--rounds=R]
// Starts its own etcd. A watcher process per run (the EtcdWatchStream of one build's dist/, over the
// whole key space, as the watch hub opens it) follows N creates then N updates of the same keys made by
// this process (64 at a time); it reports its CPU (process.cpuUsage) per event of each kind. Runs of
// the builds alternate, R rounds, so the machine's noise falls on every build alike.
// --prefix: the watcher watches that prefix, which the writes are outside of (what skipping costs).
// --cpu-prof=DIR: the watcher processes write CPU profiles there.
// --decode: the decoding alone, in this process, etcd3's decoder against watch-response.ts.
// --etcd: etcd's own CPU (/proc) per update with no watcher, a watcher without prev_kv and one with it.
import { fork } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const a = args.find((x) => x.startsWith(`--${name}=`));
  return a === undefined ? fallback : a.slice(name.length + 3);
};
const N = Number(opt("n", 5000));
const ROUNDS = Number(opt("rounds", 3));
const VALUE = Number(opt("value", 1000));
const CONCURRENCY = 64;

const load = (dist, file) => import(pathToFileURL(resolve(dist, file)).href);

if (args.includes("--child")) await child();
else if (args.includes("--decode")) await decodeOnly();
else await parent();

/**
 * The decoding alone, in this process: etcd3's deserializer (proto-loader as etcd3 loads it) plus
 * the conversion the stream made of its output, against watch-response.ts, on the same messages.
 */
async function decodeOnly() {
  const { createRequire } = await import("node:module");
  const { dirname, join } = await import("node:path");
  const protobuf = (await import("protobufjs")).default;
  const protoLoader = await import("@grpc/proto-loader");
  const { WatchResponseDecoder } = await load("dist", "storage/etcd/watch-response.js");
  const proto = join(dirname(createRequire(import.meta.url).resolve("etcd3/package.json")), "proto", "rpc.proto");
  const definition = protoLoader.loadSync(proto, {
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  const etcd3Decode = definition["etcdserverpb.Watch"].Watch.responseDeserialize;
  const type = new protobuf.Root().loadSync(proto, { keepCase: true }).lookupType("etcdserverpb.WatchResponse");
  const kv = (mod, v) => ({
    key: Buffer.from(`/registry/teams/team-${mod}`),
    value: Buffer.alloc(VALUE, v),
    create_revision: 1000,
    mod_revision: mod,
    version: 2,
  });
  const header = (revision) => ({
    cluster_id: "14841639068965178418",
    member_id: "10276657743932975437",
    revision,
    raft_term: 2,
  });
  const messages = {
    create: Buffer.from(
      type.encode(type.fromObject({ header: header(123456), events: [{ kv: kv(123456, "a") }] })).finish(),
    ),
    update: Buffer.from(
      type
        .encode(
          type.fromObject({ header: header(123457), events: [{ kv: kv(123457, "b"), prev_kv: kv(123456, "a") }] }),
        )
        .finish(),
    ),
  };
  const toKv = (x) => ({
    key: x.key.toString(),
    value: Buffer.from(x.value),
    createRevision: Number(x.create_revision),
    modRevision: Number(x.mod_revision),
  });
  const old = (buf) => {
    const res = etcd3Decode(buf);
    Number(res.header.revision);
    return res.events.map((ev) => ({
      kv: toKv(ev.kv),
      prevKv: ev.prev_kv ? toKv(ev.prev_kv) : undefined,
      revision: Number(ev.kv.mod_revision),
    }));
  };
  const decoder = new WatchResponseDecoder(Buffer.from(""));
  const mine = (buf) => decoder.decode(buf).events;
  const time = (fn, buf) => {
    const n = N * 20;
    const t = process.cpuUsage();
    for (let i = 0; i < n; i++) fn(buf);
    const d = process.cpuUsage(t);
    return (d.user + d.system) / n;
  };
  console.log(`decoding only, ${N * 20} messages each, values of ${VALUE} bytes (µs per message)`);
  for (let round = 0; round < ROUNDS; round++) {
    for (const kind of ["create", "update"]) {
      const a = time(old, messages[kind]);
      const b = time(mine, messages[kind]);
      console.log(
        `${kind.padEnd(7)} etcd3 (proto-loader) ${a.toFixed(2).padStart(6)}   watch-response.ts ${b.toFixed(2).padStart(6)}`,
      );
    }
  }
}

/** The watcher: reports "ready", then its CPU per event of each kind once it has seen them all. */
async function child() {
  const dist = opt("dist", "dist");
  const endpoint = opt("endpoint", "");
  const prefix = opt("prefix", "");
  const { Etcd3 } = await import("etcd3");
  const client = new Etcd3({ hosts: [`http://${endpoint}`] });
  const from = Number((await client.get("bench-none").exec()).header.revision);
  const marks = [];
  let seen = 0;
  let revision = from;
  /** The revision the parent waits for: told once reached (no message per event, which would cost more than one). */
  let awaited = Number.POSITIVE_INFINITY;
  const mark = () => marks.push({ cpu: process.cpuUsage(), at: performance.now() });
  const onRevision = (r) => {
    revision = r;
    if (r >= awaited) {
      awaited = Number.POSITIVE_INFINITY;
      process.send?.({ revision: r });
    }
  };
  if (opt("raw", "") !== "") {
    // --etcd: a bare etcd3 watch stream, prev_kv as asked.
    const stream = await client.watchClient.watch();
    stream.on("data", (res) => {
      if (res.events.length > 0) onRevision(Number(res.events[res.events.length - 1].kv.mod_revision));
    });
    stream.write({
      create_request: {
        key: Buffer.from([0]),
        range_end: Buffer.from([0]),
        start_revision: from + 1,
        prev_kv: opt("raw") === "prevkv",
      },
    });
  } else {
    const { EtcdWatchStream } = await load(dist, "storage/etcd/watch-stream.js");
    // Builds since the watch left grpc-js open it on the KV client's HTTP/2 sessions (kv-h2.ts);
    // earlier ones on an etcd3 client.
    const onOwnClient = readFileSync(join(dist, "storage/etcd/watch-stream.js"), "utf8").includes("openStream");
    const { EtcdKvH2 } = onOwnClient ? await load(dist, "storage/etcd/kv-h2.js") : {};
    const transport = onOwnClient ? new EtcdKvH2({ endpoints: [endpoint] }) : client;
    const stream = new EtcdWatchStream(transport, prefix, from, {
      onResponse: (events, r) => {
        seen += events.length;
        onRevision(r);
      },
      onCompacted: (err) => {
        throw err;
      },
    });
    stream.start();
  }
  process.on("message", (m) => {
    if (typeof m === "object" && m.until !== undefined) {
      awaited = m.until;
      onRevision(revision);
    } else if (m === "mark") {
      mark();
      process.send?.({ marked: marks.length, revision });
    } else if (m === "report") {
      const [a, b, c] = marks;
      const us = (x, y) => (y.cpu.user + y.cpu.system - x.cpu.user - x.cpu.system) / N;
      process.send?.({ create: us(a, b), update: us(b, c), seen });
      process.exit(0);
    }
  });
  process.send?.({ ready: true, revision: from });
}

async function parent() {
  const { EtcdCluster } = await load("dist", "testing/etcd-cluster.js");
  const { Etcd3 } = await import("etcd3");
  const cluster = await EtcdCluster.start(1);
  const endpoint = cluster.endpoints[0];
  const writer = new Etcd3({ hosts: [`http://${endpoint}`] });
  const etcdPid = findEtcdPid(endpoint);
  const value = Buffer.alloc(VALUE, "x");
  let batch = 0;
  const writeAll = async (keys) => {
    let next = 0;
    let last = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < keys.length) {
          const res = await writer.put(keys[next++]).value(value).exec();
          last = Math.max(last, Number(res.header.revision));
        }
      }),
    );
    return last;
  };
  const run = async (label, childArgs) => {
    const prof = opt("cpu-prof", "");
    const proc = fork(
      new URL(import.meta.url).pathname,
      ["--child", `--endpoint=${endpoint}`, `--n=${N}`, ...childArgs],
      {
        execArgv: prof ? ["--cpu-prof", `--cpu-prof-dir=${prof}`] : [],
      },
    );
    const messages = [];
    let wake = () => {};
    proc.on("message", (m) => {
      messages.push(m);
      wake();
    });
    proc.on("exit", (code) => {
      messages.push({ exited: code });
      wake();
    });
    const until = async (test) => {
      for (;;) {
        const m = messages.find(test);
        if (m) return m;
        if (messages.some((x) => x.exited !== undefined)) throw new Error(`${label}: the watcher exited`);
        await new Promise((r) => {
          wake = r;
        });
      }
    };
    const reached = (rev) => {
      proc.send({ until: rev });
      return until((m) => m.revision >= rev && !m.ready && !m.marked);
    };
    await until((m) => m.ready);
    // A first write proves the stream is open; a thousand more warm the watcher up (JIT) before measuring.
    await reached(await writeAll([`/bench/${batch}/start`]));
    await reached(await writeAll(Array.from({ length: 1000 }, (_, i) => `/bench/${batch}/warm-${i}`)));
    const keys = Array.from({ length: N }, (_, i) => `/bench/${batch}/${i}`);
    batch++;
    const etcdCpu = [];
    proc.send("mark");
    await until((m) => m.marked === 1);
    etcdCpu.push(procCpu(etcdPid));
    await reached(await writeAll(keys));
    proc.send("mark");
    await until((m) => m.marked === 2);
    etcdCpu.push(procCpu(etcdPid));
    await reached(await writeAll(keys));
    proc.send("mark");
    await until((m) => m.marked === 3);
    etcdCpu.push(procCpu(etcdPid));
    proc.send("report");
    const r = await until((m) => m.create !== undefined);
    const etcdUs = (a, b) => ((b - a) * 1e6) / N;
    console.log(
      `${label.padEnd(28)} watcher µs/event: create ${r.create.toFixed(1).padStart(6)}, update ${r.update.toFixed(1).padStart(6)}` +
        `   etcd µs/write: create ${etcdUs(etcdCpu[0], etcdCpu[1]).toFixed(0).padStart(4)}, update ${etcdUs(etcdCpu[1], etcdCpu[2]).toFixed(0).padStart(4)}` +
        `   (events passed on: ${r.seen})`,
    );
  };
  try {
    console.log(
      `N=${N} values of ${VALUE} bytes, load average ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`,
    );
    for (let round = 0; round < ROUNDS; round++) {
      if (args.includes("--etcd")) {
        await runNoWatcher();
        await run("etcd3 watch, no prev_kv", ["--raw=plain"]);
        await run("etcd3 watch, prev_kv", ["--raw=prevkv"]);
        continue;
      }
      for (const entry of opt("dist", "dist").split(",")) {
        await run(entry, [`--dist=${entry}`, ...(opt("prefix", "") ? [`--prefix=${opt("prefix")}`] : [])]);
      }
    }
    console.log(`load average ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`);
  } finally {
    writer.close();
    await cluster.stop();
  }

  async function runNoWatcher() {
    const keys = Array.from({ length: N }, (_, i) => `/bench/${batch}/${i}`);
    batch++;
    const a = procCpu(etcdPid);
    await writeAll(keys);
    const b = procCpu(etcdPid);
    await writeAll(keys);
    const c = procCpu(etcdPid);
    const us = (x, y) => (((y - x) * 1e6) / N).toFixed(0).padStart(4);
    console.log(`${"no watcher".padEnd(28)} etcd µs/write: create ${us(a, b)}, update ${us(b, c)}`);
  }
}

/** The etcd process serving this endpoint (its command line names the client URL). */
function findEtcdPid(endpoint) {
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      if (cmd.startsWith("etcd") || cmd.includes("/etcd\0")) {
        if (cmd.includes(`--listen-client-urls\0http://${endpoint}`) || cmd.includes(endpoint)) return Number(pid);
      }
    } catch {
      // gone
    }
  }
  throw new Error(`no etcd process found for ${endpoint}`);
}

/** A process's user + system CPU in seconds (/proc/PID/stat, in clock ticks of 1/100 s). */
function procCpu(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
