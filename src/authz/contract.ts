import { GROUP, type KubeObject } from "../api/object.js";
import type { UserInfo } from "../registry/request-context.js";

/** What a request asks to do, as the authorizer sees it (Kubernetes' authorizer.Attributes). */
export interface RequestAttributes {
  verb: string;
  apiGroup: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  /** For non-resource requests (discovery, version): the URL path. */
  path?: string;
  resourceRequest: boolean;
  /** The object the request acts on, when the handler has read it (access[] rules live on it). */
  object?: KubeObject;
}

/** The attributes of a request to a path that is not a resource (`/version`, `/metrics`, …). */
export function nonResourceAttributes(verb: string, path: string): RequestAttributes {
  return { verb, apiGroup: "", resource: "", subresource: "", namespace: "", name: "", path, resourceRequest: false };
}

/**
 * The attributes of `verb` on an object of this group's `resource` (its `namespace`, "" or absent
 * when cluster-scoped, and `name`, absent for the resource as a whole), with the stored `object`
 * where the caller read it: what a check of a right outside the request's own asks (admission on
 * the objects a write names, who reads a secret's data).
 */
export function platformAttributes(
  verb: string,
  resource: string,
  target: { namespace?: string; name?: string; object?: KubeObject },
): RequestAttributes {
  return {
    verb,
    apiGroup: GROUP,
    resource,
    subresource: "",
    namespace: target.namespace ?? "",
    name: target.name ?? "",
    resourceRequest: true,
    ...("object" in target ? { object: target.object } : {}),
  };
}

export interface Decision {
  allowed: boolean;
  /** Why not, for the 403 message. */
  reason?: string;
}

/**
 * Decides whether a caller may do something. Authentication says who; this says what.
 * visibleTo returns the per-object filter lists and watches apply (undefined: see all).
 */
export interface Authorizer {
  authorize(user: UserInfo, attrs: RequestAttributes): Promise<Decision> | Decision;
  visibleTo?(user: UserInfo, attrs: RequestAttributes): ((obj: KubeObject) => boolean) | undefined;
  /** Whether the decision depends on the object (access rules), so handlers must read it first. */
  needsObject?(user: UserInfo, attrs: RequestAttributes): boolean;
}
