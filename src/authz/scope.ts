import { isDeepStrictEqual } from "node:util";
import type { Scope, ScopeRule } from "../api/schema/common.js";
import { projectOfNamespace } from "../kinds/project/project.js";
import type { RequestAttributes } from "./contract.js";
import { isRolePath } from "./role-paths.js";

/** A key's or token's scope (docs/permissions.md), as ScopeSchema admits it. */
export type { Scope, ScopeRule };

/** What the caller is, as far as the CLI exception needs to know. */
export interface ScopeSubject {
  name: string;
  subjectKind: string;
  teams: readonly string[];
}

/** A scope that names nothing does not narrow (as an absent one). */
export function isRestricting(scope: Scope | undefined): scope is Scope {
  if (!scope) return false;
  return (
    scope.allowPlatformCli === true ||
    (scope.projects?.length ?? 0) > 0 ||
    (scope.spaces?.length ?? 0) > 0 ||
    (scope.virtualClusters?.length ?? 0) > 0 ||
    (scope.rules?.length ?? 0) > 0
  );
}

const READ_VERBS = new Set(["get", "list", "watch"]);

/** Whether the request lies inside the scope. Lists of projects/instances pass here and are filtered per object. */
export function scopeAllows(scope: Scope, who: ScopeSubject, a: RequestAttributes): boolean {
  if (!a.resourceRequest) {
    // Discovery, version, openapi: what every client (kubectl included) needs to talk at all.
    // The paths a role keeps (/metrics, the backup) serve the whole server's state, far beyond
    // any project or resource a scope names: only a rule naming them in nonResourceURLs reaches them.
    if (!isRolePath(a.path ?? "")) return true;
    return (scope.rules ?? []).some((rule) => ruleAllows(rule, a));
  }
  // The self reviews (kubectl auth can-i, auth whoami) answer what this credential itself may
  // do, under this scope: nothing beyond it is shown, so every scope allows asking, as every
  // scope allows discovery.
  if (isSelfReview(a)) return true;
  if (scope.allowPlatformCli && cliAllows(who, a)) return true;
  if (projectScopeAllows(scope, a)) return true;
  for (const rule of scope.rules ?? []) if (ruleAllows(rule, a)) return true;
  return false;
}

/** The self reviews, by resource, with their API group. */
const SELF_REVIEWS = new Map([
  ["selfsubjectaccessreviews", "authorization.k8s.io"],
  ["selfsubjectrulesreviews", "authorization.k8s.io"],
  ["selfsubjectreviews", "authentication.k8s.io"],
]);

/** Whether the request is a self review (kubectl auth can-i, auth whoami): what the caller itself may do. */
export function isSelfReview(a: RequestAttributes): boolean {
  return a.verb === "create" && !a.subresource && !a.name && SELF_REVIEWS.get(a.resource) === a.apiGroup;
}

/** The read-only requests the CLI needs: selves, own user, own teams (and the reviews, which every scope allows). */
function cliAllows(who: ScopeSubject, a: RequestAttributes): boolean {
  if (a.resource === "selves" && a.verb === "create") return true;
  if (a.subresource) return false;
  if (a.resource === "users" && a.verb === "get") return who.subjectKind === "User" && a.name === who.name;
  if (a.resource === "teams" && a.verb === "get") {
    return who.subjectKind === "Team" ? a.name === who.name : who.teams.includes(a.name);
  }
  return false;
}

function matchesProject(list: Array<{ project: string }> | undefined, project: string): boolean {
  return (list ?? []).some((p) => p.project === "*" || p.project === project);
}

function projectScopeAllows(scope: Scope, a: RequestAttributes): boolean {
  const hasProjects = (scope.projects?.length ?? 0) > 0;
  const hasVcs = (scope.virtualClusters?.length ?? 0) > 0;
  const hasSpaces = (scope.spaces?.length ?? 0) > 0;
  if (a.resource === "projects") {
    // A list is filtered per object to the projects the scope names.
    if (!a.name) return (hasProjects || hasVcs || hasSpaces) && READ_VERBS.has(a.verb);
    if (matchesProject(scope.projects, a.name)) return true;
    // Instances and spaces need their project readable.
    return (
      a.verb === "get" &&
      !a.subresource &&
      (matchesProject(scope.virtualClusters, a.name) || matchesProject(scope.spaces, a.name))
    );
  }
  if (
    a.resource === "virtualclusterinstances" ||
    a.resource === "sharedsecrets" ||
    a.resource === "spaceinstances" ||
    a.resource === "projectsecrets"
  ) {
    const project = projectOfNamespace(a.namespace);
    const hasInstances = a.resource === "spaceinstances" ? hasSpaces : hasVcs;
    if (!project) {
      // A cluster-wide list or watch: allowed, and filtered to what the scope covers.
      return !a.namespace && !a.name && READ_VERBS.has(a.verb) && (hasProjects || hasInstances);
    }
    if (matchesProject(scope.projects, project)) return true;
    if (a.resource === "virtualclusterinstances") return instanceScopeAllows(namedVirtualClusters(scope), project, a);
    if (a.resource === "spaceinstances") return instanceScopeAllows(namedSpaces(scope), project, a);
    return false;
  }
  return false;
}

