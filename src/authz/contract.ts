import type { KubeObject } from "../api/object.js";
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
