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
  // Every gateway figure is of answers that came, through the gateway and beside it: a phase
  // whose requests all fail shows 0 (or n/a) and fails here.
  const figures = (measure: RegExp) => {
    const cells = new RegExp(`\\| ${measure.source}[^|]*\\| ([^|]*) \\| ([^|]*) \\|`).exec(r.stdout);
    assert.ok(cells, `${measure}: ${r.stdout}`);
    return [cells[1]!, cells[2]!];
  };
  for (const rate of [/GATEWAY GET req\/s \(64 conns\) through \/ direct/, /GATEWAY GET req\/s \(64 conns\) minimal/]) {
    for (const cell of figures(rate)) assert.ok(Number(cell) > 0, `${rate}: ${cell} req/s`);
  }
  for (const cpu of [
    /GATEWAY CPU µs per GET .*: gateway process/,
    /GATEWAY CPU µs per GET .*: minimal Node\.js proxy/,
  ]) {
    for (const cell of figures(cpu)) assert.ok(Number(cell) > 0, `${cpu}: ${cell} µs`);
  }
  // Latencies of answers, none failed ("n/a" or "(N failed)" otherwise).
  for (const cell of figures(/GATEWAY GET p50\/p99 ms at \d+ req\/s \(paced\) through \/ direct/)) {
    assert.match(cell, /^[\d.]+\/[\d.]+$/);
  }
  for (const cell of figures(/GATEWAY watch delivery/)) {
    assert.ok(Number(/\((\d+)\/\d+\)/.exec(cell)?.[1]) > 0, `watch events delivered: ${cell}`);
  }
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
