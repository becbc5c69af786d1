import { errors } from "../api/errors.js";
import { specOf } from "../api/object.js";
import type { IdentityIndex } from "../auth/identity-index.js";
import type { UserSpec } from "../kinds/user/user.js";
import type { UserInfo } from "../registry/request-context.js";
import type { PlatformAuthorizer } from "./authorizer.js";

function headerValues(v: string | string[] | undefined): string[] {
  const all = Array.isArray(v) ? v : v === undefined ? [] : [v];
  // Node joins repeated custom headers with ", ".
  return all
    .flatMap((x) => x.split(","))
    .map((x) => x.trim())
    .filter(Boolean);
}

/** Whether the request carries impersonation headers at all (most do not). */
export function asksToImpersonate(headers: Record<string, string | string[] | undefined>): boolean {
  return headers["impersonate-user"] !== undefined || headers["impersonate-group"] !== undefined;
}

/**
 * Kubernetes impersonation (Impersonate-User, Impersonate-Group): admins only, and never
 * through a scoped key. The request then runs as that user (its teams from the index), with
 * the impersonated groups when given, otherwise the user's own.
 */
export function impersonate(
  headers: Record<string, string | string[] | undefined>,
  caller: UserInfo,
  authz: PlatformAuthorizer,
  identity: IdentityIndex,
): UserInfo {
  if (!asksToImpersonate(headers)) return caller;
  const [target] = headerValues(headers["impersonate-user"]);
  const groups = headerValues(headers["impersonate-group"]);
  if (target === undefined && groups.length === 0) return caller;
  const scoped = !!caller.credential?.scope && Object.keys(caller.credential.scope).length > 0;
  if (!authz.isAdmin(caller) || scoped) {
    const what = target === undefined ? "groups" : "users";
    const name = target ?? groups[0] ?? "";
    throw errors.forbidden(
      { group: "", resource: what },
      name,
      `User "${caller.name}" cannot impersonate resource "${what}" in API group ""`,
    );
  }
  if (target === undefined) throw errors.badRequest("Impersonate-Group needs Impersonate-User");
  const user = identity.user(target);
  const effectiveGroups = groups.length > 0 ? groups : (specOf<UserSpec>(user).groups ?? []);
  return {
    name: target,
    subjectKind: "User",
    uid: user?.metadata.uid,
    groups: effectiveGroups,
    teams: identity.teamsOfUser(target, effectiveGroups).map((t) => t.metadata.name ?? ""),
    credential: { type: "AccessKey", name: caller.credential?.name, keyType: caller.credential?.keyType },
    impersonatedBy: caller.name,
  };
}
