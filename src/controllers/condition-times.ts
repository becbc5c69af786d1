/** What a status condition's transition time depends on: its type and status. */
interface TimedCondition {
  type: string;
  status: string;
  lastTransitionTime?: string;
}

/**
 * `condition` with its lastTransitionTime: that of the previous condition of its type while the
 * status stays the same, else `now` (Kubernetes' convention, as meta.SetStatusCondition), so that
 * writing the same state again leaves the object unchanged.
 */
export function withTransitionTime<C extends TimedCondition>(
  condition: C,
  previous: readonly TimedCondition[] | undefined,
  now: string,
): C & { lastTransitionTime: string } {
  const before = previous?.find((c) => c.type === condition.type);
  const since = before && before.status === condition.status && before.lastTransitionTime;
  return { ...condition, lastTransitionTime: since || now };
}
