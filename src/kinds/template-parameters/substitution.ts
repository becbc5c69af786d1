import { isPlainObject } from "../../api/object.js";
import type { ParameterValue } from "./parameters.js";

/**
 * The `${...}` references in a template's objects and their substitution, one language for
 * every template kind. A reference is `${<name>}` or `${<name> | base64}`, where a name is
 * `params.<parameter>` or one of the kind's built-ins, each under the name of what it describes
 * (`space.name`, `instance.namespace`, `ca.crt`); `$${` writes a literal `${`.
 *
 * Substitution works on the parsed objects, never on text: a value lands in the one string it
 * is referenced from, whatever quotes, newlines or `${` it holds, and is never read again, so no
 * value can add a field, an object or another reference. A string that is one reference and
 * nothing else takes the value's type (a number parameter renders as a number); a reference
 * inside a longer string is written as text. Map keys are taken as written.
 */

export const FILTERS = ["base64"] as const;

export type Variables = ReadonlyMap<string, ParameterValue>;

interface Reference {
  name: string;
  filter?: (typeof FILTERS)[number];
}
type Piece = string | Reference;

const REFERENCE_BODY = /^\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*(?:\|\s*([A-Za-z0-9_]+)\s*)?$/;

/** A template string as literal text and references; a string describing the problem when it does not parse. */
export function parseTemplateString(text: string): Piece[] | string {
  const pieces: Piece[] = [];
  let literal = "";
  let i = 0;
  while (i < text.length) {
    if (text.startsWith("$${", i)) {
      literal += "${";
      i += 3;
      continue;
    }
    if (!text.startsWith("${", i)) {
      literal += text[i];
      i++;
      continue;
    }
    const end = text.indexOf("}", i + 2);
    if (end < 0) return `"\${" at position ${i} is not closed by "}" (write "$\${" for a literal "\${")`;
    const body = text.slice(i + 2, end);
    const m = REFERENCE_BODY.exec(body);
    if (!m) return `"\${${body}}" is not a reference such as \${params.name} or \${ca.crt | base64}`;
    const filter = m[2];
    if (filter !== undefined && !(FILTERS as readonly string[]).includes(filter)) {
      return `"\${${body}}": unknown filter "${filter}" (supported: ${FILTERS.join(", ")})`;
    }
    if (literal) pieces.push(literal);
    literal = "";
    pieces.push({ name: m[1] as string, ...(filter ? { filter: filter as Reference["filter"] } : {}) });
    i = end + 1;
  }
  if (literal || pieces.length === 0) pieces.push(literal);
  return pieces;
}

/** Every string leaf of `value` with its field path below `path` (`a.b[0].c`, map keys in brackets when not identifiers). */
export function* stringLeaves(value: unknown, path: string): Generator<{ text: string; path: string }> {
  if (typeof value === "string") yield { text: value, path };
  else if (Array.isArray(value)) for (const [i, v] of value.entries()) yield* stringLeaves(v, `${path}[${i}]`);
  else if (isPlainObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      yield* stringLeaves(v, /^[A-Za-z_][A-Za-z0-9_-]*$/.test(k) ? `${path}.${k}` : `${path}[${JSON.stringify(k)}]`);
    }
  }
}

/** The name a parameter is referred to by. */
export const parameterReference = (name: string): string => `params.${name}`;

/** The variables of one rendering: the parameters' values (as `params.<name>`) and the kind's built-ins. */
export function variablesOf(
  parameters: ReadonlyMap<string, ParameterValue>,
  builtIns: Readonly<Record<string, ParameterValue>>,
): Variables {
  const variables = new Map<string, ParameterValue>(Object.entries(builtIns));
  for (const [name, value] of parameters) variables.set(parameterReference(name), value);
  return variables;
}

/**
 * Whether a reference names a declared parameter or one of `builtIns`: what a template may
 * refer to, checked when it is written.
 */
export function knownReferences(
  parameters: readonly { name: string }[],
  builtIns: readonly string[],
): (name: string) => boolean {
  const names = new Set([...builtIns, ...parameters.map((p) => parameterReference(p.name))]);
  return (name) => names.has(name);
}

/** The problems of the references in `value`: ones that do not parse, and names `known` does not hold. */
export function referenceProblems(
  value: unknown,
  path: string,
  known: (name: string) => boolean,
): Array<{ path: string; text: string; detail: string }> {
  const problems: Array<{ path: string; text: string; detail: string }> = [];
  for (const leaf of stringLeaves(value, path)) {
    const pieces = parseTemplateString(leaf.text);
    if (typeof pieces === "string") {
      problems.push({ ...leaf, detail: pieces });
      continue;
    }
    for (const p of pieces) {
      if (typeof p !== "string" && !known(p.name)) {
        problems.push({ ...leaf, detail: `unknown reference \${${p.name}}` });
      }
    }
  }
  return problems;
}

function applyFilter(value: ParameterValue, filter: Reference["filter"]): ParameterValue {
  return filter === "base64" ? Buffer.from(String(value), "utf8").toString("base64") : value;
}

/** A string of the template that does not parse, or names a value that is not there. */
export class UnrenderableTemplate extends Error {}

/**
 * `value` with every reference replaced from `variables` (a copy; `value` is left as it was).
 * Throws UnrenderableTemplate when a string does not parse or names a variable that is not
 * there: templates are checked when they are written (referenceProblems), so only a template
 * stored before a rule changed can.
 */
export function substitute(value: unknown, variables: Variables): unknown {
  if (typeof value === "string") return substituteString(value, variables);
  if (Array.isArray(value)) return value.map((v) => substitute(v, variables));
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    // Defined, not assigned: a `__proto__` key stays a key and never becomes the prototype.
    Object.defineProperty(out, k, {
      value: substitute(v, variables),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

function substituteString(text: string, variables: Variables): ParameterValue {
  const pieces = parseTemplateString(text);
  if (typeof pieces === "string") throw new UnrenderableTemplate(pieces);
  const lookUp = (r: Reference): ParameterValue => {
    const v = variables.get(r.name);
    if (v === undefined) throw new UnrenderableTemplate(`unknown reference \${${r.name}}`);
    return applyFilter(v, r.filter);
  };
  const only = pieces.length === 1 ? pieces[0] : undefined;
  if (only !== undefined && typeof only !== "string") return lookUp(only);
  return pieces.map((p) => (typeof p === "string" ? p : String(lookUp(p)))).join("");
}
