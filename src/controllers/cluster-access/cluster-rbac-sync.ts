import type { ClusterConnectionError } from "../../clusters/cluster-connection.js";
import { applyClusterObjects, type ClusterObject, keyOf, refOf } from "../../clusters/cluster-objects.js";
import type { ClusterObjectClient } from "../../clusters/object-client.js";
import { type ClusterGrantStatus, LIST_CHECK } from "../../kinds/cluster/cluster.js";
import {
  ACCESS_LABEL,
  type DesiredObject,
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
  RBAC_API_VERSION,
  TEMPLATE_LABEL,
} from "./desired-rbac.js";

/** The one field manager of everything the platform applies into clusters for access. */
export const FIELD_MANAGER = "platform-cluster-access";

export interface SyncResult {
  grants: ClusterGrantStatus[];
  /** Set when the cluster could not be reached at all: the caller retries with backoff. */
  unreachable?: ClusterConnectionError;
  /** Calls the cluster answered with a failure (an apply, a list, a removal): the caller retries with backoff. */
  failedCalls: number;
}

/**
 * Brings one cluster's platform-made RBAC to `desired` through the shared apply
 * (clusters/cluster-objects.ts): ClusterRoles before the bindings that name them, then the
 * objects carrying the platform's labels that `desired` no longer lists are deleted (bindings
 * before roles). Never throws: each object's outcome is a status entry.
 */
export async function syncClusterRbac(
  api: ClusterObjectClient,
  server: string,
  desired: DesiredObject[],
  timeoutMs: number,
): Promise<SyncResult> {
  const ordered = [...desired].sort((a, b) => Number(a.kind !== "ClusterRole") - Number(b.kind !== "ClusterRole"));
  const manifests = ordered.flatMap((d) => (d.problem || !d.manifest ? [] : [d.manifest as ClusterObject]));
  const managed = `${MANAGED_BY_LABEL}=${MANAGED_BY_VALUE}`;
  const result = await applyClusterObjects(api, server, {
    fieldManager: FIELD_MANAGER,
    desired: manifests,
    owned: [
      { apiVersion: RBAC_API_VERSION, kind: "ClusterRoleBinding", labelSelector: `${managed},${ACCESS_LABEL}` },
      { apiVersion: RBAC_API_VERSION, kind: "RoleBinding", labelSelector: `${managed},${ACCESS_LABEL}` },
      { apiVersion: RBAC_API_VERSION, kind: "ClusterRole", labelSelector: `${managed},${TEMPLATE_LABEL}` },
    ],
    timeoutMs,
  });
  const applied = new Map(result.outcomes.filter((o) => o.action === "apply").map((o) => [keyOf(o), o]));
  const grants: ClusterGrantStatus[] = ordered.map((d) => {
    const entry = grantEntry(d);
    if (d.problem || !d.manifest) return { ...entry, applied: false, ...d.problem };
    const outcome = applied.get(keyOf(refOf(d.manifest)));
    return outcome?.ok
      ? { ...entry, applied: true }
      : { ...entry, applied: false, reason: outcome?.reason, message: outcome?.message };
  });
  for (const o of result.outcomes) {
    if (o.action === "list") {
      // Not a grant: what could not be listed could not be cleaned up. Bindings and roles no
      // grant wants any more may still be on the cluster, granting what they granted.
      grants.push({
        kind: o.kind,
        // The name read before `check` was set, kept for whoever still reads it (a console of
        // an older version, a jsonpath over the names).
        name: o.name,
        clusterRoleTemplate: "",
        check: LIST_CHECK,
        applied: false,
        reason: o.reason,
        message: `the platform's ${o.kind}s could not be listed, so those no grant wants any more are not removed: ${o.message}`,
      });
    } else if (o.action === "remove") {
      const labels = o.labels ?? {};
      grants.push({
        kind: o.kind,
        name: o.name,
        ...(o.namespace ? { namespace: o.namespace } : {}),
        clusterRoleTemplate: labels[TEMPLATE_LABEL] ?? "",
        ...(labels[ACCESS_LABEL] ? { clusterAccess: labels[ACCESS_LABEL] } : {}),
        applied: false,
        reason: o.reason,
        message: `no grant wants it any more, but removing it failed: ${o.message}`,
      });
    }
  }
  return { grants, unreachable: result.unreachable, failedCalls: result.outcomes.filter((o) => !o.ok).length };
}

/** The status entry of one desired object, before its outcome. */
export function grantEntry(d: DesiredObject): Omit<ClusterGrantStatus, "applied"> {
  return {
    kind: d.kind,
    name: d.name,
    ...(d.namespace ? { namespace: d.namespace } : {}),
    clusterRoleTemplate: d.clusterRoleTemplate,
    ...(d.clusterAccess ? { clusterAccess: d.clusterAccess } : {}),
  };
}
