import { errors } from "../api/errors.js";

/** Keys remembered per address as having authenticated from it; the oldest is forgotten first. */
const GOOD_KEYS_PER_ADDRESS = 64;

/** How long a key that authenticated from an address stays exempt from that address's block. */
const GOOD_KEY_MEMORY_MS = 24 * 3600_000;

interface AddressRecord {
  /** Start of the current failure window, and the failures counted in it. */
  start: number;
  count: number;
}

/**
 * Counts failed authentications per source address in fixed one-minute windows; past the
 * limit the address gets 429 with Retry-After until its window ends, so guessing keys stays slow.
 *
 * A key that authenticated from the address before the block is exempt (callers pass the key's
 * hash): one client with a stale key behind a shared NAT or proxy must not lock every colleague
 * out. A key never seen from the address could be a guess, and waits.
 */
export class FailedAuthLimiter {
  private readonly windows = new Map<string, AddressRecord>();
  /** Per address: key hash → when it last authenticated from there (insertion order = age). */
  private readonly goodKeys = new Map<string, Map<string, number>>();

  constructor(
    private readonly limitPerWindow: number,
    private readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Throws 429 when the address used up its failures for this window and the key is not known there. */
  check(address: string, keyHash?: string): void {
    const w = this.blockingWindow(address, keyHash);
    if (w) {
      const retryAfter = Math.max(1, Math.ceil((w.start + this.windowMs - this.now()) / 1000));
      throw errors.tooManyRequests(
        "too many failed authentication attempts from this address; retry later",
        retryAfter,
      );
    }
  }

  /** Whether check() would throw, without throwing. */
  isBlocked(address: string, keyHash?: string): boolean {
    return this.blockingWindow(address, keyHash) !== undefined;
  }

  fail(address: string): void {
    const w = this.current(address);
    if (w) w.count++;
    else this.windows.set(address, { start: this.now(), count: 1 });
    if (this.windows.size > 10_000) this.prune();
  }

  /** The key authenticated from the address: it stays exempt from the address's blocks. */
  succeed(address: string, keyHash: string): void {
    let keys = this.goodKeys.get(address);
    if (!keys) {
      if (this.goodKeys.size >= 10_000) this.pruneGoodKeys();
      keys = new Map();
      this.goodKeys.set(address, keys);
    }
    keys.delete(keyHash);
    keys.set(keyHash, this.now());
    if (keys.size > GOOD_KEYS_PER_ADDRESS) keys.delete(keys.keys().next().value as string);
  }

  private blockingWindow(address: string, keyHash: string | undefined): AddressRecord | undefined {
    const w = this.current(address);
    if (!w || w.count < this.limitPerWindow) return undefined;
    return keyHash !== undefined && this.isGoodKey(address, keyHash) ? undefined : w;
  }

  private isGoodKey(address: string, keyHash: string): boolean {
    const seen = this.goodKeys.get(address)?.get(keyHash);
    return seen !== undefined && this.now() - seen < GOOD_KEY_MEMORY_MS;
  }

  private current(address: string): AddressRecord | undefined {
    const w = this.windows.get(address);
    if (w && this.now() - w.start >= this.windowMs) {
      this.windows.delete(address);
      return undefined;
    }
    return w;
  }

  private prune(): void {
    for (const [addr, w] of this.windows) if (this.now() - w.start >= this.windowMs) this.windows.delete(addr);
  }

  private pruneGoodKeys(): void {
    for (const [addr, keys] of this.goodKeys) {
      for (const [hash, seen] of keys) if (this.now() - seen >= GOOD_KEY_MEMORY_MS) keys.delete(hash);
      if (keys.size === 0) this.goodKeys.delete(addr);
    }
    // Still full: forget the oldest addresses (a flood of distinct sources).
    for (const addr of this.goodKeys.keys()) {
      if (this.goodKeys.size < 10_000) break;
      this.goodKeys.delete(addr);
    }
  }
}
