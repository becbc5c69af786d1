import { type KubeObject, specOf } from "../api/object.js";
import { ACCESS_RULE_VERBS, type AccessRule, type ClusterRoleRef } from "../api/schema/common.js";
import { isAnonymous, PUBLIC_PATHS } from "../auth/anonymous.js";
import { rolesDependencies } from "../auth/identity-dependencies.js";
import type { IdentityIndex } from "../auth/identity-index.js";
import { type ProjectSpec, projectOfNamespace } from "../kinds/project/project.js";
import type { SecretResource } from "../kinds/shared-secret/shared-secret.js";
import type { Informer } from "../registry/informer.js";
import type { UserInfo } from "../registry/request-context.js";
import type { ResourceType } from "../registry/resource-type.js";
import { type Authorizer, type Decision, platformAttributes, type RequestAttributes } from "./contract.js";
import { ADMIN_PATHS, VIEW_PATHS } from "./role-paths.js";
import { isRestricting, type Scope, scopeAllows } from "./scope.js";

export const ADMIN_ROLE = "platform-management-admin";
export const VIEW_ROLE = "platform-management-view";

/**
 * Setting where other users' traffic or tokens go on a Cluster or VirtualClusterInstance (its
 * endpoint annotations, a cluster's kubeconfig reference): more than `update`, asked by admission
 * (admission/endpoint-settings.ts). Admins hold it, an access rule grants it, and on an instance
 * a project member with `platform-management-admin`; a plain project member does not.
 */
export const ADMINISTER_VERB = "administer";
/**
 * Every verb an access rule can name: the schema's list (api/schema/common.ts) without `*`,
 * which stands for all of them.
 */
export const ACCESS_VERBS = ACCESS_RULE_VERBS.filter(
  (verb): verb is Exclude<(typeof ACCESS_RULE_VERBS)[number], "*"> => verb !== "*",
);
const READ_VERBS = new Set(["get", "list", "watch"]);
/**
 * KEP-3926's verb: removing an object whose stored value does not decode, without decoding it
 * (DeleteOptions.ignoreStoreReadErrorWithClusterBreakingPotential). Only the admin role holds
 * it: access rules and memberships do not grant it (their object may be the corrupt one).
 */
export const UNSAFE_DELETE_VERB = "unsafe-delete-ignore-read-errors";

/**
 * Non-resource paths for every authenticated caller, as kube's system:discovery, basic-user and
 * public-info-viewer roles give them: `get` only (a non-resource verb is the request's method,
 * so `POST /version` asks for `post`), and not the paths kept for a role.
 */
function nonResourceGrant(roles: ReadonlySet<string>, a: RequestAttributes, viewRole: boolean): boolean {
  const path = a.path ?? "";
  if (a.verb !== "get") return false;
  if (ADMIN_PATHS.has(path)) return false; // admins were allowed before this is asked
  if (VIEW_PATHS.has(path)) return viewRole && roles.has(VIEW_ROLE);
  return true;
}

/** What every authenticated caller may create: it only describes or narrows the caller. */
const SELF_CREATES = new Set([
  "selves",
  "selfsubjectaccessreviews",
  "selfsubjectrulesreviews",
  "selfsubjectreviews",
  "directclusterendpointtokens",
]);

interface CachedRoles {
  /** The identity index's stamps.now when they were collected, or last found unchanged. */
  stamp: number;
  readonly dependencies: readonly string[];
  readonly roles: ReadonlySet<string>;
}

const ALLOW: Decision = { allowed: true };
const EVENT_VERBS = new Set(["get", "list", "watch"]);
const DENY: Decision = { allowed: false };

/**
 * The one authorizer (docs/permissions.md): built-in roles through user and team clusterRoles,
 * access[] rules on the object, project membership, the self rules — then narrowed by the
 * credential's scope. Every decision here is synchronous over in-memory informers, so a
 * list can ask it once per object.
 */
export class PlatformAuthorizer implements Authorizer {
  /** Roles by identity, while none of the users and teams they come from changed since (identity-dependencies.ts). */
  private readonly roles = new WeakMap<UserInfo, CachedRoles>();
  /** The plurals of the kinds whose objects carry access[] rules (ResourceType.accessRules). */
  private readonly accessRuleResources: ReadonlySet<string>;
  /** The plurals of the kinds whose objects belong to a project (ResourceType.projectInstance, projectNamespaced). */
  private readonly projectResources: ReadonlySet<string>;

  constructor(
    private readonly identity: IdentityIndex,
    private readonly projects: Informer,
    /** The management group's registered kinds (kinds/index.ts). */
    kinds: readonly ResourceType[],
  ) {
    this.accessRuleResources = new Set(kinds.filter((k) => k.accessRules).map((k) => k.plural));
    this.projectResources = new Set(kinds.filter((k) => k.projectInstance || k.projectNamespaced).map((k) => k.plural));
  }

  authorize(user: UserInfo, attrs: RequestAttributes): Decision | Promise<Decision> {
    const first = this.decide(user, attrs);
    // Allowed is final: answered without a promise (every request asks).
    if (first.allowed) return first;
    return this.decideAfterSync(user, attrs);
  }

