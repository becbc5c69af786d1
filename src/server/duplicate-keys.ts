import { closingQuote } from "../api/nesting-depth.js";

/**
 * Finds keys given twice in one JSON object (JSON.parse silently keeps the last).
 * A single pass over the text that tracks strings, nesting and the key set of each
 * open object; returns paths like `metadata.name`. Assumes the text already parsed.
 */
export function findDuplicateJsonKeys(text: string, parsed?: unknown): string[] {
  // Each repeated key is one key fewer in what JSON.parse made of the text: when the counts
  // agree (nearly every body), there is nothing to find and no path to build.
  if (parsed !== undefined && keysInText(text) === keysInValue(parsed)) return [];
  const found: string[] = [];
  type Frame = { keys: Set<string> | undefined; path: string; index: number; pendingKey?: string };
  const stack: Frame[] = [];
  let i = 0;
  const n = text.length;
  let expectKey = false;
  let lastKey: string | undefined;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      let j = i + 1;
      let hasEscape = false;
      while (j < n) {
        const d = text.charCodeAt(j);
        if (d === 0x5c) {
          hasEscape = true;
          j += 2;
          continue;
        }
        if (d === 0x22) break;
        j++;
      }
      const raw = text.slice(i + 1, j);
      const str = hasEscape ? (JSON.parse(`"${raw}"`) as string) : raw;
      const top = stack.at(-1);
      if (expectKey && top?.keys) {
        if (top.keys.has(str)) found.push(top.path ? `${top.path}.${str}` : str);
        top.keys.add(str);
        lastKey = str;
        expectKey = false;
      }
      i = j + 1;
      continue;
    }
    if (c === 0x7b /* { */) {
      const parent = stack.at(-1);
      stack.push({ keys: new Set(), path: childPath(parent, lastKey), index: 0 });
      expectKey = true;
      lastKey = undefined;
    } else if (c === 0x5b /* [ */) {
      const parent = stack.at(-1);
      stack.push({ keys: undefined, path: childPath(parent, lastKey), index: 0 });
      lastKey = undefined;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
      lastKey = undefined;
    } else if (c === 0x2c /* , */) {
      const top = stack.at(-1);
      if (top?.keys) expectKey = true;
      else if (top) top.index++;
      lastKey = undefined;
    }
    i++;
  }
  return found;
}

function childPath(
  parent: { keys: Set<string> | undefined; path: string; index: number } | undefined,
  key: string | undefined,
): string {
  if (!parent) return "";
  if (parent.keys) return parent.path ? `${parent.path}.${key ?? ""}` : (key ?? "");
  return `${parent.path}[${parent.index}]`;
}

/** How many object keys a JSON text holds: the strings followed by `:`. */
function keysInText(text: string): number {
  let keys = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    if (text.charCodeAt(i) !== 0x22 /* " */) continue;
    i = closingQuote(text, i);
    let j = i + 1;
    while (j < n && isJsonSpace(text.charCodeAt(j))) j++;
    if (text.charCodeAt(j) === 0x3a /* : */) keys++;
  }
  return keys;
}

function isJsonSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** How many keys the objects in a parsed JSON value hold (its depth was checked before parsing). */
function keysInValue(value: unknown): number {
  if (value === null || typeof value !== "object") return 0;
  let keys = 0;
  if (Array.isArray(value)) {
    for (const item of value) keys += keysInValue(item);
    return keys;
  }
  for (const k of Object.keys(value)) keys += 1 + keysInValue((value as Record<string, unknown>)[k]);
  return keys;
}