/** An instance a scope names: its project and name (`*` for any). */
interface NamedInstance {
  project: string;
  name: string;
}

function namedVirtualClusters(scope: Scope): NamedInstance[] {
  return (scope.virtualClusters ?? []).map((v) => ({ project: v.project, name: v.virtualCluster }));
}

function namedSpaces(scope: Scope): NamedInstance[] {
  return (scope.spaces ?? []).map((s) => ({ project: s.project, name: s.space }));
}

/**
 * The instances a scope names: every verb on one (the grants still decide), and lists in its
 * project (filtered per object to the named ones).
 */
function instanceScopeAllows(named: NamedInstance[], project: string, a: RequestAttributes): boolean {
  if (!a.name) return READ_VERBS.has(a.verb) && matchesProject(named, project);
  return named.some((v) => (v.project === "*" || v.project === project) && (v.name === "*" || v.name === a.name));
}

function ruleAllows(rule: ScopeRule, a: RequestAttributes): boolean {
  if (rule.cluster) return false; // cluster rules cover connected-cluster requests only, never the management API
  if ((rule.requestTargets?.length ?? 0) > 0 && !rule.requestTargets!.includes("Management")) return false;
  if ((rule.verbs?.length ?? 0) > 0 && !rule.verbs!.includes(a.verb) && !rule.verbs!.includes("*")) return false;
  if (!a.resourceRequest) return pathMatches(rule.nonResourceURLs ?? [], a.path ?? "");
  if ((rule.namespaces?.length ?? 0) > 0 && !rule.namespaces!.includes(a.namespace)) return false;
  if (!ruleCoversResource(rule, a)) return false;
  if ((rule.resourceNames?.length ?? 0) > 0 && !rule.resourceNames!.includes(a.name)) return false;
  if ((rule.virtualClusters?.length ?? 0) > 0 && a.resource === "virtualclusterinstances") {
    if (!a.name) return false;
    if (
      !rule.virtualClusters!.some(
        (v) => (!v.name || v.name === a.name) && (!v.namespace || v.namespace === a.namespace),
      )
    )
      return false;
  }
  return true;
}

/** Whether a rule's `resources` (empty: all) name the request's group and resource (or subresource). */
export function ruleCoversResource(
  rule: ScopeRule,
  a: Pick<RequestAttributes, "apiGroup" | "resource" | "subresource">,
): boolean {
  const groups = rule.resources ?? [];
  if (groups.length === 0) return true;
  const target = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  return groups.some(
    (g) =>
      (g.group ?? "") === a.apiGroup &&
      ((g.resources?.length ?? 0) === 0 || g.resources!.some((r) => resourceEntryMatches(r, target))),
  );
}

function resourceEntryMatches(entry: string, target: string): boolean {
  if (entry === "*") return true;
  const [base, sub] = entry.split("/");
  const [tBase, tSub] = target.split("/");
  if (sub === undefined) return tSub === undefined && base === tBase;
  if (base === "*") return tSub === sub;
  if (sub === "*") return base === tBase && tSub !== undefined;
  return base === tBase && sub === tSub;
}

/** Whether a rule's nonResourceURLs match a path (`*`, exact, or a trailing `/*`). */
export function pathMatches(urls: readonly string[], path: string): boolean {
  return urls.some((u) => u === "*" || u === path || (u.endsWith("/*") && path.startsWith(u.slice(0, -1))));
}

/**
 * Whether `inner` is no wider than `outer` (escalation check for new keys and tokens).
 * Conservative: a deprecated rule counts as covered only by an identical rule.
 */
export function scopeWithin(inner: Scope | undefined, outer: Scope | undefined): boolean {
  if (!isRestricting(outer)) return true;
  if (!isRestricting(inner)) return false;
  if (inner.allowPlatformCli && !outer.allowPlatformCli) return false;
  for (const p of inner.projects ?? [])
    if (!matchesProject(outer.projects, p.project) || (p.project === "*" && !matchesProject(outer.projects, "*")))
      return false;
  for (const v of inner.virtualClusters ?? []) {
    const covered =
      (matchesProject(outer.projects, v.project) && (v.project !== "*" || matchesProject(outer.projects, "*"))) ||
      (outer.virtualClusters ?? []).some(
        (o) =>
          (o.project === "*" || o.project === v.project) &&
          (o.virtualCluster === "*" || o.virtualCluster === v.virtualCluster),
      );
    if (!covered) return false;
  }
  for (const s of inner.spaces ?? []) {
    const covered =
      (matchesProject(outer.projects, s.project) && (s.project !== "*" || matchesProject(outer.projects, "*"))) ||
      (outer.spaces ?? []).some(
        (o) => (o.project === "*" || o.project === s.project) && (o.space === "*" || o.space === s.space),
      );
    if (!covered) return false;
  }
  for (const r of inner.rules ?? []) if (!(outer.rules ?? []).some((o) => isDeepStrictEqual(o, r))) return false;
  return true;
}
