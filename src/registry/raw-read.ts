/**
 * The GET fast path: when a kind's strategy neither transforms stored objects (fromStorage)
 * nor what callers see (present), the API JSON of an object is its stored bytes with the
 * resourceVersion spliced in, served from memory without a parse or a stringify once that
 * version's bytes were checked (StoredVersions.sendableAsStored, stored-versions.ts: in the
 * background after the cache's fill, or on its first serve). It applies
 * when the storage keeps values in memory (Storage.getFromMemory: the watch cache); reached
 * through Store.readRaw and Store.readRawSoon.
 */
import { errors } from "../api/errors.js";
import { type MemoryRead, NOT_NOW, type Storage } from "../storage/interface.js";
import type { ResourceType } from "./resource-type.js";
import type { StoredVersions } from "./stored-versions.js";

/** Whether a kind's stored bytes are what callers see: nothing decrypts them or presents them per caller. */
export function servesStoredBytes(rt: ResourceType): boolean {
  return !rt.strategy.present && !rt.strategy.fromStorage;
}

/**
 * What the stored-bytes reads use of a kind's Store (store.ts, which calls them): an interface,
 * so that the two files do not import each other.
 */
export interface StoredBytesSource {
  readonly rt: ResourceType;
  readonly gr: { group: string; resource: string };
  readonly storage: Storage;
  /** What the registry found of each version (its verdict and GET answer), shared by the kind's fast paths. */
  readonly versions: StoredVersions;
  key(namespace: string | undefined, name: string): string;
}

/** Whether a raw read of this kind applies: its bytes are what callers see, and the storage reads from memory. */
function rawReadable(store: StoredBytesSource): boolean {
  return servesStoredBytes(store.rt) && store.storage.getFromMemory !== undefined;
}

/** The object's JSON bytes, or undefined when the fast path does not apply (use store.get). */
export async function rawGet(
  store: StoredBytesSource,
  namespace: string | undefined,
  name: string,
): Promise<Buffer | undefined> {
  if (!rawReadable(store)) return undefined;
  const kv = await store.storage.get(store.key(namespace, name));
  if (!kv) throw errors.notFound(store.gr, name);
  return store.versions.getAnswer(store.rt, kv);
}

/**
 * The object's JSON bytes from memory, for the synchronous fast path: the bytes, null when the
 * object does not exist, or undefined when memory cannot answer (use rawGet); a promise of the
 * same only when the storage must first check its revision (etcd).
 */
export function rawGetSoon(
  store: StoredBytesSource,
  key: string,
): Buffer | null | undefined | Promise<Buffer | null | undefined> {
  const { storage, rt } = store;
  if (!storage.getFromMemory || !servesStoredBytes(rt)) return undefined;
  const read = storage.getFromMemory(key);
  return read instanceof Promise ? read.then((kv) => rawBytes(store, kv)) : rawBytes(store, read);
}

function rawBytes(store: StoredBytesSource, kv: MemoryRead): Buffer | null | undefined {
  if (kv === NOT_NOW) return undefined;
  return kv ? store.versions.getAnswer(store.rt, kv) : null;
}
