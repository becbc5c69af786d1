import { isDeepStrictEqual } from "node:util";
import jsonpatch from "fast-json-patch";
import { type ApiError, errors } from "../api/errors.js";
import { isPlainObject, type KubeObject } from "../api/object.js";
import { replaceAddsMissingKey } from "../api/patch.js";

/** The JSON patch operations whose outcome depends on a value already in the document, and where they read. */
const READ_POINTER: Record<string, "path" | "from"> = { test: "path", copy: "from", move: "from" };

/**
 * JSON patch `test`, `copy` and `move` read the stored object: a matching `test` answers 200,
 * a copied value lands where the caller sees it (or in an error). So every such read must
 * find the same value in the object as this caller may see it (`visibleTo()`, asked only when the
 * patch reads: presentation applied, undefined when the caller may not `get` it at all) as in the stored one;
 * otherwise the patch is refused with 403 before it is applied. The operations are replayed
 * on both documents, so a read of something the caller itself wrote earlier in the patch is fine.
 */
export function refuseHiddenReads(
  ops: unknown,
  stored: KubeObject,
  visibleTo: () => KubeObject | undefined,
  refuse: (detail: string) => ApiError,
): void {
  if (!Array.isArray(ops)) return;
  const firstRead = ops.findIndex((op) => isPlainObject(op) && readPointer(op) !== undefined);
  if (firstRead < 0) return;
  const describe = (index: number, op: Record<string, unknown>) =>
    `JSON patch operation ${index} (${op.op}) reads ${JSON.stringify(readPointer(op))}`;
  const visible = visibleTo();
  if (visible === undefined) {
    throw refuse(`${describe(firstRead, ops[firstRead])}, and the caller may not get this object`);
  }
  let real: unknown = structuredClone(stored);
  let seen: unknown = structuredClone(visible);
  for (const [index, op] of ops.entries()) {
    if (!isPlainObject(op)) return; // the patch itself reports it
    const pointer = readPointer(op);
    if (pointer !== undefined) {
      const what = describe(index, op);
      if (!isDeepStrictEqual(valueAt(real, pointer), valueAt(seen, pointer))) {
        throw refuse(`${what}, a value the caller may not read`);
      }
    }
    real = applyOne(real, op);
    seen = applyOne(seen, op);
    if (real === FAILED || seen === FAILED) return; // the patch fails there and reports it
  }
}

function readPointer(op: Record<string, unknown>): string | undefined {
  const field = typeof op.op === "string" ? READ_POINTER[op.op] : undefined;
  const pointer = field ? op[field] : undefined;
  return typeof pointer === "string" ? pointer : undefined;
}

const FAILED = Symbol("failed");
const MISSING = Symbol("missing");

function applyOne(doc: unknown, op: Record<string, unknown>): unknown {
  if (doc === FAILED) return FAILED;
  try {
    // As applyJsonPatch applies it: a replace of a missing key that the replay refused while the
    // patch itself succeeds would end the checks before a later read of a hidden value.
    const operation = replaceAddsMissingKey(doc, structuredClone(op) as unknown as jsonpatch.Operation);
    return jsonpatch.applyOperation(doc, operation, true, true, true).newDocument;
  } catch {
    return FAILED;
  }
}

/** The value a JSON pointer (RFC 6901) names, looking at own properties only; MISSING when there is none. */
function valueAt(doc: unknown, pointer: string): unknown {
  if (pointer === "") return doc;
  let at: unknown = doc;
  for (const raw of pointer.split("/").slice(1)) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(at) || isPlainObject(at)) {
      if (!Object.hasOwn(at, key)) return MISSING;
      at = (at as Record<string, unknown>)[key];
    } else {
      return MISSING;
    }
  }
  return at;
}

/** The 403 for a refused read. */
export function hiddenReadRefusal(resource: { group: string; resource: string }, name: string, user: string) {
  return (detail: string): ApiError => errors.forbidden(resource, name, `User "${user}" cannot patch: ${detail}`);
}
