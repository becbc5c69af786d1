import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Agent } from "node:https";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { EtcdCluster } from "../testing/etcd-cluster.js";
import { isAlive, until as waitUntil } from "../testing/process-wait.js";
import { callAsAdmin, type ServerProcess, startServerProcess } from "../testing/server-process.js";
import { GROUP_PATH } from "../testing/test-server.js";
import { parseWorkers } from "./worker-cluster.js";

/** Bounded waits (hang guards, not timing assertions). */
const WAIT_MS = 120_000;

/** The value of one sample (`name{labels} value`) whose labels include all of `labels`, summed; 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) total += Number(line.split(" ").pop());
  }
  return total;
}

/** One scrape of /metrics through the shared address, on a fresh connection (any worker may take it). */
async function scrape(server: ServerProcess): Promise<string> {
  const r = await callAsAdmin(server, false, "GET", "/metrics");
  assert.equal(r.status, 200, r.text);
  return r.text;
}

/** The workers a scrape shows: worker number → the pid in its replica identity. */
function replicasIn(text: string): Map<number, number> {
  const found = new Map<number, number>();
  for (const m of text.matchAll(/^platform_replica_info\{identity="([^"]+)",worker="(\d+)"\} 1$/gm)) {
    found.set(Number(m[2]), pidOf(m[1]!));
  }
  return found;
}

const pidOf = (identity: string) => Number(/-(\d+)-[0-9a-f]{8}$/.exec(identity)?.[1]);

type LogLine = Record<string, unknown> & { pid: number; msg: string };

/** The server's JSON log lines (the primary's and the workers'), those containing `part` when given. */
function logLines(server: ServerProcess, part = "{"): LogLine[] {
  return server
    .output()
    .split("\n")
    .filter((l) => l.startsWith("{") && l.includes(part))
    .map((l) => JSON.parse(l) as LogLine);
}

let probes = 0;
/** The worker that answered a request on this connection, as its access log line names it. */
async function workerOn(server: ServerProcess, agent: Agent | false): Promise<{ worker: number; pid: number }> {
  const id = `probe-${++probes}`;
  const r = await callAsAdmin(server, agent, "GET", `${GROUP_PATH}/teams?limit=1`, undefined, { "x-request-id": id });
  assert.equal(r.status, 200, r.text);
  let line: LogLine | undefined;
  await until(`the access line of ${id}`, () => {
    line = logLines(server, `"requestId":"${id}"`)[0];
    return line !== undefined;
  });
  return { worker: line!.worker as number, pid: line!.pid };
}

const until = (what: string, done: () => boolean) => waitUntil(what, done, WAIT_MS);

