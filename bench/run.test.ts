import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

// The harness itself (not its figures): with minimal counts it must run end to end and print its table.
// The etcd and console phases have test files of their own (etcd-phase.test.ts,
// console-phase.test.ts), so they run in parallel.
test("bench harness runs with --smoke counts", () => {
  const script = fileURLToPath(new URL("./run.js", import.meta.url));
  const r = spawnSync(process.execPath, [script, "--smoke", "--skip=etcd,console"], {
    encoding: "utf8",
    timeout: 480_000,
  });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /\| GET req\/s/);
  assert.match(r.stdout, /\| WATCH /);
  assert.match(
    r.stdout,
    /\| AUDIT GET req\/s \(64 conns\): audit log on \(Metadata\)[^|]*\| \d+; \d+ µs \| \d+; \d+ µs/,
  );
  assert.match(r.stdout, /\| AUDIT CREATE teams\/s \(64 clients\): audit log on/);
  assert.match(r.stdout, /\| GATEWAY GET req\/s/);
  assert.match(r.stdout, /\| GATEWAY CPU µs per GET /);
  assert.match(r.stdout, /\| GATEWAY GET req\/s \(64 conns\) minimal Node\.js proxy \/ direct \| \d+/);
  assert.match(r.stdout, /\| GATEWAY CPU µs per GET .*: minimal Node\.js proxy \/ upstream process, same GETs \| \d+/);
  assert.match(r.stdout, /\| GATEWAY GET p50\/p99 ms at \d+ req\/s \(paced\) through \/ direct \| \d+\.\d\//);
  assert.match(r.stdout, /\| GATEWAY watch delivery/);
  assert.match(r.stdout, /\| Cold start /);
  assert.match(r.stdout, /\| START platform start → \/readyz 200, fresh data dir [^|]*\| \d+ ms \| \d+ ms \(node -e/);
  assert.match(
    r.stdout,
    /\| START platform start → \/readyz 200, existing data dir \(SQLite\) [^|]*\| \d+ ms \| \d+ ms/,
  );
  assert.match(r.stdout, /\| CLI start: platform --version \| \d+ ms/);
  assert.match(r.stdout, /\| Backup of 200 objects/);
  assert.match(r.stdout, /\| Restore of 200 objects/);
});
