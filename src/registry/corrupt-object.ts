/**
 * Stored values that do not decode (written into SQLite or etcd below the API, damaged, or
 * sealed with a key this server no longer holds), as the API answers them — the way
 * kube-apiserver does since KEP-3926 (docs/object-lifecycle.md, "Corrupt stored objects"):
 *
 * - a GET, an update or a DELETE of one such object: 500 InternalError "StorageError: corrupt
 *   object", naming the object and never quoting its bytes;
 * - a LIST that meets any: 500 StorageReadError, one cause per storage key;
 * - a DELETE with `ignoreStoreReadErrorWithClusterBreakingPotential` removes it without decoding
 *   it (unsafe-delete.ts).
 */
import { ApiError, errors, type GroupResource } from "../api/errors.js";
import type { KubeObject } from "../api/object.js";
import type { KeyValue } from "../storage/interface.js";
import { resourcePrefix } from "./keys.js";
import { apiVersionOf, type ResourceType } from "./resource-type.js";
import { decodeOrReason } from "./undecodable.js";

/** One object's stored value does not decode (a 500 InternalError that says so). */
export class CorruptObjectError extends ApiError {
  constructor(
    gr: GroupResource,
    name: string,
    /** The storage key of the value. */
    readonly key: string,
    /** Why, in fixed words (undecodable.ts). */
    why: string,
  ) {
    super(errors.corruptObject(gr, name, why).status);
  }
}

/** The object of `kv`, decoded; a CorruptObjectError when it does not decode into an object with a name. */
export function decodeOrCorrupt(
  kv: KeyValue,
  decode: (kv: KeyValue) => KubeObject,
  gr: GroupResource,
  name: string,
): KubeObject {
  // The reason in fixed words (undecodable.ts): a parser's message quotes the input.
  const result = decodeOrReason(kv, decode);
  if (typeof result !== "string") return result;
  throw new CorruptObjectError(gr, name, kv.key, result);
}

/**
 * The storage keys of a list's values that did not decode: the list goes on past them (so all
 * are named) and is then refused with one StorageReadError, as kube-apiserver refuses it.
 */
export class ListReadErrors {
  private readonly keys: string[] = [];

  /** `select` of a list item, with a value that does not decode recorded instead of thrown. */
  guard<T>(select: (kv: KeyValue) => T | undefined): (kv: KeyValue) => T | undefined {
    return (kv) => {
      try {
        return select(kv);
      } catch (err) {
        if (err instanceof ApiError && !(err instanceof CorruptObjectError)) throw err;
        this.keys.push(kv.key);
        return undefined;
      }
    };
  }

  /**
   * Throws the StorageReadError of the keys recorded, if any. A caller whose list is filtered to
   * what it may see (`filtered`) is not told the keys: whether it may see a value nobody can
   * read cannot be known, and a key names an object.
   */
  throwIfAny(gr: GroupResource, prefix: string, filtered: boolean): void {
    if (this.keys.length) throw errors.storeReadError(gr, prefix, filtered ? [] : this.keys);
  }
}

/**
 * What a DELETED watch event carries for an object whose last value does not decode (an unsafe
 * deletion): the object's identity from its storage key — apiVersion, kind, name, namespace and
 * the deletion's resourceVersion — and nothing of the value. Informers key their caches by
 * namespace/name, so this is enough for them to drop the object. (kube-apiserver, which cannot
 * decode it either, ends every watch of the resource instead and makes clients list again.)
 */
export function deletedIdentity(rt: ResourceType, kv: Pick<KeyValue, "key" | "modRevision">): KubeObject {
  const rest = kv.key.slice(resourcePrefix(rt).length);
  const slash = rt.namespaced ? rest.indexOf("/") : -1;
  const metadata: KubeObject["metadata"] = { name: slash < 0 ? rest : rest.slice(slash + 1) };
  if (slash >= 0) metadata.namespace = rest.slice(0, slash);
  metadata.resourceVersion = String(kv.modRevision);
  return { apiVersion: apiVersionOf(rt), kind: rt.kind, metadata };
}

/**
 * The object whose access rules decide a request, or undefined. A stored value that does not
 * decode has no rules anyone can read: it grants nothing, and the caller is refused (403) as for
 * any object it holds no right on, rather than told (500) that the object is there and corrupt.
 */
export async function readForRules(
  store: { read(namespace: string | undefined, name: string): Promise<KubeObject | undefined> },
  namespace: string | undefined,
  name: string,
): Promise<KubeObject | undefined> {
  try {
    return await store.read(namespace, name);
  } catch (err) {
    if (err instanceof CorruptObjectError) return undefined;
    throw err;
  }
}