describe("platform start --workers 2 on etcd", () => {
  let etcd: EtcdCluster;
  let server: ServerProcess;
  const dir = mkdtempSync(join(tmpdir(), "platform-workers-"));
  /** Worker number → its pid now. */
  let workers = new Map<number, number>();
  const workerPids = () => [...workers.values()];
  const TEAMS = { group: "management.platform", resource: "teams" };

  before(async () => {
    etcd = await EtcdCluster.start(1);
    server = await startServerProcess(dir, undefined, ["--storage", etcd.url, "--workers", "2", "--log-level", "info"]);
    const line = /^workers: +2 processes \(pids (\d+), (\d+)\)$/m.exec(server.output());
    assert.ok(line, server.output());
    workers = new Map([
      [1, Number(line[1])],
      [2, Number(line[2])],
    ]);
  });
  after(async () => {
    if (server && server.child.exitCode === null) server.child.kill("SIGKILL");
    for (const pid of workerPids()) if (isAlive(pid)) process.kill(pid, "SIGKILL");
    await etcd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers from both workers, and every log line names its worker", async () => {
    const seen = new Map<number, number>();
    for (let i = 0; i < 12; i++) {
      const { worker, pid } = await workerOn(server, false);
      seen.set(worker, pid);
    }
    assert.deepEqual([...seen].sort(), [...workers].sort());
    assert.match(server.output(), /admin kubeconfig: /);
    // The primary's own lines name the worker they are about.
    const primary = server.child.pid;
    for (const [worker, pid] of workers) {
      const started = logLines(server).filter(
        (l) => l.pid === primary && l.msg === `worker ${worker} started (pid ${pid})`,
      );
      assert.equal(started.length, 1, server.output());
      assert.equal(started[0]!.worker, worker);
      assert.equal(started[0]!.workerPid, pid);
    }
    // A worker's every line carries its number.
    const fromWorkers = logLines(server).filter((l) => l.pid !== primary);
    assert.ok(fromWorkers.length >= 12, server.output());
    for (const l of fromWorkers) assert.equal(workers.get(l.worker as number), l.pid, JSON.stringify(l));
  });

  it("shows every worker in a scrape through the shared address, counters summed", async () => {
    for (let i = 0; i < 4; i++) assert.deepEqual([...replicasIn(await scrape(server))].sort(), [...workers].sort());
    const notFound = { ...TEAMS, verb: "GET", code: "404" };
    const before = sample(await scrape(server), "apiserver_request_total", notFound);
    const K = 10;
    for (let i = 0; i < K; i++) {
      const r = await callAsAdmin(server, false, "GET", `${GROUP_PATH}/teams/missing-${i}`);
      assert.equal(r.status, 404, r.text);
    }
    const text = await scrape(server);
    // Whichever worker answered each request and the scrape, the total counts all of them.
    assert.equal(sample(text, "apiserver_request_total", notFound) - before, K);
    // What every worker reads from the same store is not added up.
    assert.equal(sample(text, "platform_storage_available"), 1);
    // Every worker's access-key informer watches: the minimum, not the count of workers.
    assert.equal(sample(text, "platform_informer_watching", { resource: "ownedaccesskeys" }), 1);
    const teams = JSON.parse((await callAsAdmin(server, false, "GET", `${GROUP_PATH}/teams`)).text) as {
      items: unknown[];
    };
    assert.equal(
      sample(text, "apiserver_storage_objects", { resource: "teams.management.platform" }),
      teams.items.length,
    );
    // Still authorized as before.
    const refused = await callAsAdmin(server, false, "GET", "/metrics", undefined, { authorization: "Bearer wrong" });
    assert.equal(refused.status, 401, refused.text);
  });

  it("reads a write at once on a connection that reached the other worker", async () => {
    let crossed = 0;
    for (let i = 0; i < 40; i++) {
      // One kept-alive connection writes (and names its worker); a fresh one reads.
      const writer = new Agent({ keepAlive: true, maxSockets: 1, ca: server.caPem });
      const reader = new Agent({ keepAlive: true, maxSockets: 1, ca: server.caPem });
      try {
        const wrote = (await workerOn(server, writer)).worker;
        const name = `cross-${i}`;
        const created = await callAsAdmin(server, writer, "POST", `${GROUP_PATH}/teams`, {
          apiVersion: "management.platform/v1",
          kind: "Team",
          metadata: { name },
          spec: {},
        });
        assert.equal(created.status, 201, created.text);
        const reads = (await workerOn(server, reader)).worker;
        const got = await callAsAdmin(server, reader, "GET", `${GROUP_PATH}/teams/${name}`);
        assert.equal(got.status, 200, `${name} written on worker ${wrote}, read on ${reads}: ${got.text}`);
        if (reads !== wrote) crossed++;
      } finally {
        writer.destroy();
        reader.destroy();
      }
    }
    assert.ok(crossed >= 5, `only ${crossed} of 40 reads reached the other worker`);
  });

  it("keeps answering when a worker dies, restarts it in its place, and keeps its counts", async () => {
    const created = { ...TEAMS, verb: "POST", code: "201" };
    const counted = sample(await scrape(server), "apiserver_request_total", created);
    assert.equal(counted, 40);
    const [number, killed] = [...workers][0]!;
    process.kill(killed, "SIGKILL");
    const exited = `worker ${number} (pid ${killed}) exited (signal SIGKILL); restarting it in 1 s`;
    await until("the exit note", () => logLines(server, exited).length > 0);
    assert.equal(logLines(server, exited)[0]!.worker, number);
    // The primary hands new connections only to the live worker until the new one serves.
    for (let i = 0; i < 6; i++) {
      const r = await callAsAdmin(server, false, "GET", `${GROUP_PATH}/teams?limit=1`);
      assert.equal(r.status, 200, r.text);
    }
    const again = new RegExp(`"worker":${number},.*"msg":"worker ${number} serves again \\(pid (\\d+)\\)"`);
    await until("the restarted worker", () => again.test(server.output()));
    const restarted = Number(again.exec(server.output())![1]);
    workers.set(number, restarted);
    const text = await scrape(server);
    assert.deepEqual([...replicasIn(text)].sort(), [...workers].sort());
    // The dead worker's creates still count: the total never goes down.
    assert.equal(sample(text, "apiserver_request_total", created), counted);
    assert.ok(!isAlive(killed));
  });

  it("counts failed authentications in each worker: an address refused by one is still heard by the other", async () => {
    // One kept-alive connection per worker (each connection stays with the worker it reached).
    const byWorker = new Map<number, Agent>();
    const opened: Agent[] = [];
    try {
      for (let i = 0; i < 40 && byWorker.size < 2; i++) {
        const agent = new Agent({ keepAlive: true, maxSockets: 1, ca: server.caPem });
        opened.push(agent);
        const { worker } = await workerOn(server, agent);
        if (!byWorker.has(worker)) byWorker.set(worker, agent);
      }
      assert.equal(byWorker.size, 2);
      const [[one, first], [other, second]] = [...byWorker] as [[number, Agent], [number, Agent]];
      const wrong = { authorization: `Bearer ${"w".repeat(40)}` };
      const status = async (agent: Agent, headers?: Record<string, string>) =>
        (await callAsAdmin(server, agent, "GET", `${GROUP_PATH}/teams?limit=1`, undefined, headers)).status;
      for (let i = 0; i < 30; i++) assert.equal(await status(first, wrong), 401);
      assert.equal(await status(first, wrong), 429, `worker ${one} refuses the address`);
      assert.equal(await status(second, wrong), 401, `worker ${other} counts only its own failures`);
      // The admin key authenticated from this address on worker `one` before: exempt there.
      assert.equal(await status(first), 200);
    } finally {
      for (const agent of opened) agent.destroy();
    }
  });

  it("fails a second start on the same address, each worker saying why, instead of hanging", () => {
    const listen = `127.0.0.1:${server.port}`;
    const args = ["start", "--data-dir", dir, "--listen", listen, "--storage", etcd.url, "--workers", "2"];
    const r = spawnSync(process.execPath, ["bin/platform.js", ...args], { encoding: "utf8", timeout: WAIT_MS });
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /^error: worker [12] \(pid \d+\): bind EADDRINUSE/m);
    assert.match(r.stderr, /^error: worker [12] exited \(code 1\) before it served$/m);
  });

  it("stops every worker on SIGTERM and exits 0", async () => {
    server.child.kill("SIGTERM");
    const { code } = await server.exited;
    assert.equal(code, 0, server.output());
    for (const [number, pid] of workers) {
      await until(`worker ${pid} to end`, () => !isAlive(pid));
      assert.match(server.output(), new RegExp(`^worker ${number} \\(pid ${pid}\\) SIGTERM: finishing`, "m"));
    }
  });
});

