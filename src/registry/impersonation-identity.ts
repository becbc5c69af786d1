import type { UserInfo } from "./request-context.js";

/** Who an upstream cluster should take the request to be (Impersonate-User/-Group); absent when a client certificate says it. */
export interface Impersonation {
  user: string;
  groups: readonly string[];
}

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
