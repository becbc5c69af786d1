/**
 * Field selectors in their query-string form (`?fieldSelector=`), parsed as
 * k8s.io/apimachinery/pkg/fields parses them: comma-separated terms
 * `field=value`, `field==value` or `field!=value`, ANDed. In values, `\,`,
 * `\=` and `\\` escape the delimiters; an unescaped `,` or `=` is refused.
 * Only the fields a kind permits may be used (by default `metadata.name` and
 * `metadata.namespace`); any other is a 400 `field label not supported: X`.
 * A field that an object lacks reads as "" (so `x!=v` matches it).
 */
import { errors } from "../errors.js";
import { isPlainObject } from "../object.js";

const DEFAULT_SELECTABLE_FIELDS: readonly string[] = ["metadata.name", "metadata.namespace"];

export type FieldOperator = "=" | "==" | "!=";

export interface FieldRequirement {
  readonly field: string;
  readonly operator: FieldOperator;
  readonly value: string;
}

/** Reads a field's value (as a string) from the object being matched. */
export type FieldGetter = (field: string) => string | undefined;

export interface FieldSelector {
  (get: FieldGetter): boolean;
  /** The terms, in canonical (sorted) order. */
  readonly requirements: readonly FieldRequirement[];
  readonly empty: boolean;
  /** The value `metadata.name` must equal, when a term pins it (`metadata.name=x`). */
  readonly exactName: string | undefined;
  /** The value `field` must equal, when a term pins it with `=` or `==`. */
  exactValue(field: string): string | undefined;
  toString(): string;
}

const operators: readonly FieldOperator[] = ["!=", "==", "="];

/** Splits on commas not escaped by a backslash (the backslashes stay). */
function splitTerms(selector: string): string[] {
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (inSlash) inSlash = false;
    else if (c === "\\") inSlash = true;
    else if (c === ",") {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

/** The first operator occurrence splits the term; the field part takes no escapes. */
function splitTerm(term: string): { field: string; operator: FieldOperator; raw: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of operators) {
      if (term.startsWith(op, i)) return { field: term.slice(0, i), operator: op, raw: term.slice(i + op.length) };
    }
  }
  return undefined;
}

/** Undoes EscapeFieldValue: `\\`, `\,` and `\=`; refuses bare `,`/`=` and other escapes. */
export function unescapeFieldValue(s: string): string {
  let out = "";
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c !== "\\" && c !== "," && c !== "=") {
        throw errors.badRequest(`invalid field selector: invalid escape sequence: \\${c}`);
      }
      out += c;
      inSlash = false;
    } else if (c === "\\") inSlash = true;
    else if (c === "," || c === "=")
      throw errors.badRequest(`invalid field selector: unescaped character in value: ${c}`);
    else out += c;
  }
  if (inSlash) throw errors.badRequest("invalid field selector: invalid escape sequence: \\");
  return out;
}

/** Escapes `\`, `,` and `=` in a value so it can stand in a field selector. */
export function escapeFieldValue(s: string): string {
  return s.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/** Compiles requirements into a selector. */
function fieldSelectorOf(requirements: readonly FieldRequirement[]): FieldSelector {
  const text = (r: FieldRequirement) => `${r.field}${r.operator}${escapeFieldValue(r.value)}`;
  const sorted = [...requirements].sort((a, b) => (text(a) < text(b) ? -1 : text(a) > text(b) ? 1 : 0));
  const exactValue = (field: string) =>
    sorted.find((r) => r.field === field && (r.operator === "=" || r.operator === "=="))?.value;
  const matcher = (get: FieldGetter): boolean =>
    sorted.every((r) => {
      const actual = get(r.field) ?? "";
      return r.operator === "!=" ? actual !== r.value : actual === r.value;
    });
  const canonical = sorted.map(text).join(",");
  return Object.assign(matcher, {
    requirements: sorted,
    empty: sorted.length === 0,
    exactName: exactValue("metadata.name"),
    exactValue,
    toString: () => canonical,
  });
}

/**
 * Parses a fieldSelector query value. `allowedFields` lists the fields the kind
 * supports (default metadata.name and metadata.namespace). Throws a 400
 * BadRequest ApiError for malformed terms and unsupported fields.
 */
export function parseFieldSelector(
  selector: string | undefined | null,
  allowedFields: readonly string[] = DEFAULT_SELECTABLE_FIELDS,
): FieldSelector {
  const requirements: FieldRequirement[] = [];
  for (const term of selector ? splitTerms(selector) : []) {
    if (term === "") continue;
    const parts = splitTerm(term);
    if (!parts) throw errors.badRequest(`invalid selector: '${selector}'; can't understand '${term}'`);
    const value = unescapeFieldValue(parts.raw);
    if (!allowedFields.includes(parts.field)) throw errors.badRequest(`field label not supported: ${parts.field}`);
    requirements.push({ field: parts.field, operator: parts.operator, value });
  }
  return fieldSelectorOf(requirements);
}

/**
 * A FieldGetter over an object, following dotted paths (`metadata.name`,
 * `spec.team`). Strings are returned as they are, numbers and booleans as
 * text; absent fields, objects and arrays read as undefined.
 */
export function objectFieldGetter(obj: unknown): FieldGetter {
  return (field) => {
    let cur: unknown = obj;
    for (const part of field.split(".")) {
      if (!isPlainObject(cur) || !Object.hasOwn(cur, part)) return undefined;
      cur = cur[part];
    }
    if (typeof cur === "string") return cur;
    if (typeof cur === "number" || typeof cur === "boolean") return String(cur);
    return undefined;
  };
}
