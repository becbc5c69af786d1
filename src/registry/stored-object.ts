/**
 * What a stored value must be for the server to show it: the one definition of "decodable",
 * shared by every path that reads the store — GET, LIST, watch, informers, and the fast paths
 * that send stored bytes unparsed (raw-read.ts), which check each stored version against it once.
 * A value that is not (written below the API, damaged) is a corrupt object
 * (corrupt-object.ts), its reason in fixed words: never the parser's message, which quotes the
 * bytes.
 *
 * Decodable: valid UTF-8 (a lenient decode would show U+FFFD for the damaged bytes and let a
 * client write them back); JSON; an object whose metadata is an object; and the object its
 * storage key names — this kind's apiVersion and kind, the key's name and namespace — as every
 * write through the API stores it.
 */
import { isUtf8 } from "node:buffer";
import type { KubeObject } from "../api/object.js";
import type { KeyValue } from "../storage/interface.js";
import { objectKey } from "./keys.js";
import { apiVersionOf, type ResourceType } from "./resource-type.js";

/** A stored value that is not an object this server would have stored there; `reason` in fixed words. */
export class UndecodableValueError extends Error {
  override readonly name = "UndecodableValueError";

  constructor(readonly reason: string) {
    super(reason);
  }
}

export type StoredKeyValue = Pick<KeyValue, "key" | "value" | "modRevision">;

/** The object stored in `kv`, as the API shows it (resourceVersion set); UndecodableValueError when it is not decodable. */
export function decodeStoredObject(rt: ResourceType, kv: StoredKeyValue): KubeObject {
  const obj = parseStoredObject(rt, kv);
  obj.metadata.resourceVersion = String(kv.modRevision);
  return obj;
}

/**
 * The object stored in `kv` as it was stored (without resourceVersion), parsed and checked;
 * UndecodableValueError when it is not decodable. `text`: the value as UTF-8 text, when the
 * caller has it already.
 */
export function parseStoredObject(rt: ResourceType, kv: StoredKeyValue, text?: string): KubeObject {
  if (!isUtf8(kv.value)) throw new UndecodableValueError("the stored value is not valid UTF-8");
  let obj: unknown;
  try {
    obj = JSON.parse(text ?? kv.value.toString("utf8"));
  } catch {
    throw new UndecodableValueError("the stored value is not valid JSON");
  }
  if (!isPlainObject(obj) || !isPlainObject(obj.metadata)) {
    throw new UndecodableValueError("the stored value is not an object with metadata");
  }
  const { metadata } = obj;
  if (typeof metadata.name !== "string") throw new UndecodableValueError("the stored object has no metadata.name");
  const namespace = metadata.namespace;
  if (
    obj.apiVersion !== apiVersionOf(rt) ||
    obj.kind !== rt.kind ||
    (namespace !== undefined && typeof namespace !== "string") ||
    objectKey(rt, namespace as string | undefined, metadata.name) !== kv.key
  ) {
    throw new UndecodableValueError("the stored object is not the one its storage key names");
  }
  return obj as unknown as KubeObject;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
