import { withTransitionTime } from "../condition-times.js";

/** One entry of `status.conditions`, as the kinds' ConditionsSchema admits it. */
export interface Condition {
  type: string;
  status: "True" | "False" | "Unknown";
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

/**
 * `conditions` with `next` in place of the entry of its type. The transition time moves only
 * when the status does (as Kubernetes' meta.SetStatusCondition), so rewriting the same state
 * leaves the object unchanged.
 */
export function withCondition(conditions: Condition[] | undefined, next: Condition, now: Date): Condition[] {
  const others = (conditions ?? []).filter((c) => c.type !== next.type);
  return [...others, withTransitionTime(next, conditions, now.toISOString())];
}

export function withoutCondition(conditions: Condition[] | undefined, type: string): Condition[] {
  return (conditions ?? []).filter((c) => c.type !== type);
}