  /** A role, team or membership granted a moment ago may not be in the informers yet. */
  private async decideAfterSync(user: UserInfo, attrs: RequestAttributes): Promise<Decision> {
    await Promise.all([this.identity.sync(), this.projects.sync()]);
    return this.decide(user, attrs);
  }

  needsObject(_user: UserInfo, attrs: RequestAttributes): boolean {
    return !!attrs.name && (this.accessRuleResources.has(attrs.resource) || attrs.resource === "ownedaccesskeys");
  }

  visibleTo(user: UserInfo, attrs: RequestAttributes): ((obj: KubeObject) => boolean) | undefined {
    if (this.isAdmin(user) && !isRestricting(scopeOf(user))) return undefined;
    const verb = attrs.verb === "delete" ? "delete" : "get";
    return (obj) =>
      this.decide(user, {
        ...attrs,
        verb,
        subresource: "",
        name: obj.metadata.name ?? "",
        namespace: obj.metadata.namespace ?? "",
        object: obj,
      }).allowed;
  }

  decide(user: UserInfo, a: RequestAttributes): Decision {
    // A request without credentials (public paths only, auth/anonymous.ts): kube's public-info-viewer.
    if (isAnonymous(user))
      return !a.resourceRequest && a.verb === "get" && PUBLIC_PATHS.has(a.path ?? "") ? ALLOW : DENY;
    // Core Events (src/events): every caller reads them, a scoped key too, each Event then shown
    // only to who may get its object (that get within the scope); only the platform writes.
    if (a.resourceRequest && a.apiGroup === "" && a.resource === "events")
      return EVENT_VERBS.has(a.verb) ? ALLOW : DENY;
    // Core Namespaces (server/namespaces.ts): read by every caller, each shown only where the
    // caller can read something; nobody writes them (they follow the projects).
    if (a.resourceRequest && a.apiGroup === "" && a.resource === "namespaces")
      return EVENT_VERBS.has(a.verb) ? ALLOW : DENY;
    const scope = scopeOf(user);
    if (isRestricting(scope) && !scopeAllows(scope, user, a)) return DENY;
    return this.grants(user, a, true) ? ALLOW : DENY;
  }

  /** Built-in roles reached through the user's (or team's) clusterRoles and the teams of the user. */
  rolesOf(user: UserInfo): ReadonlySet<string> {
    // Authentication hands out one shared identity per key, so this is asked once per change.
    const known = this.roles.get(user);
    if (known && this.identity.unchangedSince(known.dependencies, known.stamp)) {
      known.stamp = this.identity.stamps.now;
      return known.roles;
    }
    const stamp = this.identity.stamps.now;
    const roles = this.collectRoles(user);
    this.roles.set(user, { stamp, dependencies: rolesDependencies(user), roles });
    return roles;
  }

  private collectRoles(user: UserInfo): Set<string> {
    const roles = new Set<string>();
    if (user.credential?.type === "Internal") roles.add(ADMIN_ROLE);
    const add = (obj: KubeObject | undefined) => {
      for (const r of specOf<{ clusterRoles: ClusterRoleRef[] }>(obj).clusterRoles ?? []) {
        if (r?.name) roles.add(r.name);
      }
    };
    if (user.subjectKind === "User") add(this.identity.user(user.name));
    if (user.subjectKind === "Team") add(this.identity.team(user.name));
    for (const t of user.teams) add(this.identity.team(t));
    return roles;
  }

  isAdmin(user: UserInfo): boolean {
    return this.rolesOf(user).has(ADMIN_ROLE);
  }

  /**
   * Whether a SharedSecret's or ProjectSecret's data may be shown: admins, and whoever reads it
   * through an access rule or (a ProjectSecret) a project membership other than view. The view
   * role alone, global or in the project, reads the object without its data.
   */
  canReadSecretData(user: UserInfo, obj: KubeObject, resource: SecretResource = "sharedsecrets"): boolean {
    const a = platformAttributes("get", resource, {
      namespace: obj.metadata.namespace,
      name: obj.metadata.name,
      object: obj,
    });
    const scope = scopeOf(user);
    if (isRestricting(scope) && !scopeAllows(scope, user, a)) return false;
    return this.grants(user, a, false);
  }

  /** The unscoped grant. `viewRole: false` leaves the view role out (for data visibility). */
  private grants(user: UserInfo, a: RequestAttributes, viewRole: boolean): boolean {
    const roles = this.rolesOf(user);
    if (roles.has(ADMIN_ROLE)) return true;
    if (a.verb === UNSAFE_DELETE_VERB) return false;
    // Discovery, version, openapi: `get` for every authenticated caller; /metrics: the view role too; backups: admins.
    if (!a.resourceRequest) return nonResourceGrant(roles, a, viewRole);
    if (
      viewRole &&
      roles.has(VIEW_ROLE) &&
      READ_VERBS.has(a.verb) &&
      a.resource !== "ownedaccesskeys" &&
      a.subresource !== "accesskeys"
    )
      return true;
    if (SELF_CREATES.has(a.resource)) return a.verb === "create";
    if (this.selfRule(user, a)) return true;
    // Lists and watches are answered for everyone and filtered to what the caller may get.
    if ((a.verb === "list" || a.verb === "watch") && !a.name && !a.subresource) return true;
    if (a.object && this.accessRuleResources.has(a.resource) && this.accessRuleGrants(user, a.object, a)) return true;
    if (a.object && a.resource === "spaceinstances" && ownsSpace(user, a.object)) return a.verb !== ADMINISTER_VERB;
    return this.membershipGrants(user, a, viewRole);
  }

