import type { KubeObject } from "../api/types";

/** Reads a dotted path (`spec.config.secretName`). */
export function getPath(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const part of path.split(".")) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/** Writes a dotted path in a copy; an empty value removes the field. */
export function setPath(obj: KubeObject, path: string, value: unknown): KubeObject {
  const copy = structuredClone(obj);
  const parts = path.split(".");
  let cur = copy as unknown as Record<string, unknown>;
  for (const part of parts.slice(0, -1)) {
    if (cur[part] === null || typeof cur[part] !== "object") cur[part] = {};
    cur = cur[part] as Record<string, unknown>;
  }
  const last = parts[parts.length - 1]!;
  const empty = value === undefined || value === "" || (Array.isArray(value) && value.length === 0);
  if (empty) delete cur[last];
  else cur[last] = value;
  return copy;
}

/** `a=b, c=d` ⇄ labels. */
export function parseLabels(text: string): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const part of text.split(/[,\n]/)) {
    const t = part.trim();
    if (!t) continue;
    const eq = t.indexOf("=");
    out[eq < 0 ? t : t.slice(0, eq).trim()] = eq < 0 ? "" : t.slice(eq + 1).trim();
  }
  return Object.keys(out).length ? out : undefined;
}

export function formatLabels(labels: Record<string, string> | undefined): string {
  return Object.entries(labels ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join(", ");
}

/** An annotation's value (keys hold dots and slashes, so they are no dotted path). */
export function getAnnotation(obj: KubeObject, key: string): string | undefined {
  return obj.metadata.annotations?.[key];
}

/** Sets (or, when empty, removes) an annotation in a copy. */
export function setAnnotation(obj: KubeObject, key: string, value: unknown): KubeObject {
  const annotations = { ...(obj.metadata.annotations ?? {}) };
  if (value === undefined || value === "") delete annotations[key];
  else annotations[key] = String(value);
  const metadata: KubeObject["metadata"] = { ...obj.metadata, annotations };
  if (Object.keys(annotations).length === 0) delete metadata.annotations;
  return { ...obj, metadata };
}
