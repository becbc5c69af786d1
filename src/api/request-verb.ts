/**
 * The Kubernetes verb of an HTTP request to a resource path, as kube-apiserver's RequestInfo
 * names it: GET/HEAD is get, list or (with watch=true) watch; DELETE of a collection is
 * deletecollection. Shared by the audit log and the cluster gateway, which both read paths
 * they do not route.
 */
export function requestVerb(method: string, named: boolean, watch: boolean): string {
  switch (method) {
    case "GET":
    case "HEAD":
      return watch ? "watch" : named ? "get" : "list";
    case "POST":
      return "create";
    case "PUT":
      return "update";
    case "PATCH":
      return "patch";
    case "DELETE":
      return named ? "delete" : "deletecollection";
    default:
      return method.toLowerCase();
  }
}
