import { errors } from "../api/errors.js";
import type { Storage } from "../storage/interface.js";

/** How long kube-apiserver's watch cache waits for a revision it has not seen yet (waitUntilFreshAndBlock). */
const DEFAULT_FRESHNESS_WAIT_MS = 3000;
const POLL_MS = 25;

/**
 * Waits until the store has reached `revision` (another replica or a write in flight may be about
 * to commit it), at most `waitMs`; then answers 504 "Too large resource version" with Retry-After,
 * as kube-apiserver does for a list or watch from a resourceVersion ahead of its cache.
 */
export async function awaitRevision(
  storage: Storage,
  revision: number,
  waitMs = DEFAULT_FRESHNESS_WAIT_MS,
): Promise<void> {
  const deadline = Date.now() + waitMs;
  let current = await storage.currentRevision();
  while (current < revision) {
    const left = deadline - Date.now();
    if (left <= 0) throw errors.resourceVersionTooLarge(revision, current);
    await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, left)));
    current = await storage.currentRevision();
  }
}
