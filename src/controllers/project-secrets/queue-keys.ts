import type { KubeObject } from "../../api/object.js";

/** The work queue key of a namespaced object: `namespace/name` (names hold no slash). */
export function keyOf(obj: KubeObject): string {
  return `${obj.metadata.namespace ?? ""}/${obj.metadata.name ?? ""}`;
}

/** A queue key back into namespace and name. */
export function splitKey(key: string): [string, string] {
  const slash = key.indexOf("/");
  return [key.slice(0, slash), key.slice(slash + 1)];
}
