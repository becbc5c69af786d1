/**
 * Template version names and which one "latest" means. A version is `v` (optional) and one to
 * three dot-separated whole numbers (`1`, `1.2`, `v1.2.3`): numbers order them without a
 * semantic-versioning library, and `1.2` is the same version as `1.2.0`.
 */
export const VERSION_PATTERN = /^v?(0|[1-9][0-9]*)(\.(0|[1-9][0-9]*)){0,2}$/;

/** What `templateRef.version` says (or leaving it out) to follow the newest version. */
export const LATEST = "latest";

/** The numbers of a version (three, zeros filled in); undefined when it is no version. */
function partsOf(version: string): number[] | undefined {
  if (!VERSION_PATTERN.test(version)) return undefined;
  const parts = version.replace(/^v/, "").split(".").map(Number);
  // Numbers this long lose precision: refuse them rather than order them wrongly.
  if (!parts.every(Number.isSafeInteger)) return undefined;
  while (parts.length < 3) parts.push(0);
  return parts;
}

export function isVersion(version: string): boolean {
  return partsOf(version) !== undefined;
}

/** Negative when `a` is older than `b`, 0 when they are the same version, positive when newer. */
export function compareVersions(a: string, b: string): number {
  const pa = partsOf(a) ?? [];
  const pb = partsOf(b) ?? [];
  for (let i = 0; i < 3; i++) {
    const d = (pa[i] ?? -1) - (pb[i] ?? -1);
    if (d !== 0) return d;
  }
  return 0;
}

/** The newest of `versions` (undefined for none). */
export function latestVersion<V extends { version: string }>(versions: readonly V[]): V | undefined {
  let newest: V | undefined;
  for (const v of versions) if (!newest || compareVersions(v.version, newest.version) > 0) newest = v;
  return newest;
}

/** The version `wanted` names (absent or `latest`: the newest); `1.2` finds `1.2.0`. */
export function findVersion<V extends { version: string }>(versions: readonly V[], wanted?: string): V | undefined {
  if (wanted === undefined || wanted === "" || wanted === LATEST) return latestVersion(versions);
  if (!isVersion(wanted)) return undefined;
  return versions.find((v) => isVersion(v.version) && compareVersions(v.version, wanted) === 0);
}
