/**
 * Finds keys given twice in one JSON object (JSON.parse silently keeps the last).
 * A single pass over the text that tracks strings, nesting and the key set of each
 * open object; returns paths like `metadata.name`. Assumes the text already parsed.
 */
export function findDuplicateJsonKeys(text: string): string[] {
  // Fast path: no object has a repeated key unless some key text repeats at all.
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
