/**
 * The non-resource paths kept for a role: every other path that is no resource (discovery,
 * /version, OpenAPI) is readable by every authenticated caller and allowed by every key scope.
 * These two serve the whole server's state, so a role must grant them (authorizer.ts) and a
 * scoped key must also name them in a `nonResourceURLs` rule (scope.ts).
 */
import { API_PREFIX } from "../api/object.js";

/** kube-apiserver gives /metrics to monitoring only: here the view role (and admins). */
export const VIEW_PATHS: ReadonlySet<string> = new Set(["/metrics"]);
/** The backup (src/backup/backup-route.ts): every stored object, for admins only. */
export const ADMIN_PATHS: ReadonlySet<string> = new Set([`${API_PREFIX}/backup`]);

/** Whether a role (not every caller) must grant `path`. */
export function isRolePath(path: string): boolean {
  return VIEW_PATHS.has(path) || ADMIN_PATHS.has(path);
}
