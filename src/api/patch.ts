/**
 * PATCH bodies: JSON Patch (RFC 6902, application/json-patch+json) and JSON
 * Merge Patch (RFC 7396, application/merge-patch+json). Both return a new
 * document and never touch their inputs.
 *
 * A JSON patch means what it means to kube-apiserver, whose JSON patch library (evanphx/json-patch
 * v4) is looser than RFC 6902 in one way clients rely on: a `replace` of a key an object lacks
 * adds it (replaceAddsMissingKey), where the RFC says the target must exist. A missing array
 * index or a missing parent is still refused, as there.
 *
 * Refusals follow kube-apiserver (k8s.io/apiserver/pkg/endpoints/handlers/patch.go):
 * - a body that is not an array of objects: 400 BadRequest;
 * - more than 10,000 operations: 413 `Request entity too large: The allowed
 *   maximum operations in a JSON patch is 10000, got N`;
 * - an operation that does not apply (failed `test`, missing path, unknown
 *   `op`, index out of range): 422 Invalid `the server rejected our request due
 *   to an error in our request`. Kubernetes drops the detail; here it is kept
 *   as the Status' single cause, on the field `patch`;
 * - `copy` operations adding more than the request body limit in all (3 MiB of
 *   JSON, kube-apiserver's JSONPatchMaxCopyBytes): 422 Invalid, counted before
 *   each copy is made. A copy of a value into itself doubles it: without the
 *   limit a patch of a few dozen operations grew an object past memory;
 * - a patched object (any patch type) larger than the request body limit:
 *   413 RequestEntityTooLarge (refuseOversizedResult).
 */
import jsonpatch from "fast-json-patch";
import { MAX_BODY_BYTES } from "./body-limit.js";
import { type ApiError, errors } from "./errors.js";
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

/**
 * The 422 of a JSON patch that does not apply, in kube-apiserver's top-level words. Its one cause
 * says which operation failed and why, on the field `patch`: the field kube-apiserver names for an
 * error of the patch itself (a strict decoding error of what it made), so that every cause of a
 * 422 has its field (kube-apiserver's answer to a failed operation has no cause at all).
 */
function patchRefused(detail: string): ApiError {
  return errors.unprocessable(undefined, [{ reason: "FieldValueInvalid", field: "patch", message: detail }]);
}

/** Applies an RFC 6902 patch to a copy of `doc`. Throws an ApiError (400/413/422) as described above. */
export function applyJsonPatch(doc: unknown, ops: unknown): unknown {
  const operations = structuredClone(parseJsonPatch(ops));
  let document = structuredClone(doc);
  let copied = 0;
  try {
    for (let i = 0; i < operations.length; i++) {
      const op = operations[i]!;
      if (op.op === "copy") copied += copySize(document, op, i, MAX_BODY_BYTES - copied);
      const applied = replaceAddsMissingKey(document, op);
      document = jsonpatch.applyOperation(document, applied, validateOperation, true, true, i).newDocument;
    }
    return document;
  } catch (err) {
    if (err instanceof jsonpatch.JsonPatchError) {
      const index = typeof err.index === "number" ? err.index : undefined;
      const where = index === undefined ? "" : `operation ${index}${describeOperation(operations[index])}: `;
      // fast-json-patch appends the operation and the whole document to its message: keep only its first line.
      const message = err.message.split("\n", 1)[0];
      throw patchRefused(`${where}${message}`);
    }
    if (err instanceof TypeError && err.message.startsWith("JSON-Patch:")) {
      throw patchRefused(err.message.split("\n", 1)[0] ?? "");
    }
    throw err;
  }
}

/**
 * `op`, or an `add` in its place when it is a `replace` of a key missing from an object that
 * exists: kube-apiserver adds the key (its library finds no error in getting a missing key), so
 * `kubectl patch --type json -p '[{"op":"replace",...}]'` works there on a field not yet set.
 * Anything else missing (an array index, the parent) is left to the operation's own check: 422.
 * Whatever replays a patch (patch-read-guard.ts) applies its operations through this too.
 */
export function replaceAddsMissingKey(document: unknown, op: JsonPatchOperation): JsonPatchOperation {
  if (op.op !== "replace" || typeof op.path !== "string") return op;
  const slash = op.path.lastIndexOf("/");
  if (slash < 0) return op; // not a pointer: the operation's own check refuses it
  const parent = valueAt(document, op.path.slice(0, slash));
  if (!isPlainObject(parent)) return op;
  const key = jsonpatch.unescapePathComponent(op.path.slice(slash + 1));
  return Object.hasOwn(parent, key) ? op : { ...op, op: "add" };
}

/**
 * The JSON size of what a `copy` adds, refused (422) when it is more than `budget`: what the
 * earlier copies of the patch left of the limit. Measured before the copy is made, so a refused
 * patch costs one serialization of the value it names.
 */
function copySize(document: unknown, op: JsonPatchOperation & { from?: unknown }, index: number, budget: number) {
  const value = typeof op.from === "string" ? valueAt(document, op.from) : undefined;
  if (value === undefined) return 0; // the operation's own check refuses it
  const size = Buffer.byteLength(JSON.stringify(value));
  if (size > budget) {
    throw patchRefused(
      `operation ${index}${describeOperation(op)}: the copies of this patch would add more than ${MAX_BODY_BYTES} bytes, the most a request may carry`,
    );
  }
  return size;
}

/** The value at a JSON pointer, undefined when nothing is there (a parsed document holds no undefined). */
function valueAt(document: unknown, pointer: string): unknown {
  try {
    return jsonpatch.getValueByPointer(document, pointer);
  } catch {
    return undefined;
  }
}

/**
 * fast-json-patch's checks of one operation, except that `copy` and `move` find their `from`
 * with a lookup: its own check of `from` applies a clone of the whole document, so a patch of
 * many moves cost operations × document size.
 */
function validateOperation(
  op: JsonPatchOperation & { from?: unknown },
  index: number,
  document: unknown,
  existingPathFragment: string,
): void {
  if (op.op !== "copy" && op.op !== "move") {
    jsonpatch.validator(op, index, document, existingPathFragment);
    return;
  }
  jsonpatch.validator(op, index);
  if (valueAt(document, op.from as string) === undefined) {
    throw new jsonpatch.JsonPatchError(
      "Cannot perform the operation from a path that does not exist",
      "OPERATION_FROM_UNRESOLVABLE",
      index,
      op,
      document,
    );
  }
}

/**
 * Refuses (413) a patched object larger than a request body may be: a patch, unlike a body,
 * can make an object of any size from a small request, and every later read would carry it.
 */
export function refuseOversizedResult(obj: unknown): void {
  const size = Buffer.byteLength(JSON.stringify(obj) ?? "");
  if (size > MAX_BODY_BYTES) {
    throw errors.entityTooLarge(
      `the patched object is ${size} bytes of JSON, more than the ${MAX_BODY_BYTES} a request may carry`,
    );
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
