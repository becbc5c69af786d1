import { compareKeys, keyBefore, ordersNatively } from "../key-range.js";

/**
 * The keys of a watch cache in key order (UTF-8 bytes, as the storage lists them: key-range.ts),
 * for ranges and pagination. Writes far outnumber lists,
 * so changes are only noted (a set of keys added, a set of keys removed) and merged into the
 * sorted array when a range is next read: O(changes · log changes + keys) once per read
 * instead of an O(keys) array splice per write (a create of the 100,000th object moved
 * 100,000 references).
 */
export class SortedKeys {
  private sorted: string[] = [];
  /** Keys not in `sorted` yet. */
  private readonly added = new Set<string>();
  /** Keys still in `sorted` but gone. */
  private readonly removed = new Set<string>();
  /**
   * True while no key has a unit at or above U+D800 (API names never do): then `<` is key order
   * against any string, and costs less than keyBefore. It stays false once a key needed it.
   */
  private native = true;

  /** Keys given in ascending order (a storage list), replacing what was there. */
  reset(ascending: string[]): void {
    this.sorted = ascending;
    this.added.clear();
    this.removed.clear();
    this.native = ascending.every(ordersNatively);
  }

  /** A key that is not present now. */
  add(key: string): void {
    if (this.native && !ordersNatively(key)) this.native = false;
    if (!this.removed.delete(key)) this.added.add(key);
  }

  /** A key that is present now. */
  remove(key: string): void {
    if (!this.added.delete(key)) this.removed.add(key);
  }

  /** Every key, in ascending order (shared: do not change it). */
  keys(): readonly string[] {
    if (this.added.size > 0 || this.removed.size > 0) this.merge();
    return this.sorted;
  }

  /** The first index of keys() whose key is not below `x` in key order (from `lo`). */
  lowerBound(x: string, lo = 0): number {
    return lowerBound(this.keys(), x, lo, this.native ? undefined : keyBefore);
  }

  private merge(): void {
    const native = this.native;
    const incoming = native ? [...this.added].sort() : [...this.added].sort(compareKeys);
    const out: string[] = new Array(this.sorted.length - this.removed.size + incoming.length);
    let n = 0;
    let j = 0;
    for (const key of this.sorted) {
      if (this.removed.has(key)) continue;
      if (native) while (j < incoming.length && incoming[j]! < key) out[n++] = incoming[j++]!;
      else while (j < incoming.length && keyBefore(incoming[j]!, key)) out[n++] = incoming[j++]!;
      out[n++] = key;
    }
    while (j < incoming.length) out[n++] = incoming[j++]!;
    out.length = n;
    this.sorted = out;
    this.added.clear();
    this.removed.clear();
  }
}

/**
 * The first index of `a` whose value is not below `x` (from `lo`), in the order of `before`
 * (default `<`, which is key order when no key of `a` has a unit at or above U+D800).
 */
export function lowerBound(
  a: readonly string[],
  x: string,
  lo = 0,
  before?: (a: string, b: string) => boolean,
): number {
  let hi = a.length;
  if (before) {
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (before(a[mid]!, x)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
