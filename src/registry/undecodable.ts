import type { KubeObject } from "../api/object.js";
import type { KeyValue } from "../storage/interface.js";
import { UndecodableValueError } from "./stored-object.js";

/**
 * A stored value an informer could not decode (written below the API, damaged, or sealed with a
 * key this server no longer holds). What is reported names the object, never its bytes: a
 * value may hold secrets, and a parser's message quotes the text it choked on.
 */
export interface UndecodableObject {
  /** The resource (plural) of the informer. */
  readonly resource: string;
  /** The storage key. */
  readonly key: string;
  /** The revision of the value that did not decode (its modRevision). */
  readonly revision: number;
  /** Why, in fixed words: never the parser's message (it quotes the input). */
  readonly reason: string;
}

export type OnUndecodable = (report: UndecodableObject) => void;

/** The reason decode(kv) fails, or undefined when it gives an object that has a name. */
export function undecodableReason(kv: KeyValue, decode: (kv: KeyValue) => KubeObject): string | undefined {
  const result = decodeOrReason(kv, decode);
  return typeof result === "string" ? result : undefined;
}

/** decode(kv) when it gives an object that has a name; otherwise why not, in fixed words. */
export function decodeOrReason(kv: KeyValue, decode: (kv: KeyValue) => KubeObject): KubeObject | string {
  let obj: KubeObject;
  try {
    obj = decode(kv);
  } catch (err) {
    if (err instanceof UndecodableValueError) return err.reason;
    if (err instanceof SyntaxError) return "the stored value is not valid JSON";
    // Decoding sets metadata.resourceVersion: a JSON array, string or null, or an object without metadata, fails there.
    if (err instanceof TypeError) return "the stored value is not an object with metadata";
    return `the stored value could not be decoded (${err instanceof Error ? err.name : typeof err})`;
  }
  if (typeof obj.metadata?.name !== "string") return "the stored object has no metadata.name";
  return obj;
}
