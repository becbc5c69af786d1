/**
 * Kubernetes' anonymous user: who a request without credentials is on the paths anyone may read
 * (/version, the health probes: kube's system:public-info-viewer). Everywhere else a request
 * without credentials is refused with 401 before anything looks at it.
 */
import { API_PREFIX } from "../api/object.js";
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

/**
 * The paths anyone may `get` (kube's system:public-info-viewer: /version, /healthz, /livez,
 * /readyz), with this server's own version path and its token signing keys.
 */
export const PUBLIC_PATHS: ReadonlySet<string> = new Set([
  "/version",
  `${API_PREFIX}/version`,
  "/.well-known/jwks.json",
  "/healthz",
  "/livez",
  "/readyz",
]);

/** The anonymous caller itself, not a key whose groups happen to name system:unauthenticated. */
export function isAnonymous(user: UserInfo): boolean {
  return user === ANONYMOUS_USER;
}
