/**
 * What a request asks for, read from its method and path alone, as kube-apiserver's RequestInfo
 * reads it: shared by the audit log and the request metrics, which both describe every request.
 */
import { API_PREFIX } from "./object.js";
import { queryAsksWatch, requestVerb } from "./request-verb.js";

/** Kubernetes verb and object coordinates of a request. */
export interface RequestDescription {
  verb: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

/** A path under a group's version (`/apis/<group>/<version>/…`): a resource request. */
export const GROUP_RESOURCE_PATH = new RegExp(`^${API_PREFIX}/apis/[^/]+/[^/]+/(.*)$`);

/** Kubernetes verb and resource coordinates of a request, from its method and path alone. */
export function describeRequest(method: string, url: string): RequestDescription {
  const [path = "", query = ""] = url.split("?");
  const m = GROUP_RESOURCE_PATH.exec(path);
  if (!m) return { verb: method.toLowerCase(), resource: path };
  let parts = (m[1] ?? "").split("/").filter(Boolean);
  let namespace: string | undefined;
  if (parts[0] === "namespaces" && parts.length >= 3) {
    namespace = parts[1];
    parts = parts.slice(2);
  }
  const [resource = "", name, subresource] = parts;
  const watch = queryAsksWatch(query);
  return { verb: requestVerb(method, !!name, watch), resource, subresource, namespace, name };
}
