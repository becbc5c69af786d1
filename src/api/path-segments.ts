/**
 * A request path's segments, percent-decoded once, each on its own: what every reader of a path
 * (the resource router, the audit log, the metrics labels, the cluster gateway) classifies, so
 * that `shared%73ecrets` is `sharedsecrets` to all of them, as it is to the router that serves
 * it. Splitting comes first, so an encoded slash (`%2F`) stays inside its segment.
 */

/** The decoded segment, or undefined when its percent-encoding does not decode (`%ZZ`, `%E0%A4%A`). */
export function decodeSegment(segment: string): string | undefined {
  // Only a `%` sequence decodes to something else (or fails): the usual segment is as it is.
  if (!segment.includes("%")) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/**
 * The segments of `path` (no query) split at `/` and decoded, a segment that does not decode
 * kept as it came (a request with one is refused by whoever serves it; a reader that only
 * describes it must not fail).
 */
export function describedSegments(path: string): string[] {
  const segments = path.split("/");
  for (let i = 0; i < segments.length; i++) segments[i] = decodeSegment(segments[i]!) ?? segments[i]!;
  return segments;
}
