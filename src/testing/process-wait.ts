/** What the multi-process tests (workers, restarts) share: is a pid alive, and waiting for a condition. */

/** Whether a process with this pid exists (signal 0 only checks). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Polls `done` every 50 ms until it holds; after `waitMs` fails with `what` (and `output()`, the
 * server's log, when given: a timeout is diagnosed from it).
 */
export async function until(what: string, done: () => boolean, waitMs: number, output?: () => string): Promise<void> {
  const deadline = Date.now() + waitMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${output ? `:\n${output()}` : ""}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
