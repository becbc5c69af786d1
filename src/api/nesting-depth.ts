/**
 * The nesting limit of request bodies and the objects they produce. Decoding, pruning,
 * patching and managed-fields code all recurse over objects; a body nested 10,000 levels
 * deep would overflow the stack in one of them. Bodies are checked before they are parsed
 * (a cheap scan of the text) and objects before anything recurses over them (an explicit
 * stack, no recursion here).
 */

/** The deepest nesting of objects and arrays any body or stored object may have. */
export const MAX_NESTING_DEPTH = 100;

/**
 * True when the brackets of a JSON (or YAML flow) text open deeper than `limit`.
 * Brackets inside double-quoted strings do not count; the text need not be valid.
 */
export function textNestingExceeds(text: string, limit = MAX_NESTING_DEPTH): boolean {
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      i = closingQuote(text, i);
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > limit) return true;
    } else if ((c === 0x7d /* } */ || c === 0x5d) /* ] */ && depth > 0) {
      depth--;
    }
  }
  return false;
}

/**
 * Where the string opened by the `"` at `open` ends: the index of its closing quote, or the
 * text's length when it is not closed. A quote is escaped when an odd number of backslashes
 * precede it, which is what reading the string one character at a time (a backslash skipping
 * the next one) concludes; indexOf jumps over long strings (annotations, descriptions) in
 * native code instead.
 */
export function closingQuote(text: string, open: number): number {
  for (let at = text.indexOf('"', open + 1); at >= 0; at = text.indexOf('"', at + 1)) {
    let backslashes = 0;
    while (at - backslashes - 1 > open && text.charCodeAt(at - backslashes - 1) === 0x5c /* \ */) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
  return text.length;
}

/** True when objects and arrays in `value` nest deeper than `limit` (the top level is depth 1). */
export function valueNestingExceeds(value: unknown, limit = MAX_NESTING_DEPTH): boolean {
  if (value === null || typeof value !== "object") return false;
  const stack: [object, number][] = [[value, 1]];
  for (let top = stack.pop(); top; top = stack.pop()) {
    const [node, depth] = top;
    if (depth > limit) return true;
    const children = Array.isArray(node) ? node : Object.values(node);
    for (const child of children) {
      if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
    }
  }
  return false;
}

/** The message of a refusal of too deep a body or object. */
export function nestingMessage(what: string): string {
  return `${what} is nested too deeply: objects and arrays may nest at most ${MAX_NESTING_DEPTH} levels`;
}
