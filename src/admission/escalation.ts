import { isDeepStrictEqual } from "node:util";
import { type ApiError, errors } from "../api/errors.js";
import { GROUP, type KubeObject, specOf } from "../api/object.js";
import type { AccessRule, ClusterRoleRef } from "../api/schema/common.js";
import type { IdentityIndex } from "../auth/identity-index.js";
import { ACCESS_VERBS, ADMIN_ROLE, type PlatformAuthorizer, VIEW_ROLE } from "../authz/authorizer.js";
import { platformAttributes, type RequestAttributes } from "../authz/contract.js";
import { isRestricting, type Scope, scopeWithin } from "../authz/scope.js";
import type { ProjectSpec } from "../kinds/project/project.js";
import { type AdmissionAttributes, type AdmissionPlugin, isServerWrite } from "../registry/admission.js";
import type { UserInfo } from "../registry/request-context.js";
import type { ObjectReader } from "./references.js";
import { platformPlural } from "./resource-match.js";

/**
 * No escalation (docs/permissions.md): nobody gives anyone — themselves included — a
 * clusterRole, an access rule, a team or project membership, a key scope or key groups beyond
 * what they hold. A validating plugin: it sees the object as it will be stored.
 */
export class EscalationAdmission implements AdmissionPlugin {
  readonly name = "NoEscalation";

  constructor(
    private readonly authz: Pick<PlatformAuthorizer, "decide" | "isAdmin" | "rolesOf">,
    private readonly identity: Pick<IdentityIndex, "teamsOfUser">,
    /** Reads the clusters a direct token's scope names. */
    private readonly read: ObjectReader,
  ) {}

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (isServerWrite(attrs) || attrs.operation === "DELETE") return;
    // Every grant it checks is on one of this group's resources: a same-named one elsewhere is not.
    const resource = platformPlural(attrs);
    if (resource === undefined) return;
    const { user, object: obj, oldObject: old } = attrs;
    const admin = this.authz.isAdmin(user);
    const callerScope = user.credential?.scope as Scope | undefined;
    const deny = (what: string) => forbiddenGrant(resource, obj, user, what);

