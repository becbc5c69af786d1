import type { KubernetesObject, KubernetesObjectApi } from "@kubernetes/client-node";
import { type ClusterConnectionError, classifyError, withDeadline } from "./cluster-connection.js";

/**
 * The one way the platform keeps a set of objects on a connected cluster (cluster access,
 * spaces, virtual clusters): each desired object is applied with server-side apply under the
 * caller's field manager, in the order given; then the objects carrying the caller's owner
 * labels that are no longer desired are deleted, kind by kind in the order given. Objects
 * without those labels are never listed, so never touched. Never throws: every object's outcome
 * is reported, and a cluster that cannot be used at all is returned as `unreachable` for the
 * caller to retry with backoff.
 */

/** A manifest as server-side apply takes it: any kind, namespaced (metadata.namespace) or not. */
export interface ClusterObject extends KubernetesObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; [field: string]: unknown };
  [field: string]: unknown;
}

/** Which objects of one kind the caller owns: listed with `labelSelector` (in `namespace`, or cluster-wide). */
export interface OwnedKind {
  apiVersion: string;
  kind: string;
  namespace?: string;
  labelSelector: string;
}

export interface ObjectRef {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
}

/** What happened to one object. */
export interface ObjectOutcome extends ObjectRef {
  /** Applied: it is on the cluster as desired. Removed: it was deleted as no longer desired. */
  action: "apply" | "remove" | "list";
  ok: boolean;
  reason?: string;
  message?: string;
  /** The labels of an object that could not be removed (they say whose it was). */
  labels?: Record<string, string>;
}

export interface ApplyPlan {
  fieldManager: string;
  desired: readonly ClusterObject[];
  /** The kinds to prune, in order (dependents before what they depend on). */
  owned: readonly OwnedKind[];
  /** How long one call to the cluster may take. */
  timeoutMs: number;
}

export interface ApplyResult {
  /** One per desired object, in order; then the removals that failed (and lists that failed). */
  outcomes: ObjectOutcome[];
  /** The objects deleted as no longer desired. */
  removed: ObjectRef[];
  /** Set when the cluster could not be used at all: nothing after it was tried; retry with backoff. */
  unreachable?: ClusterConnectionError;
}

/** Reasons that say the cluster itself could not be used, not one object's refusal. */
const UNREACHABLE = new Set(["ClusterUnreachable", "TLSVerificationFailed", "Unauthorized", "EndpointNotAllowed"]);

/** Whether a failure means the cluster could not be used at all (retried with backoff). */
export function isUnreachable(e: ClusterConnectionError): boolean {
  return UNREACHABLE.has(e.reason);
}

export function refOf(obj: {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string };
}): ObjectRef {
  const namespace = obj.metadata?.namespace;
  return {
    apiVersion: obj.apiVersion ?? "",
    kind: obj.kind ?? "",
    name: obj.metadata?.name ?? "",
    ...(namespace ? { namespace } : {}),
  };
}

export function keyOf(ref: ObjectRef): string {
  return `${ref.apiVersion}/${ref.kind}/${ref.namespace ?? ""}/${ref.name}`;
}

export async function applyClusterObjects(
  api: KubernetesObjectApi,
  server: string,
  plan: ApplyPlan,
): Promise<ApplyResult> {
  const call = <T>(p: Promise<T>) => withDeadline(p, plan.timeoutMs, server);
  const outcomes: ObjectOutcome[] = [];
  let unreachable: ClusterConnectionError | undefined;
  for (const obj of plan.desired) {
    const ref = refOf(obj);
    if (unreachable) {
      outcomes.push({ ...ref, action: "apply", ok: false, reason: unreachable.reason, message: unreachable.message });
      continue;
    }
    try {
      const refused = await scopeProblem(api, call, obj);
      if (refused) {
        outcomes.push({ ...ref, action: "apply", ok: false, ...refused });
        continue;
      }
      await call(api.patch(obj, undefined, undefined, plan.fieldManager, true, "application/apply-patch+yaml"));
      outcomes.push({ ...ref, action: "apply", ok: true });
    } catch (err) {
      const e = classifyError(err, server);
      if (isUnreachable(e)) unreachable = e;
      // The one 404 an apply meets: the object's namespace does not exist.
      const reason = e.httpStatus === 404 && ref.namespace ? "NamespaceNotFound" : e.reason;
      outcomes.push({ ...ref, action: "apply", ok: false, reason, message: e.message });
    }
  }
  if (unreachable) return { outcomes, removed: [], unreachable };
  const pruned = await pruneUndesired(api, call, server, plan);
  return { outcomes: [...outcomes, ...pruned.outcomes], removed: pruned.removed, unreachable: pruned.unreachable };
}

