import type { RequestAttributes } from "../authz/contract.js";
import { isSelfReview } from "../authz/scope.js";

/**
 * What a space's gateway path (`/kubernetes/project/{project}/space/{name}/...`) forwards to
 * the space's cluster: requests inside the space's namespace, a read of that namespace object,
 * discovery and `/version`, the OpenAPI documents clients validate with, and the self reviews.
 * Everything else, cluster-scoped resources and other namespaces above all, is refused before
 * the cluster sees it: `use` on a SpaceInstance is no licence for the rest of its cluster, even
 * for a caller whose impersonated name could do more there.
 *
 * Returns why a request is refused, or undefined when it stays inside the space.
 */
export function outsideSpace(a: RequestAttributes, namespace: string): string | undefined {
  if (!a.resourceRequest) {
    return isSchemaRead(a) ? undefined : `the path ${JSON.stringify(a.path ?? "")} is not part of the space`;
  }
  if (isSelfReview(a)) return undefined;
  if (a.apiGroup === "" && a.resource === "namespaces") {
    const ownRead = a.verb === "get" && a.name === namespace && !a.subresource;
    return ownRead ? undefined : `only get of the space's own namespace "${namespace}" is allowed`;
  }
  if (a.namespace === namespace) return undefined;
  return a.namespace
    ? `the namespace "${a.namespace}" is not the space's namespace "${namespace}"`
    : `cluster-wide requests (${a.resource}) are not part of the space "${namespace}"`;
}

/**
 * Reading what a client needs to talk at all: `/api`, `/apis`, a group or group version below
 * them (any longer path is a resource, kube-request.ts), `/version`, and the OpenAPI documents
 * kubectl validates objects against. None of it holds a cluster's objects.
 */
function isSchemaRead(a: RequestAttributes): boolean {
  if (a.verb !== "get") return false;
  const path = a.path ?? "";
  return (
    SCHEMA_PATHS.has(path) || path.startsWith("/api/") || path.startsWith("/apis/") || path.startsWith("/openapi/v3/")
  );
}
const SCHEMA_PATHS = new Set(["/api", "/apis", "/version", "/openapi/v2", "/openapi/v3"]);
