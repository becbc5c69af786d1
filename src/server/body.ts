import { parseDocument } from "yaml";
import { errors } from "../api/errors.js";
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
  if (type === "application/json") return decodeJson(raw);
  if (type === "application/yaml" || type === "application/x-yaml" || type === "text/yaml") return decodeYaml(raw);
  throw errors.unsupportedMediaType(type, OBJECT_TYPES);
}

/** Decodes a PATCH body; the Content-Type names the patch type. */
export function decodePatchBody(contentType: string | undefined, raw: Buffer): DecodedBody & { type: PatchType } {
  const { type } = parseMediaRange(contentType ?? "");
  const patchType = patchTypeOf(type);
  if (!patchType) throw errors.unsupportedMediaType(type, ADVERTISED_PATCH_TYPES);
  // An apply body is YAML (JSON is YAML too); the other patches are JSON.
  return { ...(patchType === "apply" ? decodeYaml(raw) : decodeJson(raw)), type: patchType };
}

export function decodeJson(raw: Buffer): DecodedBody {
  const text = raw.toString("utf8");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw errors.badRequest(`error decoding JSON body: ${(err as Error).message}`);
  }
  return { value, duplicates: findDuplicateJsonKeys(text) };
}

export function decodeYaml(raw: Buffer): DecodedBody {
  const text = raw.toString("utf8");
  // Duplicate keys are collected, not fatal: fieldValidation decides what they mean.
  const doc = parseDocument(text, { uniqueKeys: false, prettyErrors: false, version: "1.2" });
  if (doc.errors.length > 0) {
    throw errors.badRequest(`error decoding YAML body: ${doc.errors[0]?.message ?? "invalid YAML"}`);
  }
  const strict = parseDocument(text, { uniqueKeys: true, prettyErrors: false, version: "1.2" });
  const duplicates = strict.errors
    .filter((e) => e.code === "DUPLICATE_KEY")
    .map((e) => e.message.replace(/^Map keys must be unique.*?:?\s*/, "").split("\n")[0] || "(duplicate key)");
  return { value: doc.toJS({ maxAliasCount: 100 }), duplicates };
}
