import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { moduleLoadLogArgs } from "../dist/testing/bench-entry.js";

// The bench reaches the product only through dist/testing/bench-entry.js, and every child the bench
// forks loads it (run.js imports every phase): it must not load the console phase's playwright-core.
const ENTRY = new URL("../dist/testing/bench-entry.js", import.meta.url).href;

/** The files a node process loads running `script` (an ES module). */
function filesLoadedBy(script: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), "bench-entry-test-"));
  try {
    const log = join(dir, "loaded.txt");
    writeFileSync(log, "");
    const r = spawnSync(process.execPath, [...moduleLoadLogArgs(dir), "--input-type=module", "-e", script], {
      encoding: "utf8",
      env: { ...process.env, LOADED_LOG: log },
    });
    assert.equal(r.status, 0, r.stderr);
    return readFileSync(log, "utf8").split("\n").filter(Boolean);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("the bench's entry into the product", () => {
  it("loads the server without playwright-core, which only its browser helpers bring", () => {
    const entryOnly = filesLoadedBy(`await import(${JSON.stringify(ENTRY)});`);
    assert.ok(
      entryOnly.some((u) => u.endsWith("/dist/app/start-server.js")),
      "the entry loads the product's server",
    );
    assert.deepEqual(
      entryOnly.filter((u) => u.includes("/playwright-core/")),
      [],
    );
    const withBrowser = filesLoadedBy(`await (await import(${JSON.stringify(ENTRY)})).browserHelpers();`);
    assert.ok(
      withBrowser.some((u) => u.includes("/playwright-core/")),
      "the browser helpers load playwright-core, and the hook sees it",
    );
  });
});
