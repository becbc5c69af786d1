import type { KubeObject } from "./types";

/** What a hidden secret value shows in YAML; left as it is, it is never sent back (merge-patch.ts). */
export const HIDDEN_VALUE = "(hidden)";

/**
 * An object as the YAML panel and the editors show it: the values at the kind's secret fields
 * masked (KindInfo.secretFields; a field holding a map, as `spec.data`, keeps its keys), and
 * metadata.managedFields (bookkeeping of who wrote which field) left out unless asked for.
 */
export function objectView(
  o: KubeObject,
  secretFields: readonly string[],
  options: { managedFields?: boolean } = {},
): KubeObject {
  const view = structuredClone(o);
  if (!options.managedFields) delete (view.metadata as Record<string, unknown>).managedFields;
  for (const path of secretFields) maskAt(view as unknown as Record<string, unknown>, path.split("."));
  return view;
}

function maskAt(parent: Record<string, unknown>, path: string[]): void {
  const [head, ...rest] = path;
  if (head === undefined || !Object.hasOwn(parent, head)) return;
  const value = parent[head];
  if (rest.length > 0) {
    if (isObject(value)) maskAt(value, rest);
    return;
  }
  if (isObject(value)) {
    for (const key of Object.keys(value)) value[key] = HIDDEN_VALUE;
  } else if (value !== undefined && value !== null) {
    parent[head] = HIDDEN_VALUE;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
