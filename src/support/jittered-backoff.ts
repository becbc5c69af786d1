/**
 * The delay before the retry that follows `failures` failures in a row: min × 2^(failures−1),
 * capped at max, then drawn from its upper half. Processes that lost the same dependency together
 * (every replica that lost etcd, every informer of one replica) then do not all retry at the same
 * instants, while each still waits at least half the plain exponential delay.
 */
export function jitteredBackoffMs(failures: number, minMs: number, maxMs: number, random = Math.random): number {
  const max = Math.max(minMs, maxMs);
  const ceiling = Math.min(max, minMs * 2 ** Math.min(30, Math.max(0, failures - 1)));
  return ceiling / 2 + random() * (ceiling / 2);
}
