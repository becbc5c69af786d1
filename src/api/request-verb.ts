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

/**
 * Whether a raw query string asks for a watch, read as kube-apiserver reads boolean parameters:
 * only `0` and `false` (any case) are false; any other value, the empty string included, is true.
 * The Python client sends `watch=True`; a reader that knew only `true`/`1` called that a list.
 * A repeated `watch` counts by its first value, as kube-apiserver reads it: a gateway that read
 * another one than the connected cluster does could call a watch a list and check the wrong verb.
 */
export function queryAsksWatch(query: string): boolean {
  // Most requests have no query at all (metrics and audit ask about every one).
  if (query === "") return false;
  const v = new URLSearchParams(query).get("watch");
  return v !== null && kubeBool(v);
}

/** A boolean query value as kube-apiserver converts it: only `0` and `false` (any case) are false. */
export function kubeBool(value: string): boolean {
  return !(value === "0" || value.toLowerCase() === "false");
}
