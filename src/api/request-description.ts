/**
 * What a request asks for, read from its method and path alone, as kube-apiserver's RequestInfo
 * reads it: shared by the audit log and the request metrics, which both describe every request.
 */
import { API_PREFIX } from "./object.js";
import { describedSegments } from "./path-segments.js";
import { queryAsksWatch, requestVerb } from "./request-verb.js";

/** Kubernetes verb and object coordinates of a request. */
export interface RequestDescription {
  verb: string;
  /** Whether the path is under a group's version (`{prefix}/apis/<group>/<version>/...`). */
  resourceRequest: boolean;
  /** The resource; for any other path, the whole (decoded) path. */
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

/** `{prefix}/apis/<group>/<version>/`: the segments before a group's resources. */
const GROUP_SEGMENTS = [...API_PREFIX.split("/"), "apis"];

/**
 * Kubernetes verb and resource coordinates of a request, from its method and path alone, each
 * segment decoded as the router decodes it (path-segments.ts): `shared%73ecrets` is the
 * resource served, `sharedsecrets`, for the audit policy, the body guard and the metrics alike.
 */
export function describeRequest(method: string, url: string): RequestDescription {
  const q = url.indexOf("?");
  const path = q < 0 ? url : url.slice(0, q);
  const query = q < 0 ? "" : url.slice(q + 1);
  const segments = describedSegments(path);
  if (!isGroupPath(segments))
    return { verb: method.toLowerCase(), resourceRequest: false, resource: segments.join("/") };
  let parts = segments.slice(GROUP_SEGMENTS.length + 2).filter(Boolean);
  let namespace: string | undefined;
  if (parts[0] === "namespaces" && parts.length >= 3) {
    namespace = parts[1];
    parts = parts.slice(2);
  }
  const [resource = "", name, subresource] = parts;
  const watch = queryAsksWatch(query);
  return { verb: requestVerb(method, !!name, watch), resourceRequest: true, resource, subresource, namespace, name };
}

function isGroupPath(segments: readonly string[]): boolean {
  // The prefix, a group and a version, then at least the slash after the version.
  if (segments.length < GROUP_SEGMENTS.length + 3) return false;
  for (let i = 0; i < GROUP_SEGMENTS.length; i++) if (segments[i] !== GROUP_SEGMENTS[i]) return false;
  return segments[GROUP_SEGMENTS.length] !== "" && segments[GROUP_SEGMENTS.length + 1] !== "";
}
