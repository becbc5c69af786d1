import type { UserInfo } from "./request-context.js";

/** Who an upstream cluster should take the request to be (Impersonate-User/-Group); absent when a client certificate says it. */
export interface Impersonation {
  user: string;
  groups: readonly string[];
}

/** The group every team of a user is impersonated as: `platform:team:<team>`. */
const TEAM_GROUP_PREFIX = "platform:team:";

/**
 * The Impersonate-* identity of a platform caller on a connected cluster: the user name with its
 * groups and one `platform:team:<team>` group per team; a team key acts as user `platform:team:<team>`.
 */
export function impersonationOf(user: Pick<UserInfo, "name" | "subjectKind" | "groups" | "teams">): Impersonation {
  if (user.subjectKind === "Team") return { user: `${TEAM_GROUP_PREFIX}${user.name}`, groups: [] };
  return { user: user.name, groups: [...user.groups, ...user.teams.map((t) => `${TEAM_GROUP_PREFIX}${t}`)] };
}
