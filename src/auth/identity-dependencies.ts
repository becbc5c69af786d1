import type { KubeObject } from "../api/object.js";
import type { UserInfo } from "../registry/request-context.js";
import { sameButSpecFields } from "./identity-changes.js";

/*
 * The names under which IdentityStamps (identity-stamps.ts) records what an identity is built
 * from (identity-changes.ts lists the fields), and which of them a change touches:
 *
 * - `key:HASH`    the access key stored with that hash (its spec, uid, expiry, existence);
 * - `user:NAME`   the User (its spec: disabled, groups, clusterRoles; uid; existence);
 * - `team:NAME`   the Team (its spec: clusterRoles, members; uid; existence);
 * - `member:NAME` whether some team names the user NAME in spec.users;
 * - `group:NAME`  whether some team names the group NAME in spec.groups.
 *
 * A User key's identity lists its teams: a team that starts or stops naming the user (or one of
 * its groups) touches `member:`/`group:`; any other change of a team it is in (cluster roles,
 * uid, deletion) touches `team:`.
 */

export const keyDependency = (hash: string): string => `key:${hash}`;
export const userDependency = (name: string): string => `user:${name}`;
export const teamDependency = (name: string): string => `team:${name}`;
const memberDependency = (name: string): string => `member:${name}`;
const groupDependency = (name: string): string => `group:${name}`;

/** What the roles of `user` (authorizer.ts) are built from: the clusterRoles of its user or team and of its teams. */
export function rolesDependencies(user: UserInfo): string[] {
  const names = user.teams.map(teamDependency);
  if (user.subjectKind === "User") names.push(userDependency(user.name));
  if (user.subjectKind === "Team") names.push(teamDependency(user.name));
  return names;
}

/** What the identity of the key stored with `hash` is built from, and the roles derived from it. */
export function identityDependencies(hash: string, user: UserInfo): string[] {
  const names = [keyDependency(hash), ...rolesDependencies(user)];
  if (user.subjectKind === "User") {
    names.push(memberDependency(user.name));
    for (const g of user.groups) names.push(groupDependency(g));
  }
  return names;
}

/**
 * What a team change touches (before and now undefined for a new or deleted team): every user and
 * group it starts or stops naming; and the team itself (its team keys' identities, the roles of
 * every member) when it existed before, unless only its member lists changed. A user may be named
 * by several teams: only this one's naming of it changed, and members named before and now keep
 * it in their teams.
 */
export function teamChangeDependencies(before?: KubeObject, now?: KubeObject): string[] {
  const names: string[] = [];
  const team = (now ?? before)?.metadata.name;
  if (team === undefined) throw new Error("a team without a name"); // fail closed
  // No identity or role set names a team that did not exist: a new team touches only whom it names.
  if (before && (!now || !onlyMembersChanged(before, now))) names.push(teamDependency(team));
  const changed = (field: "users" | "groups", dependency: (n: string) => string) => {
    const was = new Set(stringList(before?.spec?.[field]));
    const is = new Set(stringList(now?.spec?.[field]));
    for (const n of was) if (!is.has(n)) names.push(dependency(n));
    for (const n of is) if (!was.has(n)) names.push(dependency(n));
  };
  changed("users", memberDependency);
  changed("groups", groupDependency);
  return names;
}

/** Whether two versions of a team differ at most in spec.users and spec.groups. */
function onlyMembersChanged(before: KubeObject, now: KubeObject): boolean {
  return sameButSpecFields(before, now, ["users", "groups"]);
}

/** The strings of a list field (spec.users, spec.groups); anything else counts as empty. */
export function stringList(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}
