import { errors } from "../api/errors.js";

/**
 * Counts failed authentications per source address in fixed one-minute windows; past the
 * limit the address gets 429 with Retry-After until its window ends (guessing keys stays slow).
 */
export class FailedAuthLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly limitPerWindow: number,
    private readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Throws 429 when the address used up its failures for this window. */
  check(address: string): void {
    const w = this.blockingWindow(address);
    if (w) {
      const retryAfter = Math.max(1, Math.ceil((w.start + this.windowMs - this.now()) / 1000));
      throw errors.tooManyRequests(
        "too many failed authentication attempts from this address; retry later",
        retryAfter,
      );
    }
  }

  /** Whether check() would throw, without throwing. */
  isBlocked(address: string): boolean {
    return this.blockingWindow(address) !== undefined;
  }

  /** The address's window when it has used up its failures. */
  private blockingWindow(address: string): { start: number; count: number } | undefined {
    const w = this.current(address);
    return w && w.count >= this.limitPerWindow ? w : undefined;
  }

  fail(address: string): void {
    const w = this.current(address);
    if (w) w.count++;
    else this.windows.set(address, { start: this.now(), count: 1 });
    if (this.windows.size > 10_000) this.prune();
  }

  private current(address: string): { start: number; count: number } | undefined {
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
}
