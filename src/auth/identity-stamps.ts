/**
 * When each thing an identity is built from last changed, on one logical clock, so that a cached
 * identity (authenticator.ts) or role set (authorizer.ts) is dropped by the changes that can alter
 * it and by no other. A cached value remembers the clock when it was built (its stamp) and the
 * names of what it was built from (identity-dependencies.ts); it holds while none of them changed
 * after its stamp and nothing dropped everything after it.
 *
 * Nothing is ever forgotten on its own: a name's entry goes only with dropAll(), which makes every
 * value built before it stale. So an object deleted and created again under the same name cannot
 * bring an old entry back to an older time.
 */
export class IdentityStamps {
  private clock = 0;
  /** The clock at the last dropAll(): everything stamped before it is stale. */
  private everything = 0;
  private readonly changed = new Map<string, number>();

  constructor(
    /** Past this many remembered names, the next change drops everything and starts over (bounded memory). */
    private readonly maxNames = 100_000,
  ) {}

  /** The stamp of a value built now. */
  get now(): number {
    return this.clock;
  }

  /** What `name` names changed: every value built from it before now is stale. */
  touch(name: string): void {
    if (this.changed.size >= this.maxNames) {
      this.dropAll();
      return;
    }
    this.changed.set(name, ++this.clock);
  }

  /** A change whose reach is unknown (fail closed): every value built before now is stale. */
  dropAll(): void {
    this.changed.clear();
    this.everything = ++this.clock;
  }

  /** Whether a value built at `stamp` from `names` still holds. */
  unchangedSince(names: readonly string[], stamp: number): boolean {
    if (stamp === this.clock) return true;
    if (this.everything > stamp) return false;
    for (const n of names) if ((this.changed.get(n) ?? 0) > stamp) return false;
    return true;
  }
}
