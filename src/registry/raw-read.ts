/**
 * The GET fast path: when a kind's strategy neither transforms stored objects (fromStorage)
 * nor what callers see (present), the API JSON of an object is its stored bytes with the
 * resourceVersion spliced in, served from the watch cache without a parse or a stringify.
 */
import { errors } from "../api/errors.js";
import { CachedStorage, NOT_NOW } from "../storage/cache/cached-storage.js";
import type { KeyValue } from "../storage/interface.js";
import type { ResourceType } from "./resource-type.js";
import { withResourceVersion } from "./shared-codec.js";
import type { Store } from "./store.js";

/** Whether a kind's stored bytes are what callers see: nothing decrypts them or presents them per caller. */
export function servesStoredBytes(rt: ResourceType): boolean {
  return !rt.strategy.present && !rt.strategy.fromStorage;
}

/** The watch cache a raw read of this kind can be served from, if any. */
function rawReadable(store: Store): CachedStorage | undefined {
  return servesStoredBytes(store.rt) && store.storage instanceof CachedStorage ? store.storage : undefined;
}

/** The object's JSON bytes, or undefined when the fast path does not apply (use store.get). */
export async function rawGet(store: Store, namespace: string | undefined, name: string): Promise<Buffer | undefined> {
  const cached = rawReadable(store);
  if (!cached) return undefined;
  const kv = await cached.get(store.key(namespace, name));
  if (!kv) throw errors.notFound(store.gr, name);
  return withResourceVersion(kv.value, kv.modRevision);
}

/**
 * rawGet without waiting, for the synchronous fast path: the bytes, null when the object does not
 * exist, or undefined when this cannot be answered right now from the cache (use rawGet).
 */
export function rawGetNow(store: Store, namespace: string | undefined, name: string): Buffer | null | undefined {
  const cached = rawReadable(store);
  if (!cached) return undefined;
  return rawBytes(cached.getNow(store.key(namespace, name)));
}

/**
 * rawGetNow, or when the cache cannot prove at once that it is current (a store that must be
 * asked for its revision: etcd), the same answer after that check: a promise of the bytes, null
 * when the object does not exist, undefined when the cache cannot answer (use rawGet).
 */
export function rawGetSoon(
  store: Store,
  namespace: string | undefined,
  name: string,
): Buffer | null | undefined | Promise<Buffer | null | undefined> {
  const cached = rawReadable(store);
  if (!cached) return undefined;
  const key = store.key(namespace, name);
  const now = cached.getNow(key);
  if (now !== NOT_NOW) return rawBytes(now);
  return cached.getChecked(key).then(rawBytes);
}

function rawBytes(kv: KeyValue | undefined | typeof NOT_NOW): Buffer | null | undefined {
  if (kv === NOT_NOW) return undefined;
  return kv ? (withResourceVersion(kv.value, kv.modRevision) ?? undefined) : null;
}
