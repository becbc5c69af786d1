/**
 * Child process of crash.test.ts: creates keys as fast as it can and prints each key on stdout
 * only after its write was acknowledged (its promise resolved, i.e. its COMMIT returned).
 * The parent kills it with SIGKILL and checks that every printed key is in the database.
 *
 * Usage: node crash-writer.js DB_PATH
 */
import { openSqliteStorage } from "../storage/sqlite/sqlite-storage.js";

/** Writes in flight at once, so that batches of many writes share a commit. */
const CONCURRENCY = 64;

export function crashValue(key: string): string {
  return `value of ${key}`;
}

async function main(path: string): Promise<void> {
  const storage = openSqliteStorage(path);
  let next = 0;
  const worker = async (): Promise<never> => {
    for (;;) {
      const key = `/crash/${String(next++).padStart(9, "0")}`;
      await storage.create(key, Buffer.from(crashValue(key)));
      // Pipes are written synchronously on Linux; either way the line exists only after the ack.
      process.stdout.write(`${key}\n`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

// Imported by the test for crashValue; run only as a script.
if (process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].replace(/\\/g, "/"))) {
  const path = process.argv[2];
  if (path === undefined) {
    console.error("usage: crash-writer DB_PATH");
    process.exit(2);
  }
  main(path).catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
