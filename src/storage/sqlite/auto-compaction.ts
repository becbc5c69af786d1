/**
 * Automatic compaction policy: keep at least `minRevisions` revisions AND at least `minAgeMs`
 * of history, so that watchers and paginated lists that are a little behind do not get
 * "Compacted" (410 Expired) needlessly, while the log does not grow without bound.
 *
 * The log has no timestamps, so age is tracked by sampling the current revision on every tick:
 * a sample (at, revision) proves that every revision <= `revision` is at least `now - at` old.
 */

export interface AutoCompactionOptions {
  /** How often to compact. Default 60 s. */
  readonly intervalMs?: number;
  /** Revisions always kept behind the current one. Default: the store's `compactMinHistory` (10,000). */
  readonly minRevisions?: number;
  /** History younger than this is always kept. Default 5 minutes. */
  readonly minAgeMs?: number;
}

export interface RevisionSample {
  readonly at: number;
  readonly revision: number;
}

/**
 * The revision to compact to (0: nothing to do). `samples` are in time order; the ones no longer
 * needed are removed from the array (all but the newest sample old enough to count).
 */
export function compactionTarget(
  samples: RevisionSample[],
  now: number,
  currentRevision: number,
  minRevisions: number,
  minAgeMs: number,
): number {
  let oldEnough = -1;
  for (let i = 0; i < samples.length; i++) {
    if (samples[i]!.at <= now - minAgeMs) oldEnough = i;
  }
  if (oldEnough < 0) return 0;
  samples.splice(0, oldEnough);
  const byAge = samples[0]!.revision;
  const byCount = currentRevision - minRevisions;
  return Math.max(0, Math.min(byAge, byCount));
}
