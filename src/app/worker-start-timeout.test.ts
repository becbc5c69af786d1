import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { EtcdCluster } from "../testing/etcd-cluster.js";
import { isAlive, until as waitUntil } from "../testing/process-wait.js";
import { callAsAdmin, type ServerProcess, startServerProcess } from "../testing/server-process.js";
import { GROUP_PATH } from "../testing/test-server.js";
import { DEFAULT_WORKER_START_TIMEOUT_SECONDS } from "./worker-restarts.js";

/** Bounded waits (hang guards, not timing assertions). */
const WAIT_MS = 120_000;

/**
 * A worker that hangs while it starts: Node loads this module (NODE_OPTIONS=--import) before
 * bin/platform.js in every process; in worker 2, while the marker file exists, it never lets the
 * command load (an await that never settles, a timer keeping the process alive). The product
 * runs unchanged: it sees a worker that neither serves nor exits.
 */
const HANG_MODULE = `
import cluster from "node:cluster";
import { existsSync } from "node:fs";
if (cluster.isWorker && process.env.PLATFORM_WORKER === "2" && existsSync(process.env.HANG_MARKER)) {
  setInterval(() => {}, 60_000);
  await new Promise(() => {});
}
`;

const until = (what: string, done: () => boolean, output: () => string) => waitUntil(what, done, WAIT_MS, output);

/** The pids of the primary's lines `worker 2 (pid P) did not serve within …`. */
const hungPids = (output: string, seconds: number) =>
  [
    ...output.matchAll(
      new RegExp(`"msg":"worker 2 \\(pid (\\d+)\\) did not serve within ${seconds} s of its start; killing it"`, "g"),
    ),
  ].map((m) => Number(m[1]));

describe("platform start --workers: a worker that hangs while it starts", () => {
  let etcd: EtcdCluster;
  const dir = mkdtempSync(join(tmpdir(), "platform-worker-hang-"));
  const marker = join(dir, "hang");
  const data = join(dir, "data");
  const hangModule = join(dir, "hang.mjs");
  const env = {
    ...process.env,
    HANG_MARKER: marker,
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import ${pathToFileURL(hangModule).href}`.trim(),
  };
  const started: number[] = [];

  before(async () => {
    writeFileSync(hangModule, HANG_MODULE);
    etcd = await EtcdCluster.start(1);
  });
  after(async () => {
    for (const pid of started) if (isAlive(pid)) process.kill(pid, "SIGKILL");
    await etcd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("documents its default in the help", () => {
    const r = spawnSync(process.execPath, ["bin/platform.js", "start", "--help"], { encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
    assert.match(
      r.stdout.replace(/\s+/g, " "),
      new RegExp(`--worker-start-timeout <seconds>.*\\(default ${DEFAULT_WORKER_START_TIMEOUT_SECONDS}\\)`),
    );
  });

  it("refuses a timeout that is not a positive whole number of seconds", () => {
    const r = spawnSync(
      process.execPath,
      ["bin/platform.js", "start", "--data-dir", join(dir, "refused"), "--worker-start-timeout", "0"],
      { encoding: "utf8", timeout: WAIT_MS },
    );
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /--worker-start-timeout must be a positive number of seconds, got "0"/);
  });

  it("in the first start: kills it after the timeout and fails the start (exit 1) instead of waiting forever", () => {
    writeFileSync(marker, "");
    try {
      const args = ["--data-dir", data, "--listen", "127.0.0.1:0", "--storage", etcd.url, "--log-level", "info"];
      const r = spawnSync(
        process.execPath,
        ["bin/platform.js", "start", ...args, "--workers", "2", "--worker-start-timeout", "3"],
        { encoding: "utf8", timeout: WAIT_MS, env },
      );
      assert.equal(r.status, 1, r.stderr);
      // Worker 2 never serves; on a loaded machine worker 1 may be the first past 3 s (then worker 2
      // is stopped with the rest): either way the start fails on the timeout, not later.
      assert.match(r.stderr, /^error: worker [12] exited \(killed after 3 s without serving\) before it served$/m);
      assert.doesNotMatch(r.stdout, /platform is listening/);
      const forked = [...r.stderr.matchAll(/"msg":"worker 2 started \(pid (\d+)\)"/g)].map((m) => Number(m[1]));
      assert.equal(forked.length, 1, r.stderr);
      assert.ok(!isAlive(forked[0]!), "the hung worker is gone");
    } finally {
      unlinkSync(marker);
    }
  });

  it("after the start: a restart that hangs is killed and counted as a failed start; the next good start serves", async () => {
    // Long enough for a healthy worker's start on a loaded machine (the first start needs both
    // workers within it: 10 s was seen to be too short beside other server tests on 2 cores).
    const timeout = 30;
    let server: ServerProcess | undefined;
    try {
      const args = ["--storage", etcd.url, "--workers", "2", "--worker-start-timeout", String(timeout)];
      // The data dir the first start made (its admin key): the admin is in etcd since then.
      server = await startServerProcess(data, undefined, [...args, "--log-level", "info"], env);
      started.push(server.child.pid!);
      const out = server.output;
      const pids = /^workers: +2 processes \(pids (\d+), (\d+)\)$/m.exec(out());
      assert.ok(pids, out());
      const second = Number(pids[2]);
      started.push(Number(pids[1]), second);

      writeFileSync(marker, "");
      process.kill(second, "SIGKILL");
      const counted = /\(1 of 5 failed starts in a row\)"/;
      await until("the hung restart to be killed and counted", () => counted.test(out()), out);
      unlinkSync(marker);
      const [hung] = hungPids(out(), timeout);
      assert.ok(hung, out());
      started.push(hung);
      assert.match(
        out(),
        new RegExp(`"msg":"worker 2 \\(pid ${second}\\) exited \\(signal SIGKILL\\); restarting it in 1 s"`),
      );
      assert.match(
        out(),
        new RegExp(
          `"msg":"worker 2 \\(pid ${hung}\\) exited \\(killed after ${timeout} s without serving\\); restarting it in 2 s \\(1 of 5 failed starts in a row\\)"`,
        ),
      );
      // Worker 1 served all along.
      const r = await callAsAdmin(server, false, "GET", `${GROUP_PATH}/teams?limit=1`);
      assert.equal(r.status, 200, r.text);
      await until("worker 2 to serve again", () => /"msg":"worker 2 serves again \(pid \d+\)"/.test(out()), out);
      assert.ok(!isAlive(hung), "the hung worker is gone");
      assert.doesNotMatch(out(), /giving up/);

      server.child.kill("SIGTERM");
      const { code } = await server.exited;
      assert.equal(code, 0, out());
    } finally {
      if (server && server.child.exitCode === null) server.child.kill("SIGKILL");
    }
  });
});
