import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Agent } from "node:https";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { EtcdCluster } from "../testing/etcd-cluster.js";
import { callAsAdmin, type ServerProcess, startServerProcess } from "../testing/server-process.js";
import { GROUP_PATH } from "../testing/test-server.js";
import { parseWorkers } from "./worker-cluster.js";

/** Bounded waits (hang guards, not timing assertions). */
const WAIT_MS = 120_000;

/** The replica that answered on this connection (platform_replica_info on /metrics). */
async function replicaOn(server: ServerProcess, agent: Agent | false): Promise<string> {
  const r = await callAsAdmin(server, agent, "GET", "/metrics");
  assert.equal(r.status, 200, r.text);
  const ids = [...r.text.matchAll(/^platform_replica_info\{identity="([^"]+)"\} 1$/gm)].map((m) => m[1]!);
  assert.equal(ids.length, 1, `one replica per process, got ${ids.join(", ")}`);
  return ids[0]!;
}

/** Replicas seen on `n` fresh connections. */
async function replicasSeen(server: ServerProcess, n: number): Promise<Set<string>> {
  const seen = new Set<string>();
  for (let i = 0; i < n; i++) seen.add(await replicaOn(server, false));
  return seen;
}

const pidOf = (identity: string) => Number(/-(\d+)-[0-9a-f]{8}$/.exec(identity)?.[1]);

async function until(what: string, done: () => boolean): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("platform start --workers 2 on etcd", () => {
  let etcd: EtcdCluster;
  let server: ServerProcess;
  const dir = mkdtempSync(join(tmpdir(), "platform-workers-"));
  let workerPids: number[] = [];

  before(async () => {
    etcd = await EtcdCluster.start(1);
    server = await startServerProcess(dir, undefined, ["--storage", etcd.url, "--workers", "2"]);
    const line = /^workers: +2 processes \(pids (\d+), (\d+)\)$/m.exec(server.output());
    assert.ok(line, server.output());
    workerPids = [Number(line[1]), Number(line[2])];
  });
  after(async () => {
    if (server && server.child.exitCode === null) server.child.kill("SIGKILL");
    for (const pid of workerPids) if (alive(pid)) process.kill(pid, "SIGKILL");
    await etcd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers from both workers, each its own replica", async () => {
    const seen = await replicasSeen(server, 12);
    assert.equal(seen.size, 2, [...seen].join(", "));
    assert.deepEqual([...seen].map(pidOf).sort(), [...workerPids].sort());
    assert.match(server.output(), /admin kubeconfig: /);
  });

  it("reads a write at once on a connection that reached the other worker", async () => {
    let crossed = 0;
    for (let i = 0; i < 40; i++) {
      // One kept-alive connection writes (and names its worker); a fresh one reads.
      const writer = new Agent({ keepAlive: true, maxSockets: 1, ca: server.caPem });
      const reader = new Agent({ keepAlive: true, maxSockets: 1, ca: server.caPem });
      try {
        const wrote = await replicaOn(server, writer);
        const name = `cross-${i}`;
        const created = await callAsAdmin(server, writer, "POST", `${GROUP_PATH}/teams`, {
          apiVersion: "management.platform/v1",
          kind: "Team",
          metadata: { name },
          spec: {},
        });
        assert.equal(created.status, 201, created.text);
        const reads = await replicaOn(server, reader);
        const got = await callAsAdmin(server, reader, "GET", `${GROUP_PATH}/teams/${name}`);
        assert.equal(got.status, 200, `${name} written on ${wrote}, read on ${reads}: ${got.text}`);
        if (reads !== wrote) crossed++;
      } finally {
        writer.destroy();
        reader.destroy();
      }
    }
    assert.ok(crossed >= 5, `only ${crossed} of 40 reads reached the other worker`);
  });

  it("keeps answering when a worker dies, and restarts it", async () => {
    const [killed, kept] = workerPids as [number, number];
    process.kill(killed, "SIGKILL");
    await until("the exit note", () => server.output().includes(`(pid ${killed}) exited (signal SIGKILL)`));
    // The primary hands new connections only to the live worker until the new one serves.
    for (let i = 0; i < 6; i++) {
      const r = await callAsAdmin(server, false, "GET", `${GROUP_PATH}/teams?limit=1`);
      assert.equal(r.status, 200, r.text);
    }
    await until("the restarted worker", () => /worker \d serves again \(pid \d+\)/.test(server.output()));
    const seen = await replicasSeen(server, 12);
    const pids = [...seen].map(pidOf);
    assert.equal(seen.size, 2, [...seen].join(", "));
    assert.ok(pids.includes(kept) && !pids.includes(killed), pids.join(", "));
    workerPids = pids;
  });

  it("stops every worker on SIGTERM and exits 0", async () => {
    server.child.kill("SIGTERM");
    const { code } = await server.exited;
    assert.equal(code, 0, server.output());
    for (const pid of workerPids) await until(`worker ${pid} to end`, () => !alive(pid));
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
