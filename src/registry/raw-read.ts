/**
 * The GET fast path: when a kind's strategy neither transforms stored objects (fromStorage)
 * nor what callers see (present), the API JSON of an object is its stored bytes with the
 * resourceVersion spliced in, served from memory without a parse or a stringify. It applies
 * when the storage keeps values in memory (Storage.getFromMemory: the watch cache); reached
 * through Store.readRaw and Store.readRawSoon.
 */
import { errors } from "../api/errors.js";
import { type KeyValue, type MemoryRead, NOT_NOW } from "../storage/interface.js";
import type { ResourceType } from "./resource-type.js";
import { withResourceVersion } from "./shared-codec.js";
import type { Store } from "./store.js";

/** Whether a kind's stored bytes are what callers see: nothing decrypts them or presents them per caller. */
export function servesStoredBytes(rt: ResourceType): boolean {
  return !rt.strategy.present && !rt.strategy.fromStorage;
}

/** Whether a raw read of this kind applies: its bytes are what callers see, and the storage reads from memory. */
function rawReadable(store: Store): boolean {
  return servesStoredBytes(store.rt) && store.storage.getFromMemory !== undefined;
}

/** The object's JSON bytes, or undefined when the fast path does not apply (use store.get). */
export async function rawGet(store: Store, namespace: string | undefined, name: string): Promise<Buffer | undefined> {
  if (!rawReadable(store)) return undefined;
  const kv = await store.storage.get(store.key(namespace, name));
  if (!kv) throw errors.notFound(store.gr, name);
  return withResourceVersion(kv.value, kv.modRevision);
}

/**
 * The object's JSON bytes from memory, for the synchronous fast path: the bytes, null when the
 * object does not exist, or undefined when memory cannot answer (use rawGet); a promise of the
 * same only when the storage must first check its revision (etcd).
 */
export function rawGetSoon(store: Store, key: string): Buffer | null | undefined | Promise<Buffer | null | undefined> {
  const { storage } = store;
  if (!storage.getFromMemory || !servesStoredBytes(store.rt)) return undefined;
  const read = storage.getFromMemory(key);
  return read instanceof Promise ? read.then(rawBytes) : rawBytes(read);
}

function rawBytes(kv: MemoryRead): Buffer | null | undefined {
  if (kv === NOT_NOW) return undefined;
  return kv ? answerBytes(kv) : null;
}

/**
 * The answer's bytes of each version held in memory, spliced on its first read and then shared
 * by every read of that version (a version never changes; a write makes a new KeyValue). Splicing
 * per read allocated and copied the whole object each time, a good part of a GET's garbage. The
 * entry goes with the version: a WeakMap holds nothing alive. The price: an object read since its
 * last write is in memory twice (stored and answered bytes) while that version is current.
 * null: not servable as stored bytes.
 */
const answers = new WeakMap<KeyValue, Buffer | null>();

function answerBytes(kv: KeyValue): Buffer | undefined {
  let bytes = answers.get(kv);
  if (bytes === undefined) {
    bytes = withResourceVersion(kv.value, kv.modRevision) ?? null;
    answers.set(kv, bytes);
  }
  return bytes ?? undefined;
}
