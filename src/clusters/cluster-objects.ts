import { applyNeeded } from "./apply-needed.js";
import { type ClusterConnectionError, classifyError, withDeadline } from "./cluster-connection.js";
import type { ClusterObjectClient, ObjectName, RawObject } from "./object-client.js";

/**
 * The one way the platform keeps a set of objects on a connected cluster (cluster access,
 * spaces, virtual clusters): the objects carrying the caller's owner labels are listed, kind by
 * kind; each desired object is compared with the one on the cluster (apply-needed.ts) and
 * applied with server-side apply under the caller's field manager, in the order given, only
 * when it is missing or differs, so a pass that changes nothing writes nothing; then the listed
 * objects that are no longer desired are deleted, kind by kind in the order given. Objects
 * without those labels are never listed, so never touched. Never throws: every object's outcome
 * is reported (an object already as desired is applied ok), and a cluster that cannot be used at
 * all is returned as `unreachable` for the caller to retry with backoff.
 */

/** A manifest as server-side apply takes it: any kind, namespaced (metadata.namespace) or not. */
export interface ClusterObject extends RawObject {
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

/** Which object an outcome is about: the object client's name of it. */
export type ObjectRef = ObjectName;

/** What happened to one object. */
export interface ObjectOutcome extends ObjectRef {
  /** Applied: it is on the cluster as desired. Removed: it was deleted as no longer desired. */
  action: "apply" | "remove" | "list";
  ok: boolean;
  reason?: string;
  message?: string;
  /** The labels of an object that could not be removed (they say whose it was). */
  labels?: Record<string, string>;
  /**
   * An object applied ok: its UID on the cluster (the apply's answer, or the copy that needed no
   * apply), so that a caller recording it (a namespace it created) need not read it again.
   */
  uid?: string;
}

export interface ApplyPlan {
  fieldManager: string;
  desired: readonly ClusterObject[];
  /**
   * The kinds to prune, in order (dependents before what they depend on). Their lists are also
   * what desired objects of those kinds are compared with; a desired object of another kind is
   * read (GET) before it is applied.
   */
  owned: readonly OwnedKind[];
  /** Objects the caller has just read from the cluster (a namespace it checked): compared as they are, not read again. */
  live?: readonly RawObject[];
  /** When an apply fails, nothing is pruned: a failed upgrade keeps the objects that ran before. */
  keepAllIfApplyFails?: boolean;
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
  api: ClusterObjectClient,
  server: string,
  plan: ApplyPlan,
): Promise<ApplyResult> {
  const call = <T>(p: Promise<T>) => withDeadline(p, plan.timeoutMs, server);
  const listed = await listOwned(api, call, server, plan.owned);
  const outcomes: ObjectOutcome[] = [];
  let unreachable = listed.unreachable;
  const live = new Map<string, RawObject>();
  for (const kind of listed.kinds) for (const obj of kind.items) live.set(keyOf(refOf(obj)), obj);
  for (const obj of plan.live ?? []) live.set(keyOf(refOf(obj)), obj);
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
      const current =
        live.get(keyOf(ref)) ?? (isListed(listed.kinds, ref) ? undefined : await readLive(api, call, obj));
      const onCluster: RawObject | undefined = applyNeeded(obj, current, plan.fieldManager)
        ? await call(api.apply(obj, plan.fieldManager))
        : current;
      const uid = onCluster?.metadata?.uid;
      outcomes.push({ ...ref, action: "apply", ok: true, ...(uid ? { uid } : {}) });
    } catch (err) {
      const e = classifyError(err, server);
      if (isUnreachable(e)) unreachable = e;
      // The one 404 an apply meets: the object's namespace does not exist.
      const reason = e.httpStatus === 404 && ref.namespace ? "NamespaceNotFound" : e.reason;
      outcomes.push({ ...ref, action: "apply", ok: false, reason, message: e.message });
    }
  }
  if (unreachable) return { outcomes, removed: [], unreachable };
  const keepAll = plan.keepAllIfApplyFails && outcomes.some((o) => !o.ok);
  const pruned = keepAll
    ? { outcomes: listed.kinds.flatMap((k) => k.failure ?? []), removed: [] }
    : await removeUndesired(api, call, server, plan.desired, listed.kinds);
  return { outcomes: [...outcomes, ...pruned.outcomes], removed: pruned.removed, unreachable: pruned.unreachable };
}

/** One owned kind as listed: its labelled objects, or why they could not be listed. */
interface ListedKind {
  owned: OwnedKind;
  items: RawObject[];
  failure?: ObjectOutcome;
}

