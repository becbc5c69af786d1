/**
 * How an informer lists again after its watch ended with an error (informer.ts): history
 * compacted under it, a store that went away, a consumer that threw. A relist can fail too (the
 * store is unavailable at that moment), so it is tried again after a bounded exponential backoff
 * with jitter until it works or the informer stops; the copy never stays without a watch.
 */
import { jitteredBackoffMs } from "../support/jittered-backoff.js";

/** What the owner of the informers hears of an outage: once when it starts, once when it ends. */
export interface InformerOutage {
  /** The resource (plural) of the informer. */
  readonly resource: string;
  /** "failing": the first relist of this outage failed; "recovered": a relist worked after failures. */
  readonly phase: "failing" | "recovered";
  /** Failed relists so far in this outage. */
  readonly failedAttempts: number;
  /** The revision the copy is at, and stays at until a relist works. */
  readonly revision: number;
  /** The first failure's message (failing only). */
  readonly error?: string;
}

export type OnInformerOutage = (outage: InformerOutage) => void;

export interface InformerRetryOptions {
  /** First retry delay (default 100 ms); doubles with each failure in a row. */
  readonly retryMinMs?: number;
  /** Longest retry delay (default 5 s). */
  readonly retryMaxMs?: number;
}

const DEFAULT_MIN_MS = 100;
const DEFAULT_MAX_MS = 5_000;

/**
 * The delay before the retry that follows `failures` failures in a row: min × 2^(failures−1),
 * capped at max, then drawn from its upper half (jittered-backoff.ts), so the informers of every
 * kind on every replica that lost the store together do not all list again at the same instant.
 */
export function relistDelayMs(failures: number, options: InformerRetryOptions = {}, random = Math.random): number {
  return jitteredBackoffMs(
    failures,
    options.retryMinMs ?? DEFAULT_MIN_MS,
    options.retryMaxMs ?? DEFAULT_MAX_MS,
    random,
  );
}
