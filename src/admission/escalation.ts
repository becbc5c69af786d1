import { isDeepStrictEqual } from "node:util";
import { type ApiError, errors } from "../api/errors.js";
import { GROUP, type KubeObject } from "../api/object.js";
import type { IdentityIndex } from "../auth/identity-index.js";
import {
  ACCESS_RULE_RESOURCES,
  ACCESS_VERBS,
  ADMIN_ROLE,
  type PlatformAuthorizer,
  VIEW_ROLE,
} from "../authz/authorizer.js";
import type { RequestAttributes } from "../authz/contract.js";
import { isRestricting, type Scope, scopeWithin } from "../authz/scope.js";
import { type AdmissionAttributes, type AdmissionPlugin, isServerWrite } from "../registry/admission.js";
import type { UserInfo } from "../registry/request-context.js";

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
  ) {}

  validate(attrs: AdmissionAttributes): void {
    if (isServerWrite(attrs) || attrs.operation === "DELETE") return;
    const { user, object: obj, oldObject: old } = attrs;
    const resource = attrs.resourceType.plural;
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
    if (ACCESS_RULE_RESOURCES.has(resource) && !admin) {
      const base = withoutGrants(old ?? obj, old === undefined);
      const newRules = ((obj.spec?.access as unknown[]) ?? []).filter(
        (r) => !((old?.spec?.access as unknown[]) ?? []).some((o) => isDeepStrictEqual(o, r)),
      );
      for (const rule of newRules as Array<{ verbs?: string[] }>) {
        const verbs = (rule.verbs ?? []).includes("*") ? [...ACCESS_VERBS] : (rule.verbs ?? []);
        for (const verb of verbs) {
          if (!this.authz.decide(user, attrsOn(resource, base, verb)).allowed) throw deny(`access rule verb "${verb}"`);
        }
      }
      if (resource === "projects") {
        const newMembers = ((obj.spec?.members as unknown[]) ?? []).filter(
          (m) => !((old?.spec?.members as unknown[]) ?? []).some((o) => isDeepStrictEqual(o, m)),
        );
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
        if (isRestricting(callerScope) && !scopeWithin(s.scope as Scope | undefined, callerScope)) {
          throw deny("a key scope wider than the caller's own");
        }
      }
    }
    if (resource === "directclusterendpointtokens") {
      if (isRestricting(callerScope) && !scopeWithin(obj.spec?.scope as Scope | undefined, callerScope)) {
        throw deny("a token scope wider than the caller's own");
      }
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
  return ((obj?.spec?.clusterRoles as Array<{ name?: string }> | undefined) ?? []).map((r) => r?.name ?? "");
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
  return {
    verb,
    apiGroup: GROUP,
    resource,
    subresource: "",
    namespace: obj.metadata.namespace ?? "",
    name: obj.metadata.name ?? "",
    resourceRequest: true,
    object: obj,
  };
}

function forbiddenGrant(resource: string, obj: KubeObject, user: UserInfo, what: string): ApiError {
  return errors.forbidden(
    { group: GROUP, resource },
    obj.metadata.name ?? "",
    `User "${user.name}" cannot grant ${what}: it is more than the caller holds`,
  );
}
