/**
 * Kubernetes' anonymous user: who a request without credentials is on the paths anyone may read
 * (/version, the health probes: kube's system:public-info-viewer). Everywhere else a request
 * without credentials is refused with 401 before anything looks at it.
 */
import type { UserInfo } from "../registry/request-context.js";

export const ANONYMOUS_USER_NAME = "system:anonymous";
export const UNAUTHENTICATED_GROUP = "system:unauthenticated";

/** One shared, frozen identity: nothing adds to it (the authorizer caches roles by identity). */
export const ANONYMOUS_USER: UserInfo = Object.freeze({
  name: ANONYMOUS_USER_NAME,
  subjectKind: "Subject",
  groups: Object.freeze([UNAUTHENTICATED_GROUP]) as unknown as string[],
  teams: Object.freeze([]) as unknown as string[],
});

export function isAnonymous(user: UserInfo): boolean {
  return user.groups.includes(UNAUTHENTICATED_GROUP);
}
