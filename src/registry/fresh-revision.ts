import { errors } from "../api/errors.js";
import type { Storage } from "../storage/interface.js";
import { parseResourceVersion, resourceVersionDigits } from "./codec.js";

/** How long kube-apiserver's watch cache waits for a revision it has not seen yet (waitUntilFreshAndBlock). */
const DEFAULT_FRESHNESS_WAIT_MS = 3000;
const POLL_MS = 25;

/**
 * A client's resourceVersion as a revision: undefined when absent or empty, 400 BadRequest for
 * anything but the digits of a uint64, Infinity beyond the safe integers (parseResourceVersion).
 * One answer for a GET, a list, a watch and an update (kube-apiserver's watch cache returns its
 * parse error unconverted, which becomes a 500: a client's mistake is a 400 here).
 */
export function requestedRevision(resourceVersion: string | undefined): number | undefined {
  try {
    return parseResourceVersion(resourceVersion);
  } catch {
    // Quoted short: a body's metadata.resourceVersion can be megabytes, and the answer need not be.
    const shown = resourceVersion!.length > 40 ? `${resourceVersion!.slice(0, 40)}…` : resourceVersion;
    throw errors.badRequest(`invalid resourceVersion "${shown}"`);
  }
}

/**
 * Whether the resourceVersion a write carries (an update's body, a patch's or an apply's result)
 * names the object's `current` one: compared as the numbers both parse to, as kube-apiserver's
 * guaranteedUpdate compares the uint64s it parsed, so "0042" names the object at 42. 400 for one
 * that is not a number (requestedRevision), whether or not it would have matched as text.
 */
export function namesRevision(asked: unknown, current: string | undefined): boolean {
  // A JSON number here (42, not "42") is no resourceVersion either: kube cannot decode it.
  if (typeof asked !== "string") throw errors.badRequest("metadata.resourceVersion must be a string");
  return requestedRevision(asked) === Number(current);
}

/**
 * A read "not older than" resourceVersion (a GET or a list with resourceVersion N, a watch from
 * N): waits for N when given (awaitRevision). Undefined, and no promise made, when there is
 * nothing to wait for — unset (most recent) or "0" (any: the current state will do) — so the
 * ordinary read pays nothing for it. 400 at once for a resourceVersion that is not a number.
 */
export function awaitNotOlderThan(
  storage: Storage,
  resourceVersion: string | undefined,
  waitMs?: number,
): Promise<void> | undefined {
  const rv = requestedRevision(resourceVersion);
  return rv ? awaitRevision(storage, rv, resourceVersion!, waitMs) : undefined;
}

/**
 * Waits until the store has reached `revision` (another replica or a write in flight may be about
 * to commit it), at most `waitMs`; then answers 504 "Too large resource version" with Retry-After,
 * as kube-apiserver does for a GET, list or watch from a resourceVersion ahead of its cache.
 * `asked` is the client's resourceVersion, quoted in exact digits. One beyond the safe integers
 * (requestedRevision's Infinity) is never reached: the same 504 without the wait.
 */
export async function awaitRevision(
  storage: Storage,
  revision: number,
  asked: string,
  waitMs = DEFAULT_FRESHNESS_WAIT_MS,
): Promise<void> {
  const deadline = Date.now() + waitMs;
  let current = await storage.currentRevision();
  while (current < revision) {
    const left = Number.isFinite(revision) ? deadline - Date.now() : 0;
    if (left <= 0) throw errors.resourceVersionTooLarge(resourceVersionDigits(asked), current);
    await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, left)));
    current = await storage.currentRevision();
  }
}
