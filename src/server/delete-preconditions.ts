/**
 * The `preconditions` of a DELETE's DeleteOptions body, decoded as kube-apiserver's JSON decoder
 * decodes them into its Go types: null or absent is no precondition; a string, the empty one
 * included, is one (so `uid: ""` matches no object: 409); any other type is 400 BadRequest in
 * the decoder's words (encoding/json's UnmarshalTypeError).
 */
import { errors } from "../api/errors.js";
import { isPlainObject } from "../api/object.js";
import type { DeleteOptions } from "../registry/options.js";

type Preconditions = NonNullable<DeleteOptions["preconditions"]>;

/** Each field and the Go type kube-apiserver decodes it into. */
const FIELDS: Record<keyof Preconditions, string> = { uid: "types.UID", resourceVersion: "string" };

export function deletePreconditions(value: unknown): DeleteOptions["preconditions"] {
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value)) throw typeError(value, "DeleteOptions.preconditions", "v1.Preconditions");
  const out: Preconditions = {};
  for (const [field, goType] of Object.entries(FIELDS) as [keyof Preconditions, string][]) {
    const v = value[field];
    if (v === undefined || v === null) continue;
    if (typeof v !== "string") throw typeError(v, `Preconditions.preconditions.${field}`, goType);
    out[field] = v;
  }
  return out;
}

function typeError(value: unknown, field: string, goType: string) {
  return errors.badRequest(`json: cannot unmarshal ${jsonType(value)} into Go struct field ${field} of type ${goType}`);
}

/** The JSON type of a decoded value, named as encoding/json names it. */
function jsonType(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return "number";
  if (typeof value === "boolean") return "bool";
  return typeof value; // string, object
}
