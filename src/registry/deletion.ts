import { type KubeObject, nowTimestamp } from "../api/object.js";
import type { DeleteOptions } from "./options.js";

/** The finalizers the garbage collector acts on (Kubernetes' names). */
export const FOREGROUND_FINALIZER = "foregroundDeletion";
export const ORPHAN_FINALIZER = "orphan";

/** When a terminating object may go: its deletionTimestamp (now + grace period at delete time). */
export function deletionDeadline(obj: KubeObject): number | undefined {
  const ts = obj.metadata.deletionTimestamp;
  if (!ts) return undefined;
  const t = Date.parse(ts);
  return Number.isNaN(t) ? undefined : t;
}

/** A terminating object with no finalizers left whose deadline has passed is removed. */
export function readyToRemove(obj: KubeObject, now: Date): boolean {
  const deadline = deletionDeadline(obj);
  if (deadline === undefined) return false;
  return (obj.metadata.finalizers ?? []).length === 0 && deadline <= now.getTime();
}

/**
 * What a DELETE does to an object (k8s rest.BeforeDelete plus the garbage collector's
 * propagation finalizers): "remove" it now, leave it "unchanged" (already terminating, the
 * deadline is not shortened), or the terminating object to store.
 *
 * - Foreground adds the `foregroundDeletion` finalizer, Orphan the `orphan` finalizer; the
 *   garbage collector removes them once dependents are handled. Background (the default)
 *   removes the object now and leaves dependents to the collector.
 * - With finalizers, deletionTimestamp is now + gracePeriodSeconds: the object goes when the
 *   finalizers are gone and that time has passed. A later delete may only bring it forward.
 * - Without finalizers the grace period is not waited for: none of these kinds has anything
 *   that terminates gracefully (as for every Kubernetes kind but Pods).
 */
export function planDeletion(
  current: KubeObject,
  options: DeleteOptions,
  now: Date,
): "remove" | "unchanged" | KubeObject {
  const m = current.metadata;
  const grace = options.gracePeriodSeconds;
  if (!m.deletionTimestamp) {
    const finalizers = [...(m.finalizers ?? [])];
    const policyFinalizer =
      options.propagationPolicy === "Foreground"
        ? FOREGROUND_FINALIZER
        : options.propagationPolicy === "Orphan"
          ? ORPHAN_FINALIZER
          : undefined;
    if (policyFinalizer && !finalizers.includes(policyFinalizer)) finalizers.push(policyFinalizer);
    if (finalizers.length === 0) return "remove";
    const next = structuredClone(current);
    next.metadata.finalizers = finalizers;
    next.metadata.deletionTimestamp = nowTimestamp(new Date(now.getTime() + (grace ?? 0) * 1000));
    next.metadata.deletionGracePeriodSeconds = grace ?? 0;
    next.metadata.generation = (m.generation ?? 0) + 1;
    return next;
  }
  // Already terminating: a shorter grace period brings the deadline forward, never back.
  const deadline = deletionDeadline(current) ?? now.getTime();
  const asked = grace === undefined ? undefined : now.getTime() + grace * 1000;
  if (asked !== undefined && nowTimestamp(new Date(asked)) < nowTimestamp(new Date(deadline))) {
    const next = structuredClone(current);
    next.metadata.deletionTimestamp = nowTimestamp(new Date(asked));
    next.metadata.deletionGracePeriodSeconds = grace;
    return readyToRemove(next, now) ? "remove" : next;
  }
  return readyToRemove(current, now) ? "remove" : "unchanged";
}
