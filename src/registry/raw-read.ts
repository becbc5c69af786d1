/**
 * The GET fast path: when a kind's strategy neither transforms stored objects (fromStorage)
 * nor what callers see (present), the API JSON of an object is its stored bytes with the
 * resourceVersion spliced in, served from memory without a parse or a stringify once that
 * version's bytes were checked (sendableAsStored: in the background after the cache's fill, or on
 * its first serve). It applies
 * when the storage keeps values in memory (Storage.getFromMemory: the watch cache); reached
 * through Store.readRaw and Store.readRawSoon.
 */
import { errors } from "../api/errors.js";
import type { KubeObject } from "../api/object.js";
import { type KeyValue, type MemoryRead, NOT_NOW, type Storage, VERSION_MEMO } from "../storage/interface.js";
import type { ResourceType } from "./resource-type.js";
import { withResourceVersion } from "./shared-codec.js";
import { parseStoredObject } from "./stored-object.js";

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
  return answerBytes(store.rt, kv);
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
  return read instanceof Promise ? read.then((kv) => rawBytes(rt, kv)) : rawBytes(rt, read);
}

function rawBytes(rt: ResourceType, kv: MemoryRead): Buffer | null | undefined {
  if (kv === NOT_NOW) return undefined;
  return kv ? answerBytes(rt, kv) : null;
}

/**
 * Per version held in memory, what the fast paths know of its stored bytes: unchecked; refused,
 * they may not be sent as they are (the decoding path answers: a corrupt object is refused there,
 * any other value is encoded afresh); or sendable. A version never changes (a write makes a new
 * KeyValue), so each is checked once: in the background after the watch cache is filled
 * (stored-bytes-precheck.ts, in small slices), or on its first serve when that comes first — not
 * as it enters the cache, which would make a server starting with many objects parse every one
 * before answering (docs/performance.md, "Checking stored bytes").
 *
 * The verdict lives in the version's own VERSION_MEMO slot (8 bytes, made empty with every
 * KeyValue a storage makes), written only here, with values that cannot be forged or carried
 * over: "sendable" is the KeyValue itself (a copy, `{ ...kv, modRevision }`, carries a pointer to
 * the original, not to itself, so it counts as unchecked and is checked on its own), "refused"
 * is REFUSED, private to this module (a copy that carries it is only refused, the safe side).
 * A KeyValue without the slot (made by hand, not by a storage) keeps its verdict in
 * `unslotted`, as every version did before.
 */
const REFUSED: object = Object.freeze({ refused: true });
const unslotted = new WeakMap<KeyValue, boolean>();

/**
 * The answer to a GET of a version read since its last write: its bytes with the resourceVersion
 * spliced in, made on the first GET and then shared by every GET of that version (splicing per
 * read allocated and copied the whole object each time, a good part of a GET's garbage). Not in
 * the slot: it is right for this version's resourceVersion only, and a copy carries the slot. The
 * entry goes with the version: a WeakMap holds nothing alive. The price: an object read since its
 * last write is in memory twice while that version is current.
 */
const answers = new WeakMap<KeyValue, Buffer>();

function verdictOf(kv: KeyValue): boolean | undefined {
  if (!(VERSION_MEMO in kv)) return unslotted.get(kv);
  const memo = kv[VERSION_MEMO];
  return memo === kv ? true : memo === REFUSED ? false : undefined;
}

function remember(kv: KeyValue, sendable: boolean): void {
  if (VERSION_MEMO in kv) (kv as { [VERSION_MEMO]: unknown })[VERSION_MEMO] = sendable ? kv : REFUSED;
  else unslotted.set(kv, sendable);
}

/** Whether this version's stored bytes may be sent as the object (checked on first use, then remembered). */
export function sendableAsStored(rt: ResourceType, kv: KeyValue): boolean {
  let known = verdictOf(kv);
  if (known === undefined) {
    known = storedBytesAreTheObject(rt, kv);
    remember(kv, known);
  }
  return known;
}

/**
 * What is known of this version without checking it: whether its stored bytes may be sent
 * (true/false), or undefined when nothing has checked it yet. For tests and measurements of when
 * the check runs (stored-bytes-precheck.ts).
 */
export function storedBytesVerdict(kv: KeyValue): boolean | undefined {
  return verdictOf(kv);
}

/** The answer to a GET of this version: its bytes with the resourceVersion spliced in; undefined when the decoding path must answer. */
function answerBytes(rt: ResourceType, kv: KeyValue): Buffer | undefined {
  const known = answers.get(kv);
  if (known !== undefined) return known;
  if (!sendableAsStored(rt, kv)) return undefined;
  const bytes = withResourceVersion(kv.value, kv.modRevision)!;
  answers.set(kv, bytes);
  return bytes;
}

/**
 * The API JSON of this version for a watch event: the GET's answer when one was made, else
 * spliced now (not kept: most versions are never read, and a watch event's bytes are kept by its
 * frame); undefined when the decoding path must answer.
 */
export function eventBytes(rt: ResourceType, kv: KeyValue): Buffer | undefined {
  const known = answers.get(kv);
  if (known !== undefined) return known;
  return sendableAsStored(rt, kv) ? withResourceVersion(kv.value, kv.modRevision) : undefined;
}

/**
 * Whether the stored bytes are, byte for byte, what the decoding path would send of this
 * object, its resourceVersion aside: they decode (stored-object.ts, the same check the decoding
 * path makes, so the two cannot disagree on what is corrupt) and encode back to themselves. The
 * second part leaves to the decoding path what JSON allows but it would send differently: a
 * duplicate key (which metadata would get the resourceVersion?), a stored resourceVersion,
 * numbers past 2^53, whitespace or escapes the encoder does not write. Such values are never
 * written by this server; they are answered, correctly, at the decoding path's price.
 */
function storedBytesAreTheObject(rt: ResourceType, kv: KeyValue): boolean {
  const text = kv.value.toString("utf8");
  let obj: KubeObject;
  try {
    obj = parseStoredObject(rt, kv, text);
  } catch {
    return false;
  }
  return !("resourceVersion" in obj.metadata) && JSON.stringify(obj) === text;
}