  /** Own user, own teams, own keys (docs/permissions.md). */
  private selfRule(user: UserInfo, a: RequestAttributes): boolean {
    switch (a.resource) {
      case "users":
        return (
          user.subjectKind === "User" &&
          a.name === user.name &&
          a.verb === "get" &&
          (a.subresource === "" || a.subresource === "accesskeys")
        );
      case "teams":
        return (
          a.verb === "get" &&
          (a.subresource === "" || a.subresource === "accesskeys") &&
          (user.subjectKind === "Team" ? a.name === user.name : user.teams.includes(a.name))
        );
      case "ownedaccesskeys":
        if (a.verb === "create") return true; // whose key it may be is admission's question
        return !!a.object && ownsKey(user, a.object) && a.verb !== "deletecollection";
      default:
        return false;
    }
  }

  private accessRuleGrants(user: UserInfo, obj: KubeObject, a: RequestAttributes): boolean {
    const rules = specOf<{ access: AccessRule[] }>(obj).access ?? [];
    return rules.some((rule) => {
      const verbs = rule.verbs ?? [];
      if (!verbs.includes("*") && !verbs.includes(a.verb)) return false;
      if (a.subresource) {
        const subs = rule.subresources ?? [];
        if (!subs.includes("*") && !subs.includes(a.subresource)) return false;
      }
      return ruleNamesCaller(rule, user);
    });
  }

  /**
   * Project members read their project and manage the instances and project secrets in its
   * namespace; a member with `platform-management-admin` also manages the project and
   * administers its instances, one with `-view` only reads (and, `viewRole: false`, not even
   * that: a project secret's data is not for viewers).
   */
  private membershipGrants(user: UserInfo, a: RequestAttributes, viewRole: boolean): boolean {
    let projectName: string | undefined;
    let onProject = false;
    if (a.resource === "projects" && a.name) {
      projectName = a.name;
      onProject = true;
    } else if (this.projectResources.has(a.resource)) {
      projectName = projectOfNamespace(a.namespace);
    }
    if (!projectName) return false;
    const project = (onProject && a.object) || this.projects.get(undefined, projectName);
    const role = memberRole(user, project);
    if (role === undefined) return false;
    if (role === ADMIN_ROLE) return true;
    if (role === VIEW_ROLE) return viewRole && READ_VERBS.has(a.verb);
    if (onProject) return READ_VERBS.has(a.verb);
    return a.verb !== ADMINISTER_VERB;
  }
}

function scopeOf(user: UserInfo): Scope | undefined {
  return user.credential?.scope as Scope | undefined;
}

function ownsKey(user: UserInfo, key: KubeObject): boolean {
  const s = key.spec ?? {};
  if (user.subjectKind === "User") return s.user === user.name;
  if (user.subjectKind === "Team") return s.team === user.name;
  return !!s.subject && s.subject === user.name;
}

/**
 * A space's owner (the user, a member of the team, the team's own key) reads, changes, deletes
 * and uses it (docs/spaces.md); administering it is for admins and access rules.
 */
export function ownsSpace(user: UserInfo, space: KubeObject): boolean {
  const owner = specOf<{ owner: { user?: string; team?: string } }>(space).owner;
  if (owner?.user && user.subjectKind === "User") return owner.user === user.name;
  if (!owner?.team) return false;
  return user.subjectKind === "Team" ? owner.team === user.name : user.teams.includes(owner.team);
}

export function ruleNamesCaller(rule: AccessRule, user: UserInfo): boolean {
  const users = rule.users ?? [];
  if (users.includes("*")) return true;
  if (user.subjectKind === "User" && users.includes(user.name)) return true;
  const teams = rule.teams ?? [];
  if (user.subjectKind === "Team") return teams.includes(user.name);
  return user.teams.some((t) => teams.includes(t));
}

/** The strongest project role of the caller: "" (plain member), a built-in role, or undefined (no member). */
function memberRole(user: UserInfo, project: KubeObject | undefined): string | undefined {
  if (!project) return undefined;
  let best: string | undefined;
  for (const m of specOf<ProjectSpec>(project).members ?? []) {
    const hit =
      (m.kind === "User" && user.subjectKind === "User" && m.name === user.name) ||
      (m.kind === "Team" && (user.subjectKind === "Team" ? m.name === user.name : user.teams.includes(m.name ?? "")));
    if (!hit) continue;
    const role = m.clusterRole ?? "";
    if (role === ADMIN_ROLE) return ADMIN_ROLE;
    // A plain membership ("") outranks view; admin returned above.
    if (best === undefined || (best === VIEW_ROLE && role === "")) best = role;
  }
  return best;
}
