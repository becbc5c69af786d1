import { queryAsksWatch, requestVerb } from "../api/request-verb.js";
import type { RequestAttributes } from "../authz/contract.js";
import type { ForwardedPath } from "./forwarded-path.js";

/** Path segments that are the verb (kube's specialVerbs). */
const SPECIAL_VERBS = new Set(["watch", "proxy"]);
/** kube's namespaceSubresources: `namespaces/{ns}/status` is the namespace's status, not a resource "status". */
const NAMESPACE_SUBRESOURCES = new Set(["status", "finalize"]);

/**
 * The authorizer attributes of a request to a Kubernetes API server, from its method and path
 * alone (Kubernetes' RequestInfoFactory, on the decoded segments of forwarded-path.ts): what a
 * scope's rules are matched against.
 */
export function kubeRequestAttributes(method: string, forwarded: ForwardedPath): RequestAttributes {
  const parts = forwarded.segments;
  const base = { apiGroup: "", resource: "", subresource: "", namespace: "", name: "" };
  const nonResource = { ...base, verb: method.toLowerCase(), path: forwarded.path, resourceRequest: false };
  let rest: readonly string[];
  let apiGroup = "";
  if (parts[0] === "api" && parts.length >= 2) rest = parts.slice(2);
  else if (parts[0] === "apis" && parts.length >= 3) {
    apiGroup = parts[1]!;
    rest = parts.slice(3);
  } else return nonResource;
  if (rest.length === 0) return nonResource;
  // `/api/v1/watch/...` and `/api/v1/proxy/...`: the verb is the segment, whatever the method.
  const special = SPECIAL_VERBS.has(rest[0]!) ? rest[0]! : undefined;
  if (special) rest = rest.slice(1);
  let namespace = "";
  if (rest[0] === "namespaces" && rest.length >= 2) {
    namespace = rest[1]!;
    // A namespace's own subresources (status, finalize) are the namespace's; any other step is a resource in it.
    if (rest.length >= 3 && !NAMESPACE_SUBRESOURCES.has(rest[2]!)) rest = rest.slice(2);
  }
  const [resource = "", name = "", subresource = ""] = rest;
  const verb = special ?? requestVerb(method, !!name, queryAsksWatch(forwarded.query));
  return {
    verb,
    apiGroup,
    resource,
    subresource: special === "proxy" ? "" : subresource,
    namespace,
    name,
    resourceRequest: true,
  };
}
