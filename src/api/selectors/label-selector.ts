/**
 * Label selectors in their query-string form (`?labelSelector=`), parsed as
 * k8s.io/apimachinery/pkg/labels parses them:
 *
 *   env=prod, tier in (web, api), !legacy, release!=canary, team, rank>2
 *
 * Requirements are comma-separated and ANDed. Operators: `=`/`==` (equal),
 * `!=` (not equal or absent), `in (a,b)`, `notin (a,b)` (not in or absent),
 * `key` (exists), `!key` (does not exist), and Kubernetes' integer `>`/`<`.
 * Whitespace between tokens is ignored. Keys must be qualified names and
 * values valid label values. The empty selector matches everything.
 * A malformed selector throws a 400 BadRequest worded as kube-apiserver words it
 * (`unable to parse requirement: found '', expected: identifier`).
 */
import { errors, fieldError, fieldErrorMessage } from "../errors.js";
import { isQualifiedName, isValidLabelValue } from "../validation/names.js";

export type LabelOperator = "=" | "==" | "!=" | "in" | "notin" | "exists" | "!" | ">" | "<";

export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  /** Sorted and de-duplicated; empty for `exists` and `!`. */
  readonly values: readonly string[];
}

/** A compiled selector: call it with an object's labels. `String(selector)` gives the canonical form. */
export interface LabelSelector {
  (labels?: Readonly<Record<string, string>> | null): boolean;
  /** The requirements, sorted by key. */
  readonly requirements: readonly LabelRequirement[];
  /** True when the selector has no requirements (matches everything). */
  readonly empty: boolean;
  toString(): string;
}

type TokenType = "eos" | "ident" | "in" | "notin" | "(" | ")" | "," | "!" | "=" | "==" | "!=" | ">" | "<" | "error";

interface Token {
  type: TokenType;
  literal: string;
}

const symbolTokens: Record<string, TokenType> = {
  "(": "(",
  ")": ")",
  ",": ",",
  "!": "!",
  "=": "=",
  "==": "==",
  "!=": "!=",
  ">": ">",
  "<": "<",
};

const isWhitespace = (c: string) => c === " " || c === "\t" || c === "\r" || c === "\n";
const isSpecialSymbol = (c: string) =>
  c === "=" || c === "!" || c === "(" || c === ")" || c === "," || c === ">" || c === "<";

function lex(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (true) {
    while (i < input.length && isWhitespace(input[i]!)) i++;
    if (i >= input.length) {
      tokens.push({ type: "eos", literal: "" });
      return tokens;
    }
    const c = input[i]!;
    if (isSpecialSymbol(c)) {
      // The longest run of symbols that still spells a token (`==`, `!=`).
      let buffer = "";
      let last: Token | undefined;
      let j = i;
      while (j < input.length && isSpecialSymbol(input[j]!)) {
        buffer += input[j];
        const type = symbolTokens[buffer];
        if (type) {
          last = { type, literal: buffer };
          j++;
        } else break;
      }
      if (!last) {
        tokens.push({ type: "error", literal: buffer });
        return tokens;
      }
      tokens.push(last);
      i += last.literal.length;
      continue;
    }
    let j = i;
    while (j < input.length && !isWhitespace(input[j]!) && !isSpecialSymbol(input[j]!)) j++;
    const literal = input.slice(i, j);
    tokens.push({ type: literal === "in" ? "in" : literal === "notin" ? "notin" : "ident", literal });
    i = j;
  }
}

class ParseError extends Error {}

class Parser {
  private pos = 0;
  constructor(private readonly tokens: Token[]) {}

  /** The next token; in value position the keywords `in`/`notin` are plain identifiers. */
  private peek(values = true): Token {
    const t = this.tokens[this.pos]!;
    if (values && (t.type === "in" || t.type === "notin")) return { type: "ident", literal: t.literal };
    return t;
  }

  private next(values = true): Token {
    const t = this.peek(values);
    if (t.type !== "eos") this.pos++;
    return t;
  }

  parse(): LabelRequirement[] {
    const requirements: LabelRequirement[] = [];
    while (true) {
      const t = this.peek();
      if (t.type === "eos") return requirements;
      if (t.type !== "ident" && t.type !== "!") {
        throw new ParseError(`found '${t.literal}', expected: !, identifier, or 'end of string'`);
      }
      try {
        requirements.push(this.parseRequirement());
      } catch (err) {
        if (err instanceof ParseError) throw new ParseError(`unable to parse requirement: ${err.message}`);
        throw err;
      }
      const after = this.next();
      if (after.type === "eos") return requirements;
      if (after.type !== ",") throw new ParseError(`found '${after.literal}', expected: ',' or 'end of string'`);
      const following = this.peek();
      if (following.type !== "ident" && following.type !== "!") {
        throw new ParseError(`found '${following.literal}', expected: identifier after ','`);
      }
    }
  }

