import type { KubeObject } from "./types";

/** What a hidden secret value shows in YAML; left as it is, it is never sent back (merge-patch.ts). */
export const HIDDEN_VALUE = "(hidden)";

/**
 * An object as the YAML panel and the editors show it: SharedSecret values masked, and
 * metadata.managedFields (bookkeeping of who wrote which field) left out unless asked for.
 */
export function objectView(o: KubeObject, options: { managedFields?: boolean } = {}): KubeObject {
  const view = structuredClone(o);
  if (!options.managedFields) delete (view.metadata as Record<string, unknown>).managedFields;
  const data = view.spec?.data;
  if (view.kind === "SharedSecret" && data && typeof data === "object") {
    for (const key of Object.keys(data)) data[key] = HIDDEN_VALUE;
  }
  return view;
}
