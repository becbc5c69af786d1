import type { UserInfo } from "../registry/request-context.js";
import type { Impersonation } from "./forward.js";

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
