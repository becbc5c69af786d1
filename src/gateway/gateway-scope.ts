import type { RequestAttributes } from "../authz/contract.js";
import { isRestricting, pathMatches, ruleCoversResource, type Scope, type ScopeRule } from "../authz/scope.js";

/**
 * How a key's (or direct token's) scope limits gateway traffic. A scope that restricts
 * nothing allows every cluster the caller may use. Otherwise:
 * - a connected cluster is reached only through a scope rule whose `cluster` is empty, `*`
 *   or that cluster, whose `requestTargets` is empty or holds `Cluster`, which names no
 *   virtual clusters, and whose verbs/resources/namespaces/names/nonResourceURLs match the
 *   forwarded request;
 * - a virtual cluster (project P, instance N) through `projects` naming P, `virtualClusters`
 *   naming P and N, or a rule as above without `cluster`, with `requestTargets` empty or
 *   holding `VirtualCluster`, whose `virtualClusters` is empty or names N (and its namespace).
 * `allowPlatformCli` alone reaches no cluster.
 */
export type GatewayTarget =
  | { kind: "cluster"; cluster: string }
  | { kind: "virtualcluster"; project: string; namespace: string; name: string };

export function gatewayScopeAllows(
  scope: Scope | undefined,
  target: GatewayTarget,
  request: RequestAttributes,
): boolean {
  if (!isRestricting(scope)) return true;
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
  const verbs = rule.verbs ?? [];
  if (verbs.length > 0 && !verbs.includes("*") && !verbs.includes(a.verb)) return false;
  if (!a.resourceRequest) {
    // Discovery and /version are what every client needs to talk at all (as for the management API).
    const urls = rule.nonResourceURLs ?? [];
    return urls.length === 0 || pathMatches(urls, a.path ?? "");
  }
  const namespaces = rule.namespaces ?? [];
  if (namespaces.length > 0 && !namespaces.includes(a.namespace)) return false;
  if (!ruleCoversResource(rule, a)) return false;
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(a.name);
}
