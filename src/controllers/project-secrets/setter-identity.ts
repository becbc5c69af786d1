import { specOf } from "../../api/object.js";
import type { IdentityIndex } from "../../auth/identity-index.js";
import type { SourceSetter } from "../../kinds/project-secret/source-setter.js";
import type { UserSpec } from "../../kinds/user/user.js";
import type { UserInfo } from "../../registry/request-context.js";

/**
 * The identity of whoever set a ProjectSecret's source, as it stands now (its teams and groups
 * as the identity index holds them), without any key's scope: what the subject itself may do.
 * Undefined when the user or team is gone or the user is disabled: nobody vouches for the source.
 */
export function setterIdentity(
  identity: Pick<IdentityIndex, "user" | "team" | "teamsOfUser">,
  setter: SourceSetter,
): UserInfo | undefined {
  if (setter.kind === "User") {
    const user = identity.user(setter.name);
    if (!user || specOf<UserSpec>(user).disabled === true) return undefined;
    const groups = specOf<UserSpec>(user).groups ?? [];
    const teams = identity.teamsOfUser(setter.name, groups).map((t) => t.metadata.name ?? "");
    return { name: setter.name, subjectKind: "User", uid: user.metadata.uid, groups, teams };
  }
  if (setter.kind === "Team") {
    const team = identity.team(setter.name);
    if (!team) return undefined;
    return { name: setter.name, subjectKind: "Team", uid: team.metadata.uid, groups: [], teams: [] };
  }
  return { name: setter.name, subjectKind: "Subject", groups: [], teams: [] };
}
