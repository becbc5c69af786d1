import { Type } from "@sinclair/typebox";
import { type FieldError, fieldError } from "../api/errors.js";

/** `spec.clusters` of a ClusterRoleTemplate or ClusterAccess: the Cluster names it reaches, `*` for every cluster. */
export const ALL_CLUSTERS = "*";

export const ClusterSelectionSchema = Type.Array(Type.String(), {
  description: 'Names of the Clusters this applies to; "*" for every cluster, present and future.',
});

/** Whether a `spec.clusters` list reaches the cluster `name`. */
export function reachesCluster(clusters: readonly string[] | undefined, name: string): boolean {
  return (clusters ?? []).some((c) => c === ALL_CLUSTERS || c === name);
}

/** At least one entry; `*` only alone (a list naming clusters beside it would read as narrower than it is). */
export function validateClusterSelection(clusters: readonly string[] | undefined, path: string): FieldError[] {
  if (!clusters || clusters.length === 0) {
    return [fieldError("FieldValueRequired", path, `name at least one cluster, or "${ALL_CLUSTERS}" for all`)];
  }
  if (clusters.includes(ALL_CLUSTERS) && clusters.length > 1) {
    return [fieldError("FieldValueInvalid", path, `"${ALL_CLUSTERS}" stands alone`, clusters)];
  }
  return clusters.flatMap((c, i) =>
    c === "" ? [fieldError("FieldValueRequired", `${path}[${i}]`, "a cluster name")] : [],
  );
}
