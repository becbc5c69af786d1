/**
 * Prefix matching as a key range, so that SQL never sees LIKE wildcards ('%' and '_' are
 * ordinary characters in keys) and the (name, revision) index answers the lookup.
 */

/**
 * The smallest string greater than every string that starts with `prefix`, or undefined when
 * no such bound exists (empty prefix, or a prefix made only of U+FFFF).
 *
 * SQLite compares TEXT with the BINARY collation (UTF-8 bytes). For keys without surrogate pairs
 * that order equals UTF-16 code-unit order, which is what this computes; callers still check
 * `startsWith` on what they return, so an exotic key can never leak into a result.
 */
export function prefixEnd(prefix: string): string | undefined {
  for (let i = prefix.length - 1; i >= 0; i--) {
    const code = prefix.charCodeAt(i);
    if (code === 0xffff) continue;
    // Never produce a lone surrogate: SQLite would store it as U+FFFD and the bound would be wrong.
    const next = code + 1 >= 0xd800 && code + 1 <= 0xdfff ? 0xe000 : code + 1;
    return prefix.slice(0, i) + String.fromCharCode(next);
  }
  return undefined;
}
