import { queryAsksWatch, requestVerb } from "../api/request-verb.js";
import type { RequestAttributes } from "../authz/contract.js";

/**
 * The authorizer attributes of a request to a Kubernetes API server, from its method and path
 * alone (Kubernetes' RequestInfoFactory): what a scope's rules are matched against.
 */
export function kubeRequestAttributes(method: string, pathAndQuery: string): RequestAttributes {
  const [path = "/", query = ""] = pathAndQuery.split("?");
  const parts = path.split("/").filter(Boolean).map(safeDecode);
  const base = { apiGroup: "", resource: "", subresource: "", namespace: "", name: "" };
  let rest: string[];
  let apiGroup = "";
  if (parts[0] === "api" && parts.length >= 2) rest = parts.slice(2);
  else if (parts[0] === "apis" && parts.length >= 3) {
    apiGroup = parts[1]!;
    rest = parts.slice(3);
  } else return { ...base, verb: method.toLowerCase(), path, resourceRequest: false };
  if (rest.length === 0) return { ...base, verb: method.toLowerCase(), path, resourceRequest: false };
  let namespace = "";
  if (rest[0] === "namespaces" && rest.length >= 3) {
    namespace = rest[1]!;
    rest = rest.slice(2);
  } else if (rest[0] === "namespaces" && rest.length === 2) {
    // The namespace object itself.
    namespace = rest[1]!;
  }
  const [resource = "", name = "", subresource = ""] = rest;
  const watch = queryAsksWatch(query);
  return {
    verb: requestVerb(method, !!name, watch),
    apiGroup,
    resource,
    subresource,
    namespace,
    name,
    resourceRequest: true,
  };
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