/**
 * Why an object must not be applied as written: its kind is not served, or its namespace does
 * not match the kind's scope (the client would silently write a cluster-scoped object that
 * names a namespace cluster-wide).
 */
async function scopeProblem(
  api: KubernetesObjectApi,
  call: <T>(p: Promise<T>) => Promise<T>,
  obj: ClusterObject,
): Promise<{ reason: string; message: string } | undefined> {
  // The client's discovery lookup, cached per client; protected in its typings only.
  const resource = await call(discover(api, obj.apiVersion, obj.kind));
  if (!resource) {
    return { reason: "KindNotFound", message: `the cluster serves no kind ${obj.kind} in ${obj.apiVersion}` };
  }
  const namespaced = obj.metadata.namespace !== undefined;
  if (resource.namespaced === namespaced) return undefined;
  return resource.namespaced
    ? { reason: "NamespaceRequired", message: `${obj.kind} is namespaced: it needs a namespace` }
    : { reason: "NotNamespaced", message: `${obj.kind} is cluster-scoped: it cannot be put in a namespace` };
}

/**
 * The cluster's resource for a kind, undefined when it serves none: the client's own discovery
 * lookup (cached per client), protected in its typings only. Asked first because the client
 * reports an unknown kind as a plain Error, which would read as an unreachable cluster, and an
 * unknown group as a 404, which would read as a missing namespace.
 */
async function discover(
  api: KubernetesObjectApi,
  apiVersion: string,
  kind: string,
): Promise<{ namespaced: boolean } | undefined> {
  const discovery = api as unknown as {
    resource(apiVersion: string, kind: string): Promise<{ namespaced: boolean } | undefined>;
  };
  try {
    return await discovery.resource(apiVersion, kind);
  } catch (err) {
    // A group or version the cluster does not serve at all.
    if ((err as { code?: unknown }).code === 404) return undefined;
    throw err;
  }
}

/**
 * The prune half alone: deletes the objects carrying the owner labels of `plan.owned` that are
 * not in `plan.desired`, which is not applied. For a caller that must not prune after an apply
 * that failed (a failed upgrade keeps what ran before), and for removing everything (no desired).
 */
export function pruneClusterObjects(api: KubernetesObjectApi, server: string, plan: ApplyPlan): Promise<ApplyResult> {
  return pruneUndesired(api, (p) => withDeadline(p, plan.timeoutMs, server), server, plan);
}

async function pruneUndesired(
  api: KubernetesObjectApi,
  call: <T>(p: Promise<T>) => Promise<T>,
  server: string,
  plan: ApplyPlan,
): Promise<Omit<ApplyResult, "unreachable"> & { unreachable?: ClusterConnectionError }> {
  const keep = new Set(plan.desired.map((d) => keyOf(refOf(d))));
  const outcomes: ObjectOutcome[] = [];
  const removed: ObjectRef[] = [];
  for (const owned of plan.owned) {
    let items: KubernetesObject[];
    try {
      // A kind the cluster no longer serves has no objects left to remove.
      if (!(await call(discover(api, owned.apiVersion, owned.kind)))) continue;
      const list = await call(
        api.list(
          owned.apiVersion,
          owned.kind,
          owned.namespace,
          undefined,
          undefined,
          undefined,
          undefined,
          owned.labelSelector,
        ),
      );
      items = list.items;
    } catch (err) {
      const e = classifyError(err, server);
      if (isUnreachable(e)) return { outcomes, removed, unreachable: e };
      outcomes.push({
        apiVersion: owned.apiVersion,
        kind: owned.kind,
        name: `(list of ${owned.kind}s)`,
        action: "list",
        ok: false,
        reason: e.reason,
        message: e.message,
      });
      continue;
    }
    for (const obj of items) {
      const ref = refOf({ ...obj, apiVersion: owned.apiVersion, kind: owned.kind });
      if (keep.has(keyOf(ref))) continue;
      try {
        await call(
          api.delete({
            apiVersion: ref.apiVersion,
            kind: ref.kind,
            metadata: { name: ref.name, namespace: ref.namespace },
          }),
        );
        removed.push(ref);
      } catch (err) {
        const e = classifyError(err, server);
        if (e.httpStatus === 404) continue; // gone already
        if (isUnreachable(e)) return { outcomes, removed, unreachable: e };
        outcomes.push({
          ...ref,
          action: "remove",
          ok: false,
          reason: "RemoveFailed",
          message: e.message,
          labels: obj.metadata?.labels ?? {},
        });
      }
    }
  }
  return { outcomes, removed };
}
