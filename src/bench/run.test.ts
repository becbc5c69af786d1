import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

// The harness itself (not its figures): with minimal counts it must run end to end and print its table.
// The etcd phase has a test file of its own (etcd-phase.test.ts), so the two run in parallel.
test("bench harness runs with --smoke counts", () => {
  const script = fileURLToPath(new URL("./run.js", import.meta.url));
  const r = spawnSync(process.execPath, [script, "--smoke", "--skip=etcd"], { encoding: "utf8", timeout: 240_000 });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /\| GET req\/s/);
  assert.match(r.stdout, /\| WATCH /);
  assert.match(r.stdout, /\| Cold start /);
  assert.match(r.stdout, /\| Backup of 200 objects/);
  assert.match(r.stdout, /\| Restore of 200 objects/);
});