    if (resource === "users" || resource === "teams") {
      for (const role of added(roleNames(obj), roleNames(old))) {
        if (!this.holdsRole(user, role)) throw deny(`clusterRole "${role}"`);
      }
    }
    if (resource === "teams" && !admin) {
      const name = obj.metadata.name ?? "";
      const member = user.subjectKind === "Team" ? user.name === name : user.teams.includes(name);
      const membersChanged =
        added(strings(obj.spec?.users), strings(old?.spec?.users)).length > 0 ||
        added(strings(obj.spec?.groups), strings(old?.spec?.groups)).length > 0;
      if (membersChanged && !member) throw deny(`membership of team "${name}"`);
    }
    if (resource === "users" && !admin) {
      // Groups put users into teams: joining a team one is not in gives its rights.
      const name = obj.metadata.name ?? "";
      const before = new Set(this.identity.teamsOfUser(name, strings(old?.spec?.groups)).map((t) => t.metadata.name));
      for (const t of this.identity.teamsOfUser(name, strings(obj.spec?.groups))) {
        const tn = t.metadata.name ?? "";
        if (!before.has(tn) && !user.teams.includes(tn)) throw deny(`membership of team "${tn}"`);
      }
    }
    if (attrs.resourceType.accessRules && !admin) {
      const base = withoutGrants(old ?? obj, old === undefined);
      const rules = (o: KubeObject | undefined) => specOf<{ access: AccessRule[] }>(o).access ?? [];
      const newRules = rules(obj).filter((r) => !rules(old).some((o) => isDeepStrictEqual(o, r)));
      for (const rule of newRules) {
        const verbs = (rule.verbs ?? []).includes("*") ? [...ACCESS_VERBS] : (rule.verbs ?? []);
        for (const verb of verbs) {
          if (!this.authz.decide(user, attrsOn(resource, base, verb)).allowed) throw deny(`access rule verb "${verb}"`);
        }
      }
      if (resource === "projects") {
        const members = (o: KubeObject | undefined) => specOf<ProjectSpec>(o).members ?? [];
        const newMembers = members(obj).filter((m) => !members(old).some((o) => isDeepStrictEqual(o, m)));
        if (newMembers.length > 0) {
          // A member manages the project's instances: only who may do everything on the project adds one.
          for (const verb of ACCESS_VERBS) {
            if (!this.authz.decide(user, attrsOn(resource, base, verb)).allowed) throw deny("project membership");
          }
        }
      }
    }
    if (resource === "ownedaccesskeys") {
      const s = obj.spec ?? {};
      const subjectChanged =
        !old || s.user !== old.spec?.user || s.team !== old.spec?.team || s.subject !== old.spec?.subject;
      if (subjectChanged && !admin && !this.mayHoldKeyFor(user, s)) {
        throw deny(
          `an access key for ${s.user ? `user "${s.user}"` : s.team ? `team "${s.team}"` : `subject "${s.subject}"`}`,
        );
      }
      const newGroups = added(strings(s.groups), old ? strings(old.spec?.groups) : []);
      for (const g of newGroups) if (!admin && !user.groups.includes(g)) throw deny(`group "${g}"`);
      if (!old || !isDeepStrictEqual(s.scope, old.spec?.scope)) {
        if (isRestricting(callerScope) && !scopeWithin(specOf<{ scope: Scope }>(obj).scope, callerScope)) {
          throw deny("a key scope wider than the caller's own");
        }
      }
    }
    if (resource === "directclusterendpointtokens") {
      if (isRestricting(callerScope) && !scopeWithin(specOf<{ scope: Scope }>(obj).scope, callerScope)) {
        throw deny("a token scope wider than the caller's own");
      }
      await this.checkTokenClusters(user, obj, deny);
    }
  }

  /**
   * A token naming a cluster in its scope is what the agent beside that cluster accepts: it needs
   * `use` on the cluster (the agent cannot ask the platform's rules itself), `*` needs an admin.
   */
  private async checkTokenClusters(user: UserInfo, obj: KubeObject, deny: (what: string) => ApiError): Promise<void> {
    const rules = (specOf<{ scope: Scope }>(obj).scope?.rules ?? []).filter((r) => !!r.cluster);
    if (rules.length === 0) return;
    // The caller's scope was compared above; here the question is the grant itself.
    const unscoped: UserInfo = { ...user, credential: user.credential && { ...user.credential, scope: undefined } };
    for (const { cluster: name = "" } of rules) {
      if (name === "*") {
        if (!this.authz.isAdmin(user)) throw deny("a token for every cluster");
        continue;
      }
      const cluster = await this.read("clusters", undefined, name);
      const attrs = platformAttributes("use", "clusters", { name, object: cluster });
      if (!cluster || !this.authz.decide(unscoped, attrs).allowed) throw deny(`a token for cluster "${name}"`);
    }
  }

  private holdsRole(user: UserInfo, role: string): boolean {
    const roles = this.authz.rolesOf(user);
    if (roles.has(ADMIN_ROLE)) return !isRestricting(user.credential?.scope as Scope | undefined);
    return role === VIEW_ROLE && roles.has(VIEW_ROLE);
  }

  /** A user keeps keys for itself or a team it belongs to (a team key has only the team's rights); a team for itself. */
  private mayHoldKeyFor(user: UserInfo, s: Record<string, unknown>): boolean {
    if (user.subjectKind === "User") {
      if (s.user) return s.user === user.name;
      if (s.team) return user.teams.includes(String(s.team));
      return false;
    }
    if (user.subjectKind === "Team") return !!s.team && s.team === user.name;
    return !!s.subject && s.subject === user.name;
  }
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

function roleNames(obj: KubeObject | undefined): string[] {
  return (specOf<{ clusterRoles: ClusterRoleRef[] }>(obj).clusterRoles ?? []).map((r) => r?.name ?? "");
}

function added(now: string[], before: string[]): string[] {
  return now.filter((x) => !before.includes(x));
}

/** The object as it was before the change; for a create, without the rules and members it brings. */
function withoutGrants(obj: KubeObject, fresh: boolean): KubeObject {
  if (!fresh) return obj;
  const spec = { ...(obj.spec ?? {}) };
  delete spec.access;
  delete spec.members;
  return { ...obj, spec };
}

function attrsOn(resource: string, obj: KubeObject, verb: string): RequestAttributes {
  return platformAttributes(verb, resource, {
    namespace: obj.metadata.namespace,
    name: obj.metadata.name,
    object: obj,
  });
}

function forbiddenGrant(resource: string, obj: KubeObject, user: UserInfo, what: string): ApiError {
  return errors.forbidden(
    { group: GROUP, resource },
    obj.metadata.name ?? "",
    `User "${user.name}" cannot grant ${what}: it is more than the caller holds`,
  );
}
