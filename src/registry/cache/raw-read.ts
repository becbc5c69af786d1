/**
 * The GET fast path: when a kind's strategy neither transforms stored objects (fromStorage)
 * nor what callers see (present), the API JSON of an object is its stored bytes with the
 * resourceVersion spliced in, served from the watch cache without a parse or a stringify.
 */
import { errors } from "../../api/errors.js";
import type { Store } from "../store.js";
import { CachedStorage, NOT_NOW } from "./cached-storage.js";
import { withResourceVersion } from "./shared-codec.js";

/** The object's JSON bytes, or undefined when the fast path does not apply (use store.get). */
export async function rawGet(store: Store, namespace: string | undefined, name: string): Promise<Buffer | undefined> {
  const strategy = store.rt.strategy;
  if (strategy.present || strategy.fromStorage || !(store.storage instanceof CachedStorage)) return undefined;
  const kv = await store.storage.get(store.key(namespace, name));
  if (!kv) throw errors.notFound(store.gr, name);
  return withResourceVersion(kv.value, kv.modRevision);
}

/**
 * rawGet without waiting, for the synchronous fast path: the bytes, null when the object does not
 * exist, or undefined when this cannot be answered right now from the cache (use rawGet).
 */
export function rawGetNow(store: Store, namespace: string | undefined, name: string): Buffer | null | undefined {
  const strategy = store.rt.strategy;
  if (strategy.present || strategy.fromStorage || !(store.storage instanceof CachedStorage)) return undefined;
  const kv = store.storage.getNow(store.key(namespace, name));
  if (kv === NOT_NOW) return undefined;
  return kv ? (withResourceVersion(kv.value, kv.modRevision) ?? undefined) : null;
}