  private parseRequirement(): LabelRequirement {
    let t = this.next();
    let negated = false;
    if (t.type === "!") {
      negated = true;
      t = this.next();
    }
    if (t.type !== "ident") throw new ParseError(`found '${t.literal}', expected: identifier`);
    const key = t.literal;
    const keyErrors = isQualifiedName(key);
    if (keyErrors.length > 0) {
      throw new ParseError(fieldErrorMessage(fieldError("FieldValueInvalid", "key", keyErrors.join("; "), key)));
    }
    const ahead = this.peek().type;
    if (negated) return requirement(key, "!", []);
    if (ahead === "eos" || ahead === ",") return requirement(key, "exists", []);

    const op = this.next(false);
    switch (op.type) {
      case "in":
      case "notin":
        return requirement(key, op.type, this.parseSet());
      case "=":
      case "==":
      case "!=":
      case ">":
      case "<":
        return requirement(key, op.type, [this.parseExactValue()]);
      default:
        throw new ParseError(`found '${op.literal}', expected: in, notin, =, ==, !=, gt, lt`);
    }
  }

  private parseExactValue(): string {
    const ahead = this.peek();
    if (ahead.type === "eos" || ahead.type === ",") return "";
    const t = this.next();
    if (t.type === "ident") return t.literal;
    throw new ParseError(`found '${t.literal}', expected: identifier`);
  }

  private parseSet(): string[] {
    const open = this.next();
    if (open.type !== "(") throw new ParseError(`found '${open.literal}', expected: '('`);
    const values = new Set<string>();
    while (true) {
      const t = this.next();
      if (t.type === "ident") {
        values.add(t.literal);
        const ahead = this.peek();
        if (ahead.type === ",") continue;
        if (ahead.type === ")") break;
        throw new ParseError(`found '${ahead.literal}', expected: ',' or ')'`);
      }
      if (t.type === ",") {
        // `(,a)`, `(a,,b)` and `(a,)` stand for the empty value, as in Kubernetes.
        if (values.size === 0) values.add("");
        const ahead = this.peek();
        if (ahead.type === ")") {
          values.add("");
          break;
        }
        if (ahead.type === ",") {
          this.next();
          values.add("");
        }
        continue;
      }
      throw new ParseError(`found '${t.literal}', expected: ',', or identifier`);
    }
    const close = this.next();
    if (close.type !== ")") throw new ParseError(`found '${close.literal}', expected: ')'`);
    return [...values];
  }
}

function requirement(key: string, operator: LabelOperator, values: string[]): LabelRequirement {
  values.forEach((value, i) => {
    const msgs = isValidLabelValue(value);
    if (msgs.length > 0) {
      throw new ParseError(fieldErrorMessage(fieldError("FieldValueInvalid", `values[${i}]`, msgs.join("; "), value)));
    }
  });
  if ((operator === ">" || operator === "<") && !/^-?\d+$/.test(values[0]!)) {
    throw new ParseError(
      fieldErrorMessage(
        fieldError(
          "FieldValueInvalid",
          "values[0]",
          "for 'Gt', 'Lt' operators, the value must be an integer",
          values[0],
        ),
      ),
    );
  }
  return { key, operator, values: [...new Set(values)].sort() };
}

function matchesRequirement(r: LabelRequirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.hasOwn(labels, r.key);
  const value = has ? labels[r.key] : undefined;
  switch (r.operator) {
    case "=":
    case "==":
    case "in":
      return has && r.values.includes(value!);
    case "!=":
    case "notin":
      return !has || !r.values.includes(value!);
    case "exists":
      return has;
    case "!":
      return !has;
    case ">":
    case "<": {
      if (!has || !/^-?\d+$/.test(value!)) return false;
      const actual = Number(value);
      const bound = Number(r.values[0]);
      return r.operator === ">" ? actual > bound : actual < bound;
    }
  }
}

/** The canonical text of one requirement (`key in (a,b)`, `!key`, `key=v`). */
function requirementString(r: LabelRequirement): string {
  switch (r.operator) {
    case "exists":
      return r.key;
    case "!":
      return `!${r.key}`;
    case "in":
    case "notin":
      return `${r.key} ${r.operator} (${r.values.join(",")})`;
    default:
      return `${r.key}${r.operator}${r.values[0]}`;
  }
}

/** Compiles requirements into a selector (requirements are sorted by key, stably). */
function labelSelectorOf(requirements: readonly LabelRequirement[]): LabelSelector {
  const sorted = [...requirements].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const text = sorted.map(requirementString).join(",");
  const matcher = (labels?: Readonly<Record<string, string>> | null): boolean => {
    const set = labels ?? {};
    return sorted.every((r) => matchesRequirement(r, set));
  };
  return Object.assign(matcher, {
    requirements: sorted,
    empty: sorted.length === 0,
    toString: () => text,
  });
}

/** Parses a labelSelector query value; throws a 400 BadRequest ApiError when malformed. */
export function parseLabelSelector(selector: string | undefined | null): LabelSelector {
  if (!selector) return labelSelectorOf([]);
  try {
    return labelSelectorOf(new Parser(lex(selector)).parse());
  } catch (err) {
    if (err instanceof ParseError) throw errors.badRequest(err.message);
    throw err;
  }
}
