import { GROUP, VERSION } from "../api/object.js";
import { describeRequest } from "../api/request-description.js";

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

/** Subresource names as a label: short lower-case words, anything else counted as "other". */
const SUBRESOURCE = /^[a-z]{1,40}$/;

/**
 * The labels of a request, from its method, URL and content type. `known` says whether a
 * resource name is served: a path naming anything else is labelled without a resource, so that
 * no caller can make up label values (every new value is a new series kept in memory).
 */
export function requestLabels(
  method: string,
  url: string,
  contentType: string | undefined,
  known: (resource: string) => boolean,
): RequestLabels {
  const d = describeRequest(method, url);
  const resourceRequest = d.resource !== "" && !d.resource.startsWith("/") && known(d.resource);
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
    subresource: d.subresource === undefined ? "" : SUBRESOURCE.test(d.subresource) ? d.subresource : "other",
    scope: scopeOf(!!d.name, d.namespace !== undefined),
    component: "apiserver",
  };
}

/** kube-apiserver's scope label: one object, one namespace, or the whole cluster. */
export function scopeOf(named: boolean, namespaced: boolean): string {
  return named ? "resource" : namespaced ? "namespace" : "cluster";
}
