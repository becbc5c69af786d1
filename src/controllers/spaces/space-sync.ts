import { type KubeObject, statusOf } from "../../api/object.js";
import { type ClusterConnectionError, classifyError, withDeadline } from "../../clusters/cluster-connection.js";
import {
  applyClusterObjects,
  isUnreachable,
  type ObjectOutcome,
  type OwnedKind,
} from "../../clusters/cluster-objects.js";
import type { ClusterObjectClient, RawObject } from "../../clusters/object-client.js";
import type { SpaceInstanceStatus, SpaceObjectOutcome } from "../../kinds/space-instance/space-instance.js";
import { type DesiredSpace, spaceObjectsSelector } from "./desired-space.js";
import { holdsNamespace, type NamespaceClaim } from "./namespace-claim.js";

/** The one field manager of everything the platform applies into clusters for spaces. */
export const FIELD_MANAGER = "platform-spaces";

/** What one pass over a space's namespace found and did. */
export interface SpaceSyncResult {
  phase: "Pending" | "Ready" | "Failed";
  reason?: string;
  message?: string;
  namespaceUID?: string;
  objects: SpaceObjectOutcome[];
  /** The cluster could not be used: the caller retries with backoff. */
  unreachable?: ClusterConnectionError;
  /** The namespace is still going (a space of the same name was deleted): look again later. */
  waiting?: boolean;
}

export type Call = <T>(p: Promise<T>) => Promise<T>;

/**
 * Brings a space's namespace on its cluster to `desired`: refuses a namespace that exists and
 * is not this space's (never adopted; `claim`, namespace-claim.ts), then applies the Namespace,
 * the RoleBindings and the template's objects and prunes the objects of this space no longer
 * desired, of the kinds it applies now or applied before (`previous`, from its status).
 */
export async function syncSpace(
  api: ClusterObjectClient,
  /** How messages name the cluster. */
  server: string,
  space: KubeObject,
  claim: NamespaceClaim,
  desired: DesiredSpace,
  previous: readonly SpaceObjectOutcome[],
  timeoutMs: number,
): Promise<SpaceSyncResult> {
  const call: Call = (p) => withDeadline(p, timeoutMs, server);
  const found = await readNamespace(api, call, server, desired.namespace);
  if ("error" in found) return failedRead(found.error);
  const existing = found.namespace;
  if (existing && !holdsNamespace(existing, claim)) {
    return {
      phase: "Failed",
      reason: "NamespaceNotOwned",
      message: `namespace "${desired.namespace}" already exists on the cluster and was not made by this space; the platform does not take over a namespace it did not create`,
      objects: [],
    };
  }
  if (existing?.metadata?.deletionTimestamp) {
    return {
      phase: "Pending",
      reason: "NamespaceTerminating",
      message: `namespace "${desired.namespace}" is still being deleted on the cluster`,
      objects: [],
      waiting: true,
    };
  }
  const selector = spaceObjectsSelector(space);
  const result = await applyClusterObjects(api, server, {
    fieldManager: FIELD_MANAGER,
    desired: desired.objects,
    owned: ownedKinds(desired, previous).map((k) => ({ ...k, namespace: desired.namespace, labelSelector: selector })),
    live: existing ? [existing] : [],
    timeoutMs,
  });
  const objects = result.outcomes.map(statusEntry);
  if (result.unreachable) {
    return {
      phase: "Pending",
      reason: result.unreachable.reason,
      message: result.unreachable.message,
      objects,
      unreachable: result.unreachable,
    };
  }
  const failed = result.outcomes.find((o) => !o.ok);
  // The namespace as the pass left it (one it created included), from the apply's own answer.
  const namespaceUID = appliedNamespaceUID(result.outcomes, desired.namespace) ?? existing?.metadata?.uid;
  if (failed) {
    const what = `${failed.kind} ${failed.name}`;
    return { phase: "Failed", reason: failed.reason, message: `${what}: ${failed.message}`, namespaceUID, objects };
  }
  return { phase: "Ready", namespaceUID, objects };
}

/**
 * An imported namespace at its space's delete: it stays on the cluster; what the space applied
 * goes (its RoleBindings and template objects, and the labels and annotations it put on the
 * namespace: an apply of the bare Namespace by the same field manager drops the fields it owned).
 */
