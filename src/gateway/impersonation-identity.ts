import type { UserInfo } from "../registry/request-context.js";
import type { Impersonation } from "./forward.js";

/** The group every team of a user is impersonated as: `platform:team:<team>`. */
const TEAM_GROUP_PREFIX = "platform:team:";

/**
 * A team's name on connected clusters: the group its members are impersonated in, and the user
 * its team keys act as (the cluster access controller binds both).
 */
export function teamIdentityOf(team: string): string {
  return `${TEAM_GROUP_PREFIX}${team}`;
}

/**
 * The Impersonate-* identity of a platform caller on a connected cluster: the user name with its
 * groups and one `platform:team:<team>` group per team; a team key acts as user `platform:team:<team>`.
 */
export function impersonationOf(user: Pick<UserInfo, "name" | "subjectKind" | "groups" | "teams">): Impersonation {
  if (user.subjectKind === "Team") return { user: teamIdentityOf(user.name), groups: [] };
  return { user: user.name, groups: [...user.groups, ...user.teams.map(teamIdentityOf)] };
}

/**
 * impersonationOf() made once per identity: authentication hands out one frozen identity per
 * key until something about it changes (then a new one), so this is computed once per change
 * and the forwarder can keep the header lines it builds from it (forward-http.ts).
 */
export function impersonationFor(user: UserInfo): Impersonation {
  let who = byIdentity.get(user);
  if (!who) {
    who = impersonationOf(user);
    byIdentity.set(user, who);
  }
  return who;
}
const byIdentity = new WeakMap<UserInfo, Impersonation>();