describe("platform start --workers: refusals", () => {
  const start = (...args: string[]) => {
    const dir = mkdtempSync(join(tmpdir(), "platform-workers-refused-"));
    try {
      return spawnSync(
        process.execPath,
        ["bin/platform.js", "start", "--data-dir", dir, "--listen", "127.0.0.1:0", ...args],
        { encoding: "utf8", timeout: WAIT_MS },
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  it("refuses several workers on the embedded SQLite store", () => {
    const r = start("--workers", "2");
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /--workers 2 needs etcd storage \(--storage etcd:\/\/host:2379\)/);
    assert.doesNotMatch(r.stdout, /listening/);
  });

  it("reads workers from the config file, and refuses it there too on SQLite", () => {
    const config = join(mkdtempSync(join(tmpdir(), "platform-workers-config-")), "config.yaml");
    writeFileSync(config, "workers: 3\n");
    try {
      const r = start("--config", config);
      assert.equal(r.status, 1, r.stderr);
      assert.match(r.stderr, /--workers 3 needs etcd storage/);
    } finally {
      rmSync(dirname(config), { recursive: true, force: true });
    }
  });

  it("refuses several workers with a rotated audit log", () => {
    const r = start(
      "--workers",
      "2",
      "--storage",
      "etcd://127.0.0.1:1",
      "--audit-log",
      "a.log",
      "--audit-log-maxsize",
      "5",
    );
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /--workers 2 does not work with --audit-log-maxsize/);
  });

  it("refuses a count that is not a positive whole number", () => {
    const r = start("--workers", "0");
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /--workers must be a positive whole number or auto, got "0"/);
    assert.throws(() => parseWorkers("1.5"), /positive whole number/);
    assert.equal(parseWorkers(undefined), 1);
    assert.ok(parseWorkers("auto") >= 1);
  });
});
