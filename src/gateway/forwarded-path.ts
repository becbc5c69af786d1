import { errors } from "../api/errors.js";
import { decodeSegment } from "../api/path-segments.js";

/**
 * The path a gateway (or the agent) forwards, read once before any decision: its segments
 * decoded (what kube-apiserver's request info classifies: Go hands it the decoded path) and the
 * raw form that is sent on unchanged.
 *
 * A path that more than one reader could split differently is refused rather than classified:
 * an encoded slash (`/api%2Fv1/...`: one segment here, two once kube-apiserver decodes it), a
 * `.` or `..` segment (which a proxy between us and the API server may resolve), an empty
 * segment (`//`: kube keeps it, a proxy may merge it), a fragment mark, a segment that does not
 * decode, anything but an absolute path. Classifying "exactly as kube-apiserver does" would
 * not be enough: the upstream may be a virtual cluster's proxy, an ingress or another gateway,
 * each with its own reading. No Kubernetes client sends such paths (object names cannot hold
 * `/`, and `.`/`..` are not valid names), so refusing costs nothing and every hop agrees on
 * what a forwarded path addresses.
 */
export interface ForwardedPath {
  /** The path and query as the client sent them (what goes upstream). */
  readonly pathAndQuery: string;
  /** The path's segments, decoded, without the leading slash (and the trailing one). */
  readonly segments: readonly string[];
  /** The decoded path (`/` and the segments, with the trailing slash if sent): what nonResourceURLs match. */
  readonly path: string;
  /** The raw query, without `?`. */
  readonly query: string;
}

/** Reads a forwarded path; a path that is not in canonical form (see above) is 400. */
export function parseForwardedPath(pathAndQuery: string): ForwardedPath {
  const q = pathAndQuery.indexOf("?");
  const rawPath = q < 0 ? pathAndQuery : pathAndQuery.slice(0, q);
  const query = q < 0 ? "" : pathAndQuery.slice(q + 1);
  if (!rawPath.startsWith("/")) throw refused(rawPath, "it is not an absolute path");
  if (rawPath.includes("#")) throw refused(rawPath, "it holds a fragment mark");
  if (rawPath.includes("//")) throw refused(rawPath, "it holds an empty segment");
  const trailingSlash = rawPath.length > 1 && rawPath.endsWith("/");
  const inner = rawPath.slice(1, trailingSlash ? -1 : undefined);
  const segments = inner === "" ? [] : inner.split("/");
  for (let i = 0; i < segments.length; i++) segments[i] = canonicalSegment(rawPath, segments[i]!);
  const path = `/${segments.join("/")}${trailingSlash ? "/" : ""}`;
  return { pathAndQuery, segments, path, query };
}

function canonicalSegment(rawPath: string, raw: string): string {
  const decoded = decodeSegment(raw);
  if (decoded === undefined)
    throw refused(rawPath, `the segment ${JSON.stringify(raw)} holds a malformed percent-encoding`);
  if (decoded === "") throw refused(rawPath, "it holds an empty segment");
  if (decoded === "." || decoded === "..") throw refused(rawPath, "it holds a . or .. segment");
  if (decoded.includes("/")) throw refused(rawPath, "it holds an encoded slash (%2F)");
  return decoded;
}

function refused(rawPath: string, why: string) {
  return errors.badRequest(`the forwarded path ${JSON.stringify(rawPath)} is not accepted: ${why}`);
}
