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

/**
 * What the server serves, the only values a resource or subresource label may take: every new
 * label value is a new series kept in memory for the life of the process, so none may come
 * from what a caller makes up.
 */
export interface ServedResources {
  /** Whether the management group serves this plural. */
  resource(plural: string): boolean;
  /** Whether it serves this subresource of it (status, or a custom one such as kubeconfig). */
  subresource(plural: string, subresource: string): boolean;
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

/**
 * kube-apiserver's valid request methods (its metrics' cleanVerb), with HEAD and OPTIONS, which
 * reach this server's non-resource paths; any other method is counted as "other".
 */
const LABELLED_VERBS = new Set([
  ...Object.values(METRIC_VERBS),
  "APPLY",
  "CONNECT",
  "HEAD",
  "OPTIONS",
  "POST",
  "PROXY",
  "PUT",
]);

/** The label of a subresource nobody serves, and of a method outside LABELLED_VERBS. */
export const OTHER = "other";

/**
 * The labels of a request, from its method, URL and content type. A path naming a resource
 * the server does not serve is labelled without a resource, and an unserved subresource of a
 * served one as "other", so that no caller can make up label values.
 */
export function requestLabels(
  method: string,
  url: string,
  contentType: string | undefined,
  served: ServedResources,
): RequestLabels {
  const d = describeRequest(method, url);
  const resourceRequest = d.resource !== "" && !d.resource.startsWith("/") && served.resource(d.resource);
  let verb = METRIC_VERBS[d.verb] ?? method.toUpperCase();
  if (verb === "PATCH" && contentType?.startsWith("application/apply-patch")) verb = "APPLY";
  if (!LABELLED_VERBS.has(verb)) verb = OTHER;
  if (!resourceRequest) return refusedRequestLabels(verb);
  const sub = d.subresource;
  return {
    verb,
    group: GROUP,
    version: VERSION,
    resource: d.resource,
    subresource: sub === undefined ? "" : served.subresource(d.resource, sub) ? sub : OTHER,
    scope: scopeOf(!!d.name, d.namespace !== undefined),
    component: "apiserver",
  };
}

/**
 * The labels of a request answered 401 or 429, and of any path that is no served resource: the
 * verb alone. Who was refused before authenticating chose the rest of the request freely.
 */
export function refusedRequestLabels(verb: string): RequestLabels {
  return { verb, group: "", version: "", resource: "", subresource: "", scope: "", component: "apiserver" };
}

/** kube-apiserver's scope label: one object, one namespace, or the whole cluster. */
export function scopeOf(named: boolean, namespaced: boolean): string {
  return named ? "resource" : namespaced ? "namespace" : "cluster";
}