/** The labelled objects of each owned kind, in order; stops at a cluster that cannot be used at all. */
async function listOwned(
  api: ClusterObjectClient,
  call: <T>(p: Promise<T>) => Promise<T>,
  server: string,
  owned: readonly OwnedKind[],
): Promise<{ kinds: ListedKind[]; unreachable?: ClusterConnectionError }> {
  const kinds: ListedKind[] = [];
  for (const kind of owned) {
    try {
      // A kind the cluster no longer serves has no objects left to remove.
      if (!(await call(api.resource(kind.apiVersion, kind.kind)))) {
        kinds.push({ owned: kind, items: [] });
        continue;
      }
      const list = await call(
        api.list(kind.apiVersion, kind.kind, { namespace: kind.namespace, labelSelector: kind.labelSelector }),
      );
      // A list's items carry no apiVersion and kind.
      const items = list.map((obj) => ({ ...obj, apiVersion: kind.apiVersion, kind: kind.kind }));
      kinds.push({ owned: kind, items });
    } catch (err) {
      const e = classifyError(err, server);
      if (isUnreachable(e)) return { kinds, unreachable: e };
      const failure: ObjectOutcome = {
        apiVersion: kind.apiVersion,
        kind: kind.kind,
        name: `(list of ${kind.kind}s)`,
        action: "list",
        ok: false,
        reason: e.reason,
        message: e.message,
      };
      kinds.push({ owned: kind, items: [], failure });
    }
  }
  return { kinds };
}

/**
 * Whether a list read just now covers where `ref` would be: not in it, the object is missing (or
 * lost the owner labels, which its apply puts back).
 */
function isListed(kinds: readonly ListedKind[], ref: ObjectRef): boolean {
  return kinds.some(
    ({ owned, failure }) =>
      !failure &&
      owned.apiVersion === ref.apiVersion &&
      owned.kind === ref.kind &&
      (owned.namespace === undefined || owned.namespace === ref.namespace),
  );
}

/** The object as the cluster has it; undefined when it is missing or cannot be read (the apply then decides). */
async function readLive(
  api: ClusterObjectClient,
  call: <T>(p: Promise<T>) => Promise<T>,
  obj: ClusterObject,
): Promise<RawObject | undefined> {
  try {
    return await call(api.get(refOf(obj)));
  } catch (err) {
    // Unreachable: the apply meets it too, and reports it.
    if (isUnreachable(classifyError(err, ""))) throw err;
    return undefined;
  }
}

/**
 * Why an object must not be applied as written: its kind is not served, or its namespace does
 * not match the kind's scope (the client would silently write a cluster-scoped object that
 * names a namespace cluster-wide).
 */
async function scopeProblem(
  api: ClusterObjectClient,
  call: <T>(p: Promise<T>) => Promise<T>,
  obj: ClusterObject,
): Promise<{ reason: string; message: string } | undefined> {
  // Asked first: a kind the cluster does not serve must not read as a missing namespace (a 404).
  const resource = await call(api.resource(obj.apiVersion, obj.kind));
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
 * The prune half alone: deletes the objects carrying the owner labels of `plan.owned` that are
 * not in `plan.desired`, which is not applied: for removing everything (no desired).
 */
export async function pruneClusterObjects(
  api: ClusterObjectClient,
  server: string,
  plan: ApplyPlan,
): Promise<ApplyResult> {
  const call = <T>(p: Promise<T>) => withDeadline(p, plan.timeoutMs, server);
  const listed = await listOwned(api, call, server, plan.owned);
  if (listed.unreachable) {
    return { outcomes: listed.kinds.flatMap((k) => k.failure ?? []), removed: [], unreachable: listed.unreachable };
  }
  return removeUndesired(api, call, server, plan.desired, listed.kinds);
}

/** Deletes the listed objects not in `desired`, kind by kind; a kind that could not be listed reports it. */
async function removeUndesired(
  api: ClusterObjectClient,
  call: <T>(p: Promise<T>) => Promise<T>,
  server: string,
  desired: readonly ClusterObject[],
  kinds: readonly ListedKind[],
): Promise<ApplyResult> {
  const keep = new Set(desired.map((d) => keyOf(refOf(d))));
  const outcomes: ObjectOutcome[] = [];
  const removed: ObjectRef[] = [];
  for (const { items, failure } of kinds) {
    if (failure) outcomes.push(failure);
    for (const obj of items) {
      const ref = refOf(obj);
      if (keep.has(keyOf(ref))) continue;
      try {
        await call(api.delete(ref));
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
