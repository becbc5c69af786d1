/** `check` of a status.grants entry saying the list of the platform's objects of its kind failed. */
export const LIST_CHECK = "List";

/** What the cell reads of a status.grants entry (ClusterGrantStatus in cluster.ts, which imports this file). */
export interface GrantEntryShape {
  name: string;
  clusterRoleTemplate: string;
  applied: boolean;
  check?: string;
}

/**
 * Whether an entry is a check of the platform's that failed, not a grant: `check` set. A status
 * written before `check` existed says it by the entry's form alone, a name `(list of …)` and no
 * template; it is read as one until the controller writes the cluster's status again (as the
 * console reads it).
 */
export function isFailedCheck(entry: GrantEntryShape): boolean {
  if (entry.check !== undefined) return true;
  return !entry.applied && !entry.clusterRoleTemplate && entry.name.startsWith("(list of ");
}

/**
 * The `GRANTS` cell of `kubectl get clusters -o wide`: the grants applied of those the cluster
 * should hold, how many of them failed, and apart from them the platform's own checks that failed
 * (a list it could not make), which are no grant and so are not counted as one:
 * `2/3 (1 failed)`, `1/1, 3 checks failed`. The console's cluster page counts the same way.
 */
export function grantsCell(entries: readonly GrantEntryShape[] | undefined): string {
  const grants = (entries ?? []).filter((e) => !isFailedCheck(e));
  const checks = (entries ?? []).length - grants.length;
  const applied = grants.filter((g) => g.applied).length;
  const failed = grants.length - applied;
  const parts: string[] = [];
  if (grants.length > 0) parts.push(`${applied}/${grants.length}${failed > 0 ? ` (${failed} failed)` : ""}`);
  if (checks > 0) parts.push(`${checks} ${checks === 1 ? "check" : "checks"} failed`);
  return parts.join(", ");
}
