/**
 * Backup and restore of N.mem objects (100k; 20k with --quick) in embedded SQLite stores, beside
 * same-run baselines: reading every key at one revision (what a backup must read anyway), and
 * migrate-storage's plain copy between two stores (what a restore must write anyway).
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import {
  backupLines,
  keysAt,
  migrateStorage,
  openStorage,
  restoreBackup,
  writeBackupFile,
} from "../../dist/testing/bench-entry.js";
import { type Bench, f } from "../harness.js";
import { storedTeamBytes } from "../objects.js";

export async function benchBackup(b: Bench): Promise<void> {
  const { dir, N, row } = b;
  const n = N.mem;
  const source = await openStorage(`sqlite:${join(dir, "backup-source.db")}`);
  try {
    for (let i = 0; i < n; i += 1000) {
      const ops = [];
      for (let j = i; j < Math.min(i + 1000, n); j++) {
        ops.push({
          type: "create" as const,
          key: `/registry/management.platform/teams/t${j}`,
          value: storedTeamBytes(`t${j}`),
        });
      }
      await source.txn(ops);
    }
    let t = performance.now();
    let read = 0;
    for await (const kv of keysAt(source, await source.currentRevision())) read += kv.value.length;
    const readMs = performance.now() - t;
    const file = join(dir, "bench.backup.gz");
    t = performance.now();
    await writeBackupFile(backupLines(source, "bench"), file);
    const backupMs = performance.now() - t;
    row(
      `Backup of ${n} objects (${f(read / 1048576)} MiB) → ${f(statSync(file).size / 1048576)} MiB gzip`,
      `${f(backupMs, 0)} ms`,
      `${f(readMs, 0)} ms to read them`,
      `${f(backupMs / readMs, 1)}x`,
    );
    const restored = await openStorage(`sqlite:${join(dir, "backup-restored.db")}`);
    const copied = await openStorage(`sqlite:${join(dir, "backup-copied.db")}`);
    try {
      t = performance.now();
      await restoreBackup(file, restored);
      const restoreMs = performance.now() - t;
      t = performance.now();
      await migrateStorage(source, copied);
      const copyMs = performance.now() - t;
      row(
        `Restore of ${n} objects (checks the file, then writes)`,
        `${f(restoreMs, 0)} ms`,
        `${f(copyMs, 0)} ms store-to-store copy`,
        `${f(restoreMs / copyMs, 1)}x`,
      );
    } finally {
      await restored.close();
      await copied.close();
    }
  } finally {
    await source.close();
  }
}
