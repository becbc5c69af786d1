import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { PLATFORM_BIN } from "../testing/cli-run.js";
import { moduleLoadLogArgs } from "../testing/module-load-log.js";
import { freePort } from "../testing/server-process.js";

/**
 * Libraries a server on SQLite loads only when it needs them (docs/performance.md, "Server
 * start"): each was a large share of a start's module loading.
 */
const LOADED_ON_USE = ["@kubernetes/client-node", "/storage/etcd/client/", "@peculiar/x509", "/undici/"];

/**
 * `platform start` loads none of LOADED_ON_USE on an existing data dir: a module-loading hook
 * records every file the real executable loads (as src/cli/cli-start-modules.test.ts does).
 */
describe("platform start", () => {
  const dir = mkdtempSync(join(tmpdir(), "platform-start-modules-"));
  const loadHook = moduleLoadLogArgs(dir);
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** Starts the server on `dataDir` until it is listening, stops it; the files it loaded. */
  const loadedByStart = async (dataDir: string, log: string): Promise<string[]> => {
    writeFileSync(log, "");
    const port = await freePort();
    const child = spawn(
      process.execPath,
      [...loadHook, PLATFORM_BIN, "start", "--data-dir", dataDir, "--listen", `127.0.0.1:${port}`],
      { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, LOADED_LOG: log } },
    );
    let out = "";
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString();
    });
    child.stderr.on("data", (c: Buffer) => {
      out += c.toString();
    });
    const exited = new Promise((resolve) => child.once("exit", resolve));
    while (!out.includes("platform is listening on")) {
      if (child.exitCode !== null) assert.fail(`server did not start:\n${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    child.kill("SIGTERM");
    await exited;
    return readFileSync(log, "utf8").split("\n").filter(Boolean);
  };

  it("loads none of the on-use libraries on an existing data dir (and the hook sees them when used)", async () => {
    const dataDir = join(dir, "data");
    // The first start makes the certificates: it loads @peculiar/x509, and the hook must see that.
    const first = await loadedByStart(dataDir, join(dir, "first.txt"));
    assert.ok(
      first.some((u) => u.includes("@peculiar/x509")),
      "a first start loads the certificate library, and the hook sees it",
    );
    const again = await loadedByStart(dataDir, join(dir, "again.txt"));
    assert.ok(
      again.some((u) => u.endsWith("/app/start-server.js")),
      "the hook saw the server load",
    );
    assert.deepEqual(
      again.filter((u) => LOADED_ON_USE.some((lib) => u.includes(lib))),
      [],
    );
  });
});
