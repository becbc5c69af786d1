/**
 * The JSON Merge Patch (RFC 7396) that turns `before` into `after`: only what changed is sent,
 * so a field the editor did not show (or the caller may not read) is never written back.
 * Arrays are replaced whole, as merge patches do; a removed key is `null`.
 */
export function mergePatch(before: unknown, after: unknown): Record<string, unknown> | undefined {
  if (!isPlainObject(before) || !isPlainObject(after)) return undefined;
  const patch: Record<string, unknown> = {};
  for (const key of Object.keys(before)) {
    if (!(key in after)) patch[key] = null;
  }
  for (const [key, value] of Object.entries(after)) {
    const old = before[key];
    if (isPlainObject(old) && isPlainObject(value)) {
      const inner = mergePatch(old, value);
      if (inner) patch[key] = inner;
    } else if (JSON.stringify(old) !== JSON.stringify(value)) {
      patch[key] = value === undefined ? null : value;
    }
  }
  return Object.keys(patch).length ? patch : undefined;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