export async function releaseImportedNamespace(
  api: ClusterObjectClient,
  server: string,
  space: KubeObject,
  claim: NamespaceClaim,
  namespace: string,
  timeoutMs: number,
): Promise<{ gone: boolean; error?: ClusterConnectionError }> {
  const call: Call = (p) => withDeadline(p, timeoutMs, server);
  const found = await readNamespace(api, call, server, namespace);
  if ("error" in found) return { gone: false, error: found.error };
  const existing = found.namespace;
  const ownerLabels = claim.ownerLabels;
  if (!existing || !holdsNamespace(existing, claim)) return { gone: true };
  const selector = spaceObjectsSelector(space);
  const previous = statusOf<SpaceInstanceStatus>(space).objects ?? [];
  const desired = { namespace, ownerLabels, objects: [] };
  const result = await applyClusterObjects(api, server, {
    fieldManager: FIELD_MANAGER,
    desired: [{ apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } }],
    owned: ownedKinds(desired, previous).map((k) => ({ ...k, namespace, labelSelector: selector })),
    live: [existing],
    timeoutMs,
  });
  if (result.unreachable) return { gone: false, error: result.unreachable };
  const failed = result.outcomes.find((o) => !o.ok);
  if (failed)
    return { gone: false, error: classifyError(new Error(`${failed.kind} ${failed.name}: ${failed.message}`), server) };
  return { gone: true };
}

/**
 * Whether a namespace is gone: deletes it when the caller (a space, a virtual cluster instance)
 * holds it (holdsNamespace); one it does not is left alone and counts as gone.
 */
export async function removeOwnedNamespace(
  api: ClusterObjectClient,
  server: string,
  namespace: string,
  timeoutMs: number,
  claim: NamespaceClaim,
): Promise<{ gone: boolean; error?: ClusterConnectionError }> {
  const call: Call = (p) => withDeadline(p, timeoutMs, server);
  const found = await readNamespace(api, call, server, namespace);
  if ("error" in found) return { gone: false, error: found.error };
  const existing = found.namespace;
  if (!existing || !holdsNamespace(existing, claim)) return { gone: true };
  if (existing.metadata?.deletionTimestamp) return { gone: false };
  try {
    await call(api.delete({ apiVersion: "v1", kind: "Namespace", name: namespace }));
    return { gone: false };
  } catch (err) {
    const e = classifyError(err, server);
    return e.httpStatus === 404 ? { gone: true } : { gone: false, error: e };
  }
}

/** The namespace of that name on the cluster (undefined: there is none), or why it could not be read. */
export async function readNamespace(
  api: ClusterObjectClient,
  call: Call,
  server: string,
  name: string,
): Promise<{ namespace: RawObject | undefined } | { error: ClusterConnectionError }> {
  try {
    return { namespace: await call(api.get({ apiVersion: "v1", kind: "Namespace", name })) };
  } catch (err) {
    const e = classifyError(err, server);
    return e.httpStatus === 404 ? { namespace: undefined } : { error: e };
  }
}

/** The UID of namespace `name` as a pass applied it (applyClusterObjects reports it); undefined when it did not. */
export function appliedNamespaceUID(outcomes: readonly ObjectOutcome[], name: string): string | undefined {
  return outcomes.find((o) => o.kind === "Namespace" && o.name === name && o.action === "apply" && o.ok)?.uid;
}

function failedRead(e: ClusterConnectionError): SpaceSyncResult {
  return isUnreachable(e)
    ? { phase: "Pending", reason: e.reason, message: e.message, objects: [], unreachable: e }
    : { phase: "Failed", reason: e.reason, message: e.message, objects: [] };
}

/** The kinds to look for leftovers of: those applied now or before, but the Namespace (removed only with the space). */
function ownedKinds(
  desired: DesiredSpace,
  previous: readonly SpaceObjectOutcome[],
): Array<Omit<OwnedKind, "labelSelector">> {
  const kinds = new Map<string, { apiVersion: string; kind: string }>();
  for (const o of [...previous, ...desired.objects]) {
    if (o.kind === "Namespace" || !o.kind || !o.apiVersion) continue;
    kinds.set(`${o.apiVersion}/${o.kind}`, { apiVersion: o.apiVersion, kind: o.kind });
  }
  return [...kinds.values()];
}

function statusEntry(o: ObjectOutcome): SpaceObjectOutcome {
  return {
    apiVersion: o.apiVersion,
    kind: o.kind,
    name: o.name,
    applied: o.ok,
    ...(o.reason ? { reason: o.action === "remove" ? "RemoveFailed" : o.reason } : {}),
    ...(o.message ? { message: o.message } : {}),
  };
}
