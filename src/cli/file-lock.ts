import { closeSync, openSync, rmSync, statSync } from "node:fs";
import { CliError } from "./errors.js";

/** How long to wait for another writer, and when a lock left by a crashed one is taken over. */
const WAIT_MS = 20_000;
const STALE_MS = 60_000;

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Runs `work` holding `lockFile`, created exclusively (O_EXCL) as client-go does for kubeconfig
 * writes; waits for another holder (up to `waitMs`), and removes a lock older than 60 s (its writer died).
 */
export function withFileLock<T>(lockFile: string, work: () => T, waitMs = WAIT_MS): T {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      closeSync(openSync(lockFile, "wx", 0o600));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      let age = 0;
      try {
        age = Date.now() - statSync(lockFile).mtimeMs;
      } catch {
        continue; // released meanwhile
      }
      if (age > STALE_MS) {
        rmSync(lockFile, { force: true });
        continue;
      }
      if (Date.now() > deadline) {
        throw new CliError(
          `${lockFile} is held by another program writing the kubeconfig; try again (or remove the file if none runs)`,
        );
      }
      sleep(50);
    }
  }
  try {
    return work();
  } finally {
    rmSync(lockFile, { force: true });
  }
}
