import {
  type FieldPath,
  type FieldsV1,
  fieldPathString,
  fieldsV1ToPaths,
  type ListTypeOf,
} from "../../api/fields-v1.js";
import { isPlainObject, setOwnProperty } from "../../api/object.js";

/** The key of a keyed list item as comparable text, or undefined when it lacks a key field. */
function itemKey(item: unknown, keys: readonly string[]): string | undefined {
  if (!isPlainObject(item)) return undefined;
  const parts: unknown[] = [];
  for (const k of keys) {
    const v = item[k];
    if (v === undefined || v === null || typeof v === "object") return undefined;
    parts.push(v);
  }
  return JSON.stringify(parts);
}

/**
 * Merges an applied configuration into the live state (structured-merge-diff's merge):
 * objects field by field, keyed lists item by item (new items appended), set lists as a
 * union, anything else (scalars, atomic lists) replaced by the configuration's value.
 */
export function mergeApplied(live: unknown, config: unknown, path: readonly string[], lt: ListTypeOf): unknown {
  if (isPlainObject(live) && isPlainObject(config)) {
    const out: Record<string, unknown> = { ...live };
    for (const [k, v] of Object.entries(config)) {
      setOwnProperty(out, k, Object.hasOwn(live, k) ? mergeApplied(live[k], v, [...path, k], lt) : structuredClone(v));
    }
    return out;
  }
  if (Array.isArray(live) && Array.isArray(config)) {
    const type = lt(path) ?? { type: "atomic" };
    if (type.type === "map") {
      const liveKeys = live.map((i) => itemKey(i, type.keys));
      const configKeys = config.map((i) => itemKey(i, type.keys));
      if (![...liveKeys, ...configKeys].includes(undefined)) {
        const out = live.map((i) => structuredClone(i));
        config.forEach((item, i) => {
          const at = liveKeys.indexOf(configKeys[i]);
          if (at >= 0) out[at] = mergeApplied(out[at], item, path, lt);
          else out.push(structuredClone(item));
        });
        return out;
      }
    } else if (type.type === "set") {
      const out = [...live];
      for (const v of config) if (!out.some((x) => JSON.stringify(x) === JSON.stringify(v))) out.push(v);
      return out;
    }
  }
  return structuredClone(config);
}

/** Whether `protectedPaths` holds `path` or anything beneath it. */
function isProtected(path: string, protectedPaths: readonly string[]): boolean {
  return protectedPaths.some((p) => p === path || p.startsWith(`${path}.`) || p.startsWith(`${path}[`));
}

/** Removes the fields of `remove` from `obj` in place, except those under a path of `keep`. */
export function removeFields(obj: Record<string, unknown>, remove: FieldsV1, keep: FieldsV1): void {
  const kept = fieldsV1ToPaths(keep).map(fieldPathString);
  for (const path of fieldsV1ToPaths(remove)) {
    if (isProtected(fieldPathString(path), kept)) continue;
    removePath(obj, path);
  }
}

function removePath(root: unknown, path: FieldPath): void {
  let parent: unknown = root;
  for (let i = 0; i < path.length; i++) {
    const pe = path[i]!;
    const last = i === path.length - 1;
    if ("field" in pe) {
      if (!isPlainObject(parent) || !Object.hasOwn(parent, pe.field)) return;
      if (last) {
        delete parent[pe.field];
        return;
      }
      parent = parent[pe.field];
      continue;
    }
    if (!Array.isArray(parent)) return;
    const list: unknown[] = parent;
    const at =
      "key" in pe
        ? list.findIndex((item) => isPlainObject(item) && Object.entries(pe.key).every(([k, v]) => item[k] === v))
        : "value" in pe
          ? list.findIndex((item) => JSON.stringify(item) === JSON.stringify(pe.value))
          : pe.index;
    if (at < 0 || at >= list.length) return;
    if (last) {
      list.splice(at, 1);
      return;
    }
    parent = list[at];
  }
}
