/**
 * The order of keys and the end of a prefix's range, one definition for every backend and the
 * watch cache. Keys are compared as their UTF-8 bytes: etcd compares bytes, SQLite compares
 * TEXT with the BINARY collation (UTF-8 bytes), and for well-formed strings byte order is code
 * point order. JavaScript's `<` compares UTF-16 code units instead, which differs for one case:
 * U+E000..U+FFFF sort below U+10000 and above as bytes, above them as code units (a surrogate
 * pair starts with 0xD800..0xDBFF). Keys are well-formed strings (a lone surrogate is stored as
 * U+FFFD by both backends; the API's names never contain one).
 */

/**
 * The smallest string greater than every string that starts with `prefix`, in key order, or
 * undefined when there is none (empty prefix, or one made only of U+10FFFF).
 *
 * The last code point below U+10FFFF is incremented (U+D7FF to U+E000, over the surrogates) and
 * what follows it dropped: "a\u{10FFFF}" ends at "b", "a\uFFFF" at "a\u{10000}". Its UTF-8 bytes
 * are a byte range end that bounds exactly the same keys (etcd's range_end).
 */
export function prefixEnd(prefix: string): string | undefined {
  let i = prefix.length;
  while (i > 0) {
    let start = i - 1;
    const unit = prefix.charCodeAt(start);
    if (unit >= 0xdc00 && unit <= 0xdfff && start > 0) {
      const high = prefix.charCodeAt(start - 1);
      if (high >= 0xd800 && high <= 0xdbff) start--;
    }
    const code = prefix.codePointAt(start)!;
    if (code < 0x10ffff) return prefix.slice(0, start) + String.fromCodePoint(code === 0xd7ff ? 0xe000 : code + 1);
    i = start;
  }
  return undefined;
}

/** Units at or above U+D800: only strings with one can order differently as UTF-16 and as bytes. */
const HIGH_UNITS = /[\ud800-\uffff]/;

/** Whether `key` orders the same with `<` as in key order against any string (it has no unit ≥ U+D800). */
export function ordersNatively(key: string): boolean {
  return !HIGH_UNITS.test(key);
}

/**
 * a < b in key order (UTF-8 bytes). Equals `a < b` unless, at the first differing unit, both
 * are at or above U+D800: there surrogates (the start of a code point above U+FFFF) rank above
 * U+E000..U+FFFF.
 */
export function keyBefore(a: string, b: string): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return x >= 0xd800 && y >= 0xd800 ? rank(x) < rank(y) : x < y;
  }
  return a.length < b.length;
}

/** A comparator in key order, for sort(). */
export function compareKeys(a: string, b: string): number {
  if (a === b) return 0;
  return keyBefore(a, b) ? -1 : 1;
}

/** A unit ≥ U+D800 mapped so that number order is code point order: E000..FFFF below the surrogates. */
function rank(unit: number): number {
  return unit >= 0xe000 ? unit - 0x800 : unit + 0x2000;
}

/**
 * `key.startsWith(prefix)`, cheaper on node 20 (V8's startsWith pays a fixed cost per call even
 * when the first units differ), which matters where every watch event is checked against
 * every watch (queued-watcher.ts). Compared from the end: sibling prefixes (one per resource)
 * differ in their last segment, so a key that is not under one is usually told in a few units.
 */
export function hasPrefix(key: string, prefix: string): boolean {
  const n = prefix.length;
  if (key.length < n) return false;
  for (let i = n - 1; i >= 0; i--) if (key.charCodeAt(i) !== prefix.charCodeAt(i)) return false;
  return true;
}
