import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

// The etcd phase of the bench (not its figures): with minimal counts it runs end to end on a real etcd.
test("bench etcd phase runs with --smoke counts", () => {
  const script = fileURLToPath(new URL("./run.js", import.meta.url));
  const r = spawnSync(process.execPath, [script, "--smoke", "--only=etcd"], { encoding: "utf8", timeout: 480_000 });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /\| etcd: GET req\/s/);
  assert.match(
    r.stdout,
    /\| etcd: GET server CPU per request[^|]*\| \d+ µs; \d+%; [\d.]+ store reads per GET \| \d+ µs/,
  );
  assert.match(r.stdout, /\| etcd: LIST /);
  // Both baselines of the CREATE figure are measured: puts through etcd3 and through the own client.
  assert.match(
    r.stdout,
    /\| etcd: CREATE teams\/s \(64 clients; [^|]*`etcd3`[^|]*\| \d+ \| \d+ \(etcd3 client, \d+ µs[^|]*\| \d+% \|/,
  );
  assert.match(
    r.stdout,
    /\| etcd: CREATE teams\/s beside raw puts through the platform's own[^|]*\| \d+ \| \d+ \(own client, /,
  );
  assert.match(r.stdout, /\| etcd: CREATE teams\/s \(64 clients\), server with 2 workers \| \d+ .*raw etcd puts/);
  assert.match(r.stdout, /\| etcd: GET req\/s \(64 conns\), server with 2 workers \| \d+ /);
  assert.match(r.stdout, /\| START platform start → \/readyz 200, etcd [^|]*\| \d+ ms \| \d+ ms/);
  assert.match(r.stdout, /\| etcd: write on replica A → watcher on B, [^|]*\| \d/);
  // The tail beyond the p99, counted over every PATCH seen on B (20 at --smoke counts).
  assert.match(r.stdout, /\| etcd: write on replica A → watcher on B, the tail[^|]*\| [\d.]+\/[\d.]+; \d+ of 20 \|/);
  // The replica watch's PATCHes are sent by their own process (replica-watch-driver.ts), which
  // reports its own event-loop delay beside replica A's (and A's garbage-collection pauses).
  assert.match(
    r.stdout,
    /\| etcd: event-loop delay during those PATCHes[^|]*\| [\d.]+\/[\d.]+\/[\d.]+; GC pauses: \d+ young [^|]*full[^|]*\| .*the load generator/,
  );
  // Where a tail could come from: A's etcd updates (all of them counted), etcd's own disk, the host.
  assert.match(
    r.stdout,
    /\| etcd: where a tail could come from[^|]*\| [\d.]+\/[\d.]+ \([1-9]\d*\) \| etcd's WAL fsync[^|]*host gave to other machines [\d.]+%/,
  );
});
