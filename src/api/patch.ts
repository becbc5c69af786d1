/**
 * PATCH bodies: JSON Patch (RFC 6902, application/json-patch+json) and JSON
 * Merge Patch (RFC 7396, application/merge-patch+json). Both return a new
 * document and never touch their inputs.
 *
 * Refusals follow kube-apiserver (k8s.io/apiserver/pkg/endpoints/handlers/patch.go):
 * - a body that is not an array of objects: 400 BadRequest;
 * - more than 10,000 operations: 413 `Request entity too large: The allowed
 *   maximum operations in a JSON patch is 10000, got N`;
 * - an operation that does not apply (failed `test`, missing path, unknown
 *   `op`, index out of range): 422 Invalid `the server rejected our request due
 *   to an error in our request`. Kubernetes drops the detail; here it is kept
 *   as the Status' single cause.
 */
import jsonpatch from "fast-json-patch";
import { errors } from "./errors.js";
import { isPlainObject } from "./object.js";

/** The most operations one JSON patch may carry (kube-apiserver's maxJSONPatchOperations). */
export const MAX_JSON_PATCH_OPERATIONS = 10000;

export type JsonPatchOperation = jsonpatch.Operation;

/** Checks a decoded JSON Patch body is an array of objects of at most 10,000 operations. */
function parseJsonPatch(ops: unknown): JsonPatchOperation[] {
  if (!Array.isArray(ops)) {
    throw errors.badRequest("json: cannot unmarshal object into Go value of type jsonpatch.Patch");
  }
  ops.forEach((op, i) => {
    if (!isPlainObject(op)) {
      throw errors.badRequest(`json patch operation ${i} is not an object`);
    }
  });
  if (ops.length > MAX_JSON_PATCH_OPERATIONS) {
    throw errors.entityTooLarge(
      `The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${ops.length}`,
    );
  }
  return ops as JsonPatchOperation[];
}

function describeOperation(op: unknown): string {
  if (!isPlainObject(op)) return "";
  const name = typeof op.op === "string" ? op.op : "?";
  const path = typeof op.path === "string" ? op.path : "?";
  return ` (${name} ${JSON.stringify(path)})`;
}

/** Applies an RFC 6902 patch to a copy of `doc`. Throws an ApiError (400/413/422) as described above. */
export function applyJsonPatch(doc: unknown, ops: unknown): unknown {
  const operations = structuredClone(parseJsonPatch(ops));
  const target = structuredClone(doc);
  try {
    return jsonpatch.applyPatch(target, operations, true, true, true).newDocument;
  } catch (err) {
    if (err instanceof jsonpatch.JsonPatchError) {
      const index = typeof err.index === "number" ? err.index : undefined;
      const where = index === undefined ? "" : `operation ${index}${describeOperation(operations[index])}: `;
      // fast-json-patch appends the operation and the whole document to its message: keep only its first line.
      const message = err.message.split("\n", 1)[0];
      throw errors.unprocessable(undefined, [{ reason: err.name, message: `${where}${message}` }]);
    }
    if (err instanceof TypeError && err.message.startsWith("JSON-Patch:")) {
      throw errors.unprocessable(undefined, [{ message: err.message.split("\n", 1)[0] }]);
    }
    throw err;
  }
}

/** Sets an own property, even one named `__proto__` (plain assignment would set the prototype). */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  // defineProperty for every key turned each merged object into a slow dictionary-mode object.
  if (key === "__proto__")
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** RFC 7396 MergePatch over values the caller owns (untouched subtrees are shared, not copied). */
function merge(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return patch;
  const result: Record<string, unknown> = {};
  if (isPlainObject(target)) for (const [k, v] of Object.entries(target)) setOwn(result, k, v);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else setOwn(result, key, merge(Object.hasOwn(result, key) ? result[key] : undefined, value));
  }
  return result;
}

/**
 * Applies an RFC 7396 merge patch: objects merge key by key, `null` deletes a
 * key, anything else (arrays included) replaces. A patch that is not an object
 * replaces the whole document. The result shares nothing with the inputs.
 */
export function applyMergePatch(doc: unknown, patch: unknown): unknown {
  return merge(structuredClone(doc), structuredClone(patch));
}
