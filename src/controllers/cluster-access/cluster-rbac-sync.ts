import type { KubernetesObject, KubernetesObjectApi } from "@kubernetes/client-node";
import { type ClusterConnectionError, classifyError, withDeadline } from "../../clusters/cluster-connection.js";
import type { ClusterGrantStatus } from "../../kinds/cluster/cluster.js";
import {
  ACCESS_LABEL,
  type DesiredObject,
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
  RBAC_API_VERSION,
  type RbacKind,
  TEMPLATE_LABEL,
} from "./desired-rbac.js";

/** The one field manager of everything the platform applies into clusters for access. */
export const FIELD_MANAGER = "platform-cluster-access";

/** Reasons that say the cluster itself could not be used: the whole sync is retried with backoff. */
const UNREACHABLE = new Set(["ClusterUnreachable", "TLSVerificationFailed", "Unauthorized", "EndpointNotAllowed"]);

/** Whether a failure means the cluster could not be used at all (retried with backoff), not one object's refusal. */
export function isUnreachable(e: ClusterConnectionError): boolean {
  return UNREACHABLE.has(e.reason);
}

export interface SyncResult {
  grants: ClusterGrantStatus[];
  /** Set when the cluster could not be reached at all: the caller retries with backoff. */
  unreachable?: ClusterConnectionError;
}

/**
 * Brings one cluster's platform-made RBAC to `desired`: applies each object with server-side
 * apply under FIELD_MANAGER (ClusterRoles before the bindings that name them), then deletes the
 * objects carrying the platform's labels that `desired` no longer lists (bindings before roles).
 * Objects without those labels are never listed, so never touched. Never throws: each object's
 * outcome is a status entry.
 */
export async function syncClusterRbac(
  api: KubernetesObjectApi,
  server: string,
  desired: DesiredObject[],
  timeoutMs: number,
): Promise<SyncResult> {
  const call = <T>(p: Promise<T>) => withDeadline(p, timeoutMs, server);
  const grants: ClusterGrantStatus[] = [];
  let unreachable: ClusterConnectionError | undefined;
  const ordered = [...desired].sort((a, b) => Number(a.kind !== "ClusterRole") - Number(b.kind !== "ClusterRole"));
  for (const d of ordered) {
    const entry = grantEntry(d);
    if (d.problem || !d.manifest) {
      grants.push({ ...entry, applied: false, ...d.problem });
      continue;
    }
    if (unreachable) {
      grants.push({ ...entry, applied: false, reason: unreachable.reason, message: unreachable.message });
      continue;
    }
    try {
      await call(
        api.patch(
          d.manifest as KubernetesObject,
          undefined,
          undefined,
          FIELD_MANAGER,
          true,
          "application/apply-patch+yaml",
        ),
      );
      grants.push({ ...entry, applied: true });
    } catch (err) {
      const e = classifyError(err, server);
      if (isUnreachable(e)) unreachable = e;
      // The one 404 an apply meets: a RoleBinding's namespace does not exist (the platform does not create it).
      const reason = e.httpStatus === 404 && d.namespace ? "NamespaceNotFound" : e.reason;
      grants.push({ ...entry, applied: false, reason, message: e.message });
    }
  }
  if (unreachable) return { grants, unreachable };
  const keep = new Set(desired.filter((d) => d.manifest).map((d) => keyOf(d.kind, d.name, d.namespace)));
  for (const [kind, owner] of [
    ["ClusterRoleBinding", ACCESS_LABEL],
    ["RoleBinding", ACCESS_LABEL],
    ["ClusterRole", TEMPLATE_LABEL],
  ] as const) {
    try {
      const made = await call(
        api.list(
          RBAC_API_VERSION,
          kind,
          undefined,
          undefined,
          undefined,
          undefined,
          undefined,
          `${MANAGED_BY_LABEL}=${MANAGED_BY_VALUE},${owner}`,
        ),
      );
      for (const obj of made.items) {
        const { name = "", namespace } = obj.metadata ?? {};
        if (keep.has(keyOf(kind, name, namespace))) continue;
        await removeMade(api, call, kind, obj, grants, server);
      }
    } catch (err) {
      const e = classifyError(err, server);
      if (isUnreachable(e)) return { grants, unreachable: e };
      grants.push({
        kind,
        name: `(list of ${kind}s)`,
        clusterRoleTemplate: "",
        applied: false,
        reason: e.reason,
        message: e.message,
      });
    }
  }
  return { grants };
}

/** Deletes one object the platform made and no grant wants any more; a failure shows in status. */
async function removeMade(
  api: KubernetesObjectApi,
  call: <T>(p: Promise<T>) => Promise<T>,
  kind: RbacKind,
  obj: KubernetesObject,
  grants: ClusterGrantStatus[],
  server: string,
): Promise<void> {
  try {
    await call(
      api.delete({
        apiVersion: RBAC_API_VERSION,
        kind,
        metadata: { name: obj.metadata?.name, namespace: obj.metadata?.namespace },
      }),
    );
  } catch (err) {
    const e = classifyError(err, server);
    if (e.httpStatus === 404) return; // gone already
    const labels = obj.metadata?.labels ?? {};
    grants.push({
      kind,
      name: obj.metadata?.name ?? "",
      ...(obj.metadata?.namespace ? { namespace: obj.metadata.namespace } : {}),
      clusterRoleTemplate: labels[TEMPLATE_LABEL] ?? "",
      ...(labels[ACCESS_LABEL] ? { clusterAccess: labels[ACCESS_LABEL] } : {}),
      applied: false,
      reason: "RemoveFailed",
      message: `no grant wants it any more, but removing it failed: ${e.message}`,
    });
  }
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

function keyOf(kind: string, name: string, namespace: string | undefined): string {
  return `${kind}/${namespace ?? ""}/${name}`;
}
