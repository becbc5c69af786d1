import { type KubeObject, specOf, statusOf } from "../../api/object.js";
import type { VirtualClusterInstanceSpec } from "./virtual-cluster-instance.js";
import type { VirtualClusterInstanceStatus } from "./virtual-cluster-instance-status.js";

/**
 * What an instance's idle time calls for (docs/virtual-clusters.md, "Sleep mode"): pure, so the
 * status controller, which acts on it, and its tests read the same rule.
 */
export type IdleVerdict =
  /** spec.deleteAfter seconds have passed without activity. */
  | { readonly action: "delete"; readonly idleSeconds: number }
  /** spec.sleepAfter seconds have passed without activity and it is awake. */
  | { readonly action: "sleep"; readonly idleSeconds: number }
  /** Nothing yet; `recheckInMs` is when the next deadline falls, if one is set. */
  | { readonly action: "none"; readonly recheckInMs?: number };

/**
 * The moment activity was last seen: the last request through the gateway or wake-up
 * (status.lastActivity), or the instance's creation when nothing was recorded since.
 */
export function lastActiveMs(instance: KubeObject): number {
  const recorded = Date.parse(statusOf<VirtualClusterInstanceStatus>(instance).lastActivity ?? "");
  const created = Date.parse(instance.metadata.creationTimestamp ?? "");
  return Math.max(Number.isNaN(recorded) ? 0 : recorded, Number.isNaN(created) ? 0 : created);
}

export function idleVerdict(instance: KubeObject, nowMs: number): IdleVerdict {
  const spec = specOf<VirtualClusterInstanceSpec>(instance);
  const asleep = statusOf<VirtualClusterInstanceStatus>(instance).sleep !== undefined;
  const idleMs = Math.max(0, nowMs - lastActiveMs(instance));
  const idleSeconds = Math.floor(idleMs / 1000);
  const deleteMs = (spec.deleteAfter ?? 0) * 1000;
  const sleepMs = asleep ? 0 : (spec.sleepAfter ?? 0) * 1000;
  if (deleteMs > 0 && idleMs >= deleteMs) return { action: "delete", idleSeconds };
  if (sleepMs > 0 && idleMs >= sleepMs) return { action: "sleep", idleSeconds };
  const deadlines = [deleteMs, sleepMs].filter((ms) => ms > 0).map((ms) => ms - idleMs);
  return deadlines.length ? { action: "none", recheckInMs: Math.min(...deadlines) } : { action: "none" };
}
