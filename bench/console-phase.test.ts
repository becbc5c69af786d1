import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

// The CONSOLE phase (Chromium rendering the teams list) on its own, in parallel with run.test.ts.
test("bench CONSOLE phase runs with --smoke counts", () => {
  const script = fileURLToPath(new URL("./run.js", import.meta.url));
  const r = spawnSync(process.execPath, [script, "--smoke", "--only=console"], {
    encoding: "utf8",
    timeout: 480_000,
  });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /\| CONSOLE 50 teams: first page rendered in Chromium ms, median \(first load\) \| \d/);
  assert.match(r.stdout, /API LIST page of 50: [\d.]+; whole LIST: [\d.]+/);
});
