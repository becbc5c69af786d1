import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, sep } from "node:path";
import { after, describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { PLATFORM_BIN } from "../testing/cli-run.js";
import { moduleLoadLogArgs } from "../testing/module-load-log.js";

/** dist/ of this checkout (dist/cli/ → dist/). */
const DIST = resolve(import.meta.dirname, "..");
/** The server's parts: a CLI command other than start, agent, backup, restore or admin never needs them. */
const SERVER_PARTS = [
  "server",
  "registry",
  "storage",
  "app",
  "controllers",
  "kinds",
  "gateway",
  "events",
  "backup",
  "agent",
];

/**
 * The CLI starts fast because it loads only what a client needs (docs/cli.md): a module-loading
 * hook records every file the real executable loads, and none may be a server module.
 */
describe("platform CLI start", () => {
  const dir = mkdtempSync(join(tmpdir(), "platform-cli-modules-"));
  const loadHook = moduleLoadLogArgs(dir);
  // Logged in to a port nobody listens on: client commands go as far as sending their request.
  const config = join(dir, "config.json");
  writeFileSync(config, JSON.stringify({ login: { server: "https://127.0.0.1:1", accessKey: "x".repeat(40) } }), {
    mode: 0o600,
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const loadedBy = (args: string[]): string[] => {
    const log = join(dir, `loaded-${args.join("-").replace(/\W/g, "_")}.txt`);
    writeFileSync(log, "");
    const r = spawnSync(process.execPath, [...loadHook, PLATFORM_BIN, ...args], {
      env: { PATH: process.env.PATH ?? "", HOME: dir, PLATFORM_CONFIG: config, LOADED_LOG: log },
      encoding: "utf8",
    });
    assert.notEqual(r.status, null, r.stderr);
    return readFileSync(log, "utf8").split("\n").filter(Boolean);
  };

  for (const args of [["--version"], ["--help"], ["whoami"], ["list", "teams"], ["completion", "bash"], ["token"]]) {
    it(`platform ${args.join(" ")} loads no server module`, () => {
      const loaded = loadedBy(args);
      assert.ok(
        loaded.some((u) => u.includes(`${sep}cli${sep}main.js`)),
        "the hook saw the CLI load",
      );
      const server = loaded.filter((u) =>
        SERVER_PARTS.some((p) => u.startsWith(`${pathToFileURL(join(DIST, p)).href}/`)),
      );
      assert.deepEqual(server, []);
      // Nor the Kubernetes client library (hundreds of files).
      assert.deepEqual(
        loaded.filter((u) => u.includes("@kubernetes/client-node")),
        [],
      );
    });
  }

  it("the hook does see server modules when a command needs them", () => {
    const migrate = loadedBy(["migrate-storage", "--from", "sqlite::memory:", "--to", "sqlite::memory:"]);
    assert.ok(
      migrate.some((u) => u.startsWith(pathToFileURL(join(DIST, "storage")).href)),
      "a command that needs the storage loads it, and the hook sees it",
    );
  });
});
