/**
 * `${name}` placeholders in a space's labels, annotations and objects, filled in with the
 * template's parameters and the built-ins (`${space.name}`, `${space.namespace}`, `${project}`).
 * `$${` writes a literal `${` (a script in a ConfigMap keeps its shell variables). Pure.
 */

/** A value a placeholder takes: parameters are typed (number, boolean) or strings. */
export type PlaceholderValue = string | number | boolean;

/** `$${…}` (escaped, group 1 is "$") or `${name}` (group 2 is the name). */
const PLACEHOLDER = /\$(\$?)\{([^}]*)\}/g;
const WHOLE = /^\$\{([^}]*)\}$/;

/** Every placeholder name used in the strings of `value` (keys left alone), without the escaped ones. */
export function placeholdersIn(value: unknown): Set<string> {
  const found = new Set<string>();
  walkStrings(value, (s) => {
    for (const m of s.matchAll(PLACEHOLDER)) if (m[1] === "") found.add(m[2]!.trim());
    return s;
  });
  return found;
}

/**
 * `value` with its placeholders filled in. A string that is exactly one placeholder takes the
 * value's own type (`replicas: ${replicas}` with a number parameter is a number); one inside
 * longer text is written as text. An unknown name is left as written (validation refuses it first).
 */
export function fillPlaceholders<T>(value: T, values: Readonly<Record<string, PlaceholderValue>>): T {
  return walkStrings(value, (s) => {
    const whole = WHOLE.exec(s);
    if (whole) {
      const v = values[whole[1]!.trim()];
      if (v !== undefined) return v;
    }
    return s.replace(PLACEHOLDER, (all, escaped: string, name: string) => {
      if (escaped) return all.slice(1);
      const v = values[name.trim()];
      return v === undefined ? all : String(v);
    });
  }) as T;
}

function walkStrings(value: unknown, fn: (s: string) => unknown): unknown {
  if (typeof value === "string") return fn(value);
  if (Array.isArray(value)) return value.map((v) => walkStrings(v, fn));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = walkStrings(v, fn);
    return out;
  }
  return value;
}
