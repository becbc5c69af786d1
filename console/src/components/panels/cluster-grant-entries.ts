/** One entry of a Cluster's status.grants (docs/cluster-access.md#cluster-status). */
export interface GrantEntry {
  kind: string;
  name: string;
  namespace?: string;
  clusterRoleTemplate: string;
  clusterAccess?: string;
  applied: boolean;
  reason?: string;
  message?: string;
}

/**
 * The entries that are grants, and those that say a list of the platform's objects on the
 * cluster failed: those are named `(list of ClusterRoleBindings)` and come from no template
 * (docs/cluster-access.md#cluster-status). They are no grant, so they are not counted as one.
 */
export function splitGrantEntries(entries: readonly GrantEntry[]): { grants: GrantEntry[]; failedLists: GrantEntry[] } {
  const isFailedList = (e: GrantEntry) => !e.applied && !e.clusterRoleTemplate && e.name.startsWith("(list of ");
  return { grants: entries.filter((e) => !isFailedList(e)), failedLists: entries.filter(isFailedList) };
}

/** A failed list in words: what the platform could not see, and what that leaves on the cluster. */
export function failedListInWords(e: GrantEntry): string {
  const what = `the ${e.kind}s it made there`;
  const refused =
    e.reason === "Forbidden"
      ? `The cluster does not let the platform see ${what}`
      : `The platform could not list ${what} (${e.reason ?? "no reason given"})`;
  return `${refused}, so those no grant wants any more are not removed and may still grant what they granted.`;
}
