import { GROUP, VERSION } from "../api/object.js";
import { describeRequest } from "../audit/audit-log.js";

/** The labels kube-apiserver puts on a request's metrics (without code and dry_run). */
export interface RequestLabels {
  verb: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  scope: string;
  component: string;
}

/** kube-apiserver's metric verbs: HTTP-ish and upper case, LIST and WATCH told apart from GET. */
const METRIC_VERBS: Record<string, string> = {
  get: "GET",
  list: "LIST",
  watch: "WATCH",
  create: "POST",
  update: "PUT",
  patch: "PATCH",
  delete: "DELETE",
  deletecollection: "DELETECOLLECTION",
};

/** The labels of a request, from its method, URL and content type alone. */
export function requestLabels(method: string, url: string, contentType?: string): RequestLabels {
  const d = describeRequest(method, url);
  const resourceRequest = d.resource !== "" && !d.resource.startsWith("/");
  let verb = METRIC_VERBS[d.verb] ?? method.toUpperCase();
  if (verb === "PATCH" && contentType?.startsWith("application/apply-patch")) verb = "APPLY";
  if (!resourceRequest) {
    return { verb, group: "", version: "", resource: "", subresource: "", scope: "", component: "apiserver" };
  }
  return {
    verb,
    group: GROUP,
    version: VERSION,
    resource: d.resource,
    subresource: d.subresource ?? "",
    scope: scopeOf(!!d.name, d.namespace !== undefined),
    component: "apiserver",
  };
}

/** kube-apiserver's scope label: one object, one namespace, or the whole cluster. */
export function scopeOf(named: boolean, namespaced: boolean): string {
  return named ? "resource" : namespaced ? "namespace" : "cluster";
}
