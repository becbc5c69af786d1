import type { KubeObject } from "../../api/object.js";
import { type ClusterConnectionError, withDeadline } from "../../clusters/cluster-connection.js";
import {
  applyClusterObjects,
  isUnreachable,
  type ObjectRef,
  type OwnedKind,
  pruneClusterObjects,
  refOf,
} from "../../clusters/cluster-objects.js";
import type { ClusterObjectClient } from "../../clusters/object-client.js";
import { holdsNamespace, type NamespaceClaim } from "../spaces/namespace-claim.js";
import { appliedNamespaceUID, type Call, readNamespace, removeOwnedNamespace } from "../spaces/space-sync.js";
import { type DesiredInstance, instanceObjectsSelector } from "./desired-instance.js";

/** The one field manager of everything the platform applies into clusters for virtual clusters. */
export const FIELD_MANAGER = "platform-virtual-clusters";

/** What one deploy found and did. */
export type DeployResult =
  /** `namespaceUID`: the namespace deployed into, which the status records (how a moved instance knows it). */
  | { ok: true; objects: ObjectRef[]; namespaceUID?: string }
  /** Nothing was pruned: the objects deployed before stay as they were (or as far as the apply got). */
  | { ok: false; reason: string; message: string; unreachable?: ClusterConnectionError; waiting?: boolean };

/**
 * Brings an instance's namespace on its cluster to `desired`: refuses a namespace that exists
 * and is not this instance's (never adopted; `claim`, namespace-claim.ts: the UID its status
 * recorded, which keeps it the instance's after a move to another project, or its labels),
 * applies the Namespace and the template's objects with server-side apply, and only when every
 * object applied, prunes the instance's objects no longer desired (of the kinds deployed now or
 * before, `previous`; by its name, whichever project their labels name): a failed upgrade
 * leaves what ran before.
 */
export async function deployInstance(
  api: ClusterObjectClient,
  server: string,
  instance: KubeObject,
  claim: NamespaceClaim,
  desired: DesiredInstance,
  previous: readonly ObjectRef[],
  timeoutMs: number,
): Promise<DeployResult> {
  const call: Call = (p) => withDeadline(p, timeoutMs, server);
  const found = await readNamespace(api, call, server, desired.namespace);
  if ("error" in found) return failure(found.error);
  const existing = found.namespace;
  if (existing && !holdsNamespace(existing, claim)) {
    return {
      ok: false,
      reason: "NamespaceNotOwned",
      message: `namespace "${desired.namespace}" already exists on the cluster and was not made for this virtual cluster; the platform does not take over a namespace it did not create`,
    };
  }
  if (existing?.metadata?.deletionTimestamp) {
    return {
      ok: false,
      reason: "NamespaceTerminating",
      message: `namespace "${desired.namespace}" is still being deleted on the cluster`,
      waiting: true,
    };
  }
  const objects = desired.objects.filter((o) => o.kind !== "Namespace").map(refOf);
  const selected = { namespace: desired.namespace, labelSelector: instanceObjectsSelector(instance) };
  // Pruned only once every object applied: a refused object must not cost the objects that ran before.
  const applied = await applyClusterObjects(api, server, {
    fieldManager: FIELD_MANAGER,
    desired: desired.objects,
    owned: instanceKinds(selected, [...previous, ...objects]),
    live: existing ? [existing] : [],
    keepAllIfApplyFails: true,
    timeoutMs,
  });
  if (applied.unreachable) return failure(applied.unreachable);
  const failed = applied.outcomes.find((o) => !o.ok);
  if (failed) {
    return {
      ok: false,
      reason: failed.reason ?? (failed.action === "apply" ? "ApplyFailed" : "RemoveFailed"),
      message: `${failed.kind} ${failed.name}: ${failed.message}`,
    };
  }
  // One the apply created: its UID is in the apply's answer, not read again.
  const namespaceUID = existing?.metadata?.uid ?? appliedNamespaceUID(applied.outcomes, desired.namespace);
  return { ok: true, objects, namespaceUID };
}

/**
 * Deletes the instance's labelled objects (`labelSelector`, in its `namespace`, which must be
 * known to be the instance's) of the kinds in `kinds`, but those in `keep`; undefined when done,
 * else why not.
 */
async function removeInstanceObjects(
  api: ClusterObjectClient,
  server: string,
  { namespace, labelSelector }: { namespace: string; labelSelector: string },
  kinds: readonly ObjectRef[],
  keep: readonly ObjectRef[],
  timeoutMs: number,
): Promise<Extract<DeployResult, { ok: false }> | undefined> {
  const result = await pruneClusterObjects(api, server, {
    fieldManager: FIELD_MANAGER,
    desired: keep.map((k) => ({ apiVersion: k.apiVersion, kind: k.kind, metadata: { name: k.name, namespace } })),
    owned: instanceKinds({ namespace, labelSelector }, kinds),
    timeoutMs,
  });
  if (result.unreachable) return failure(result.unreachable);
  const failed = result.outcomes.find((o) => !o.ok);
  if (failed)
    return {
      ok: false,
      reason: failed.reason ?? "RemoveFailed",
      message: `${failed.kind} ${failed.name}: ${failed.message}`,
    };
  return undefined;
}

/** The instance's labelled objects of each kind in `kinds` (but its Namespace, removed only with the instance). */
function instanceKinds(
  { namespace, labelSelector }: { namespace: string; labelSelector: string },
  kinds: readonly ObjectRef[],
): OwnedKind[] {
  const owned = new Map<string, OwnedKind>();
  for (const k of kinds) {
    if (k.kind === "Namespace") continue;
    owned.set(`${k.apiVersion}/${k.kind}`, { apiVersion: k.apiVersion, kind: k.kind, namespace, labelSelector });
  }
  return [...owned.values()];
}

/**
 * Whether what was deployed for the instance is gone: when it holds its namespace (`claim`), its
 * objects of the kinds in `kinds` are deleted, then the namespace; a namespace it does not hold
 * is left alone with everything in it (another's, or made by hand), and counts as gone.
 */
export async function removeInstance(
  api: ClusterObjectClient,
  server: string,
  instance: KubeObject,
  claim: NamespaceClaim,
  namespace: string,
  kinds: readonly ObjectRef[],
  timeoutMs: number,
): Promise<{ gone: boolean; error?: ClusterConnectionError; left?: Extract<DeployResult, { ok: false }> }> {
  const found = await readNamespace(api, (p) => withDeadline(p, timeoutMs, server), server, namespace);
  if ("error" in found) return { gone: false, error: found.error };
  if (!found.namespace || !holdsNamespace(found.namespace, claim)) return { gone: true };
  const selected = { namespace, labelSelector: instanceObjectsSelector(instance) };
  const left = await removeInstanceObjects(api, server, selected, kinds, [], timeoutMs);
  if (left) return { gone: false, error: left.unreachable, left };
  return removeOwnedNamespace(api, server, namespace, timeoutMs, claim);
}

function failure(e: ClusterConnectionError): Extract<DeployResult, { ok: false }> {
  return isUnreachable(e)
    ? { ok: false, reason: e.reason, message: e.message, unreachable: e }
    : { ok: false, reason: e.reason, message: e.message };
}
