import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
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
 * The CLI starts fast because it loads only what a client needs, from one bundled file
 * (docs/cli.md): a module-loading hook records every file the real executable loads, and none
 * may be a server module or a module of another command.
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
        loaded.some((u) => u.endsWith("/bin/platform.js")),
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

  it("platform list users loads the CLI as one bundle: no module of another command, no package's files", () => {
    const cli = `${pathToFileURL(join(DIST, "cli")).href}/`;
    const loaded = loadedBy(["list", "users"]);
    // The bundle is compiled from its code cache (bin/code-cache.js), not required: the cache
    // written into HOME is what shows it ran.
    assert.equal(readdirSync(join(dir, ".cache", "platform", "cli-code")).length, 1, "the CLI ran from its bundle");
    // No module of src/cli (list.js, main.js…): the bundle holds them all.
    assert.deepEqual(
      loaded.filter((u) => u.startsWith(cli)),
      [],
    );
    // commander is in the bundle; yaml and undici load only when a command needs them.
    assert.deepEqual(
      loaded.filter((u) => u.includes("/node_modules/")),
      [],
    );
  });

  it("the hook does see server modules when a command needs them", () => {
    const migrate = loadedBy(["migrate-storage", "--from", "sqlite::memory:", "--to", "sqlite::memory:"]);
    assert.ok(
      migrate.some((u) => u.startsWith(pathToFileURL(join(DIST, "storage")).href)),
      "a command that needs the storage loads it, and the hook sees it",
    );
  });
});
