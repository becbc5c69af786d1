import type { KubeObject } from "../../api/object.js";

/**
 * Who set a ProjectSecret's `spec.source`, as `User:<name>`, `Team:<name>` or `Subject:<name>`.
 * Written by admission only (admission/project-secret-source.ts), whatever a body says; the sync
 * controller copies the shared secret's data only while this subject may read it.
 */
export const SOURCE_SET_BY_ANNOTATION = "management.platform/source-set-by";

export interface SourceSetter {
  kind: "User" | "Team" | "Subject";
  name: string;
}

/** The annotation's value on `obj` (undefined when absent). */
export function setterOf(obj: KubeObject | undefined): string | undefined {
  return obj?.metadata.annotations?.[SOURCE_SET_BY_ANNOTATION];
}

/** The annotation read back; undefined when absent or not of the shape admission writes. */
export function parseSetter(obj: KubeObject): SourceSetter | undefined {
  const value = setterOf(obj);
  const colon = value?.indexOf(":") ?? -1;
  if (!value || colon <= 0) return undefined;
  const kind = value.slice(0, colon);
  const name = value.slice(colon + 1);
  if ((kind !== "User" && kind !== "Team" && kind !== "Subject") || !name) return undefined;
  return { kind, name };
}
