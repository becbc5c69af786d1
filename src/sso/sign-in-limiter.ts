import { LruMap } from "toad-cache";
import { SIGN_IN_LIMIT_DEFAULTS, type SignInLimits } from "./sign-in-limits.js";

export { SIGN_IN_LIMIT_DEFAULTS, type SignInLimits };

/** Why a sign-in was refused, and when to try again. */
export interface SignInRefusal {
  scope: "address" | "global";
  retryAfterSeconds: number;
}

/** A token bucket: `capacity` tokens, refilled at `perMs` tokens per millisecond. */
interface Bucket {
  tokens: number;
  at: number;
}

/**
 * Token buckets on starting a sign-in: one per client address (kept in an LRU map of bounded
 * size), and one for the whole process. A sign-in takes a token from both or from neither, so a
 * refused request costs its address nothing more. An address forgotten by the LRU comes back with
 * a full burst; the global bucket still bounds what many addresses together start.
 */
export class SignInLimiter {
  readonly #addresses: LruMap<Bucket>;
  readonly #global: Bucket;
  readonly #addressRate: number;
  readonly #globalRate: number;

  constructor(
    readonly limits: SignInLimits = SIGN_IN_LIMIT_DEFAULTS,
    private readonly now: () => number = Date.now,
  ) {
    this.#addressRate = limits.perAddressPerMinute / 60_000;
    this.#globalRate = limits.globalPerSecond / 1000;
    this.#global = { tokens: limits.globalPerSecond, at: now() };
    this.#addresses = new LruMap<Bucket>(limits.maxAddresses);
  }

  /** Takes a token for `address`, or says why not (then nothing is taken). */
  take(address: string): SignInRefusal | undefined {
    const now = this.now();
    const own = this.#bucketOf(address, now);
    refill(own, now, this.limits.burstPerAddress, this.#addressRate);
    refill(this.#global, now, this.limits.globalPerSecond, this.#globalRate);
    if (own.tokens < 1) return { scope: "address", retryAfterSeconds: waitSeconds(own, this.#addressRate) };
    if (this.#global.tokens < 1)
      return { scope: "global", retryAfterSeconds: waitSeconds(this.#global, this.#globalRate) };
    own.tokens -= 1;
    this.#global.tokens -= 1;
    return undefined;
  }

  /** How many addresses are remembered (bounded by `maxAddresses`). */
  get size(): number {
    return this.#addresses.size;
  }

  #bucketOf(address: string, now: number): Bucket {
    const known = this.#addresses.get(address);
    if (known) return known;
    const bucket = { tokens: this.limits.burstPerAddress, at: now };
    this.#addresses.set(address, bucket);
    return bucket;
  }
}

function refill(bucket: Bucket, now: number, capacity: number, perMs: number): void {
  // A clock that stepped back refills nothing (and does not drain).
  const elapsed = Math.max(0, now - bucket.at);
  bucket.tokens = Math.min(capacity, bucket.tokens + elapsed * perMs);
  bucket.at = now;
}

/** Whole seconds until the bucket holds a token again (at least 1). */
function waitSeconds(bucket: Bucket, perMs: number): number {
  if (perMs <= 0) return 3600;
  return Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000));
}
