import { type Document, parseDocument, visit } from "yaml";
import { errors } from "../api/errors.js";
import { nestingMessage, textNestingExceeds, valueNestingExceeds } from "../api/nesting-depth.js";
import type { PatchType } from "../registry/options.js";
import { findDuplicateJsonKeys } from "./duplicate-keys.js";
import { parseMediaRange } from "./negotiation.js";
import { ADVERTISED_PATCH_TYPES, patchTypeOf } from "./patch-media-types.js";

export interface DecodedBody {
  value: unknown;
  /** Paths of keys given twice (reported per fieldValidation). */
  duplicates: string[];
}

const OBJECT_TYPES = ["application/json", "application/yaml"];

/** Decodes a create/replace body by Content-Type (JSON or YAML); others 415, malformed 400. */
export function decodeObjectBody(contentType: string | undefined, raw: Buffer): DecodedBody {
  const { type } = parseMediaRange(contentType ?? "");
  if (type === "application/json") return decodeJsonBody(raw);
  if (type === "application/yaml" || type === "application/x-yaml" || type === "text/yaml") return decodeYaml(raw);
  throw errors.unsupportedMediaType(type, OBJECT_TYPES);
}

/** Decodes a PATCH body; the Content-Type names the patch type. */
export function decodePatchBody(contentType: string | undefined, raw: Buffer): DecodedBody & { type: PatchType } {
  const { type } = parseMediaRange(contentType ?? "");
  const patchType = patchTypeOf(type);
  if (!patchType) throw errors.unsupportedMediaType(type, ADVERTISED_PATCH_TYPES);
  // An apply body is YAML (JSON is YAML too); the other patches are JSON.
  return { ...(patchType === "apply" ? decodeYaml(raw) : decodeJsonBody(raw)), type: patchType };
}

/** Aliases one YAML body may expand (counted as the yaml package counts them, by node). */
const MAX_YAML_ALIAS_COUNT = 100;

/** The only explicit YAML tags a body may carry: the JSON-compatible ones of the core schema. */
const ALLOWED_YAML_TAGS = new Set(
  ["str", "int", "float", "bool", "null", "map", "seq"].map((t) => `tag:yaml.org,2002:${t}`),
);

/** A JSON body (Content-Type application/json); malformed 400. */
export function decodeJsonBody(raw: Buffer): DecodedBody {
  const text = raw.toString("utf8");
  // Before parsing: JSON.parse copes, but everything after it recurses over the value.
  if (textNestingExceeds(text)) throw errors.badRequest(`error decoding JSON body: ${nestingMessage("the body")}`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw errors.badRequest(`error decoding JSON body: ${(err as Error).message}`);
  }
  return { value, duplicates: findDuplicateJsonKeys(text, value) };
}

function decodeYaml(raw: Buffer): DecodedBody {
  const text = raw.toString("utf8");
  // Flow collections (`[[[…`) nest without indentation; block nesting is checked after parsing.
  if (textNestingExceeds(text)) throw errors.badRequest(`error decoding YAML body: ${nestingMessage("the body")}`);
  // Duplicate keys are collected, not fatal: fieldValidation decides what they mean.
  const doc = parseYamlOrThrow(text, false);
  if (doc.errors.length > 0) {
    throw errors.badRequest(`error decoding YAML body: ${doc.errors[0]?.message ?? "invalid YAML"}`);
  }
  refuseCustomTags(doc);
  const strict = parseYamlOrThrow(text, true);
  const duplicates = strict.errors
    .filter((e) => e.code === "DUPLICATE_KEY")
    .map((e) => e.message.replace(/^Map keys must be unique.*?:?\s*/, "").split("\n")[0] || "(duplicate key)");
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_YAML_ALIAS_COUNT });
  } catch (err) {
    // Unresolved aliases (`*nope`), alias bombs past the count, too deep a structure.
    throw errors.badRequest(`error decoding YAML body: ${yamlFailure(err)}`);
  }
  if (valueNestingExceeds(value)) throw errors.badRequest(`error decoding YAML body: ${nestingMessage("the body")}`);
  return { value, duplicates };
}

function parseYamlOrThrow(text: string, uniqueKeys: boolean): Document.Parsed {
  try {
    return parseDocument(text, { uniqueKeys, prettyErrors: false, version: "1.2" });
  } catch (err) {
    throw errors.badRequest(`error decoding YAML body: ${yamlFailure(err)}`);
  }
}

function yamlFailure(err: unknown): string {
  if (err instanceof RangeError) return nestingMessage("the body");
  const message = err instanceof Error ? err.message : String(err);
  if (/alias count/i.test(message)) return `too many aliases: at most ${MAX_YAML_ALIAS_COUNT} may be expanded`;
  return message;
}

/** `!!binary`, `!!set`, `!foo` and the like decode to values JSON has not got: refused, not guessed. */
function refuseCustomTags(doc: Document.Parsed): void {
  let refused: string | undefined;
  try {
    visit(doc, {
      Node(_key, node) {
        const tag = (node as { tag?: string }).tag;
        if (tag && !ALLOWED_YAML_TAGS.has(tag)) {
          refused = tag;
          return visit.BREAK;
        }
        return undefined;
      },
    });
  } catch (err) {
    throw errors.badRequest(`error decoding YAML body: ${yamlFailure(err)}`);
  }
  if (refused) {
    const shown = refused.replace(/^tag:yaml\.org,2002:/, "!!");
    throw errors.badRequest(
      `error decoding YAML body: the tag ${shown} is not supported (only JSON-compatible values: strings, numbers, booleans, null, maps and sequences)`,
    );
  }
}
