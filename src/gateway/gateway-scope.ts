import type { RequestAttributes } from "../authz/contract.js";
import { isRestricting, pathMatches, ruleCoversResource, type Scope, type ScopeRule } from "../authz/scope.js";

/**
 * How a key's (or direct token's) scope limits gateway traffic. A scope that restricts
 * nothing allows every cluster the caller may use. Otherwise:
 * - a connected cluster is reached only through a scope rule whose `cluster` is empty, `*`
 *   or that cluster, whose `requestTargets` is empty or holds `Cluster`, which names no
 *   virtual clusters, and whose verbs/resources/namespaces/names/nonResourceURLs match the
 *   forwarded request (a path that is no resource needs the rule's nonResourceURLs to name
 *   it, except discovery, which any rule covering the target allows);
 * - a virtual cluster (project P, instance N) through `projects` naming P, `virtualClusters`
 *   naming P and N, or a rule as above without `cluster`, with `requestTargets` empty or
 *   holding `VirtualCluster`, whose `virtualClusters` is empty or names N (and its namespace).
 * - a space (project P, instance N) only through `projects` naming P or `spaces` naming P and N
 *   (no rule reaches a space: rules name clusters and namespaces, which a space's path does not).
 * `allowPlatformCli` alone reaches no cluster.
 */
export type GatewayTarget =
  | { kind: "cluster"; cluster: string }
  | { kind: "virtualcluster"; project: string; namespace: string; name: string }
  | { kind: "space"; project: string; namespace: string; name: string };

export function gatewayScopeAllows(
  scope: Scope | undefined,
  target: GatewayTarget,
  request: RequestAttributes,
): boolean {
  if (!isRestricting(scope)) return true;
  if (target.kind === "space") {
    const p = target.project;
    if ((scope.projects ?? []).some((x) => x.project === "*" || x.project === p)) return true;
    return (scope.spaces ?? []).some(
      (s) => (s.project === "*" || s.project === p) && (s.space === "*" || s.space === target.name),
    );
  }
  if (target.kind === "virtualcluster") {
    const p = target.project;
    if ((scope.projects ?? []).some((x) => x.project === "*" || x.project === p)) return true;
    if (
      (scope.virtualClusters ?? []).some(
        (v) => (v.project === "*" || v.project === p) && (v.virtualCluster === "*" || v.virtualCluster === target.name),
      )
    )
      return true;
  }
  return (scope.rules ?? []).some((rule) => ruleCovers(rule, target) && ruleMatches(rule, request));
}

/** Whether a scope rule names exactly this one cluster (what the agent requires of a direct token). */
export function scopeNamesCluster(scope: Scope | undefined, cluster: string): boolean {
  return (scope?.rules ?? []).some((r) => r.cluster === cluster);
}

function ruleCovers(rule: ScopeRule, target: GatewayTarget): boolean {
  const targets = rule.requestTargets ?? [];
  if (target.kind === "cluster") {
    if (targets.length > 0 && !targets.includes("Cluster")) return false;
    if ((rule.virtualClusters?.length ?? 0) > 0) return false;
    return !rule.cluster || rule.cluster === "*" || rule.cluster === target.cluster;
  }
  if (targets.length > 0 && !targets.includes("VirtualCluster")) return false;
  if (rule.cluster) return false;
  const vcs = rule.virtualClusters ?? [];
  return (
    vcs.length === 0 ||
    vcs.some((v) => (!v.name || v.name === target.name) && (!v.namespace || v.namespace === target.namespace))
  );
}

function ruleMatches(rule: ScopeRule, a: RequestAttributes): boolean {
  // Discovery is what every client needs to talk at all (as on the management API): any rule
  // that covers the target allows reading it, whatever its verbs.
  if (!a.resourceRequest && isDiscovery(a)) return true;
  const verbs = rule.verbs ?? [];
  if (verbs.length > 0 && !verbs.includes("*") && !verbs.includes(a.verb)) return false;
  // Any other path that is no resource (/metrics, /logs/, /debug/pprof/, /healthz) only
  // through a rule that names it: a rule without nonResourceURLs allows none.
  if (!a.resourceRequest) return pathMatches(rule.nonResourceURLs ?? [], a.path ?? "");
  const namespaces = rule.namespaces ?? [];
  if (namespaces.length > 0 && !namespaces.includes(a.namespace)) return false;
  if (!ruleCoversResource(rule, a)) return false;
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(a.name);
}

/**
 * Reading discovery: `/api`, `/apis` and what lies below them that is no resource (a group, a
 * version: kube-request.ts classifies every longer path as a resource), `/version`, and the
 * OpenAPI documents kubectl reads (`/openapi/v2`, `/openapi/v3`, `/openapi/v3/...`).
 */
function isDiscovery(a: RequestAttributes): boolean {
  if (a.verb !== "get") return false;
  const path = a.path ?? "";
  return (
    DISCOVERY_PATHS.has(path) ||
    path.startsWith("/api/") ||
    path.startsWith("/apis/") ||
    path.startsWith("/openapi/v3/")
  );
}
const DISCOVERY_PATHS = new Set(["/api", "/apis", "/version", "/openapi/v2", "/openapi/v3"]);
