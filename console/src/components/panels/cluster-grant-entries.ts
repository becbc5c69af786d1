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
  /** Set on an entry that is a check of the platform's, not an object: `List`, a failed list of its objects. */
  check?: string;
}

/** `check` of an entry saying the list of the platform's objects of its kind on the cluster failed. */
const LIST_CHECK = "List";

/**
 * Whether an entry says a list of the platform's objects on the cluster failed: `check: List`
 * (docs/cluster-access.md#cluster-status). A status written before `check` existed says it by the
 * entry's form alone, a name `(list of ClusterRoleBindings)` and no template; it is read as one
 * until the controller writes the cluster's status again.
 */
function isFailedList(e: GrantEntry): boolean {
  if (e.check !== undefined) return e.check === LIST_CHECK;
  return !e.applied && !e.clusterRoleTemplate && e.name.startsWith("(list of ");
}

/** The entries that are grants, and the failed lists, which are no grant, so they are not counted as one. */
export function splitGrantEntries(entries: readonly GrantEntry[]): { grants: GrantEntry[]; failedLists: GrantEntry[] } {
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
