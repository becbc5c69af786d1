/**
 * Read-modify-writes that start from the watch cache's copy of the object instead of a
 * consistent read (which on etcd costs a round trip for the revision check, then a wait until
 * the cache has caught up): kube-apiserver's updates start from the watch cache's copy too.
 *
 * The copy may be older than a write another replica just made. That is safe because the write
 * is conditional on the copy's modRevision: if it commits, the copy was current. Anything else
 * the attempt ends with (a conflict, a refusal a newer copy might not earn, a no-op, which
 * writes nothing and so proves nothing) is thrown away and the caller starts again from a
 * consistent read, as before.
 */
import { ApiError } from "../api/errors.js";
import type { KeyValue, Storage } from "../storage/interface.js";
import type { RequestContext } from "./request-context.js";

/** An update of a cached copy that changes nothing: the caller redoes it from a consistent read. */
export class UnprovenNoOp extends Error {
  constructor() {
    super("no-op update of a cached copy");
  }
}

/**
 * `attempt` on the cache's copy of `key`: its result when it committed, undefined when there
 * was no copy or the attempt must be redone from a consistent read. Server errors (etcd
 * unavailable: the write may have committed) are thrown as they are, never retried here.
 */
export async function onCachedCopy<T>(
  storage: Storage,
  key: string,
  ctx: RequestContext,
  attempt: (kv: KeyValue) => Promise<T>,
): Promise<{ result: T } | undefined> {
  // Only a storage that keeps copies has getRecent (Storage.getRecent: the watch cache).
  if (!storage.getRecent) return undefined;
  const kv = await storage.getRecent(key);
  if (kv === undefined) return undefined;
  const warnings = ctx.warnings.length;
  try {
    return { result: await attempt(kv) };
  } catch (err) {
    const redo = err instanceof UnprovenNoOp || (err instanceof ApiError && err.code < 500);
    if (!redo) throw err;
    // The consistent attempt warns again if it must.
    ctx.warnings.length = warnings;
    return undefined;
  }
}
