/** A small seeded PRNG (mulberry32) and the choices the fuzz generators make with it. */
export class Rng {
  private state: number;

  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error("pick from nothing");
    return items[this.int(0, items.length - 1)] as T;
  }

  /** Calls one of the generators. */
  oneOf<T>(generators: readonly (() => T)[]): T {
    return this.pick(generators)();
  }

  /** `n` characters from `alphabet`. */
  string(n: number, alphabet = "abcdefghijklmnopqrstuvwxyz0123456789-."): string {
    let s = "";
    for (let i = 0; i < n; i++) s += alphabet[this.int(0, alphabet.length - 1)];
    return s;
  }
}

/** A seed from FUZZ_SEED when set (to replay a failure), else a fresh one. */
export function fuzzSeed(): number {
  const given = process.env.FUZZ_SEED;
  if (given !== undefined && given !== "") {
    const n = Number(given);
    if (!Number.isInteger(n)) throw new Error(`FUZZ_SEED must be an integer, got ${given}`);
    return n >>> 0;
  }
  return (Date.now() ^ (process.pid << 16)) >>> 0;
}
