import type { TSchema } from "@sinclair/typebox";
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { type FieldError, fieldError } from "../api/errors.js";
import { isPlainObject } from "../api/object.js";

/**
 * Checks a decoded body against its kind's schema, the same definition OpenAPI publishes:
 * - prune(): removes fields the schema does not declare and reports their paths
 *   (what kube-apiserver does for unknown fields, reported per fieldValidation);
 * - check(): type and shape errors as FieldErrors with Kubernetes-style paths.
 */
export class SchemaChecker {
  private validateFn: ValidateFunction | undefined;

  constructor(private readonly schema: TSchema) {}

  /**
   * Removes undeclared fields in place; returns their paths (`spec.foo`, `metadata.labels` never).
   * Also drops, silently, a `null` where the schema takes no null (an optional field or a map
   * value): kube-apiserver reads such a null as the field left out (Go's nil maps and slices in
   * ObjectMeta, and its pruning of non-nullable nulls in custom resources), and clients send them
   * (`"annotations": null`, kubectl 1.20's `"status": {"resourceRules": null}`).
   */
  prune(obj: Record<string, unknown>): string[] {
    const unknown: string[] = [];
    pruneValue(obj, this.schema, "", unknown);
    return unknown;
  }

  check(obj: unknown): FieldError[] {
    // Compiled on the first write of the kind, not when the server starts (docs/performance.md).
    this.validateFn ??= validatorFor(this.schema);
    if (this.validateFn(obj)) return [];
    return dedupe((this.validateFn.errors ?? []).map((e) => toFieldError(e, obj)));
  }

  /**
   * A copy of `obj` without the values check() refuses, for code written for the schema's shape
   * (metadata and the kind's own validation) to read while the schema's errors are reported: a
   * refused list item leaves a hole, so the items after it keep their index (and forEach skips
   * it). A missing required field stays missing.
   */
  withoutRefusedValues<T>(obj: T): T {
    const copy = structuredClone(obj);
    this.validateFn ??= validatorFor(this.schema);
    if (this.validateFn(copy)) return copy;
    for (const e of this.validateFn.errors ?? []) {
      // A `required` error's path is the object missing the field, which stays.
      if (e.keyword !== "required") removeAt(copy, e.instancePath);
    }
    return copy;
  }
}

/** Deletes the value at a JSON pointer (`/spec/users/1`), leaving a hole in a list. */
function removeAt(obj: unknown, pointer: string): void {
  const keys = pointer
    .split("/")
    .slice(1)
    .map((raw) => raw.replace(/~1/g, "/").replace(/~0/g, "~"));
  const last = keys.pop();
  if (last === undefined) return; // the root: the body itself is kept
  let parent = obj;
  for (const key of keys) {
    if (parent === null || typeof parent !== "object" || !Object.hasOwn(parent, key)) return;
    parent = (parent as Record<string, unknown>)[key];
  }
  if (parent !== null && typeof parent === "object" && Object.hasOwn(parent, last)) {
    delete (parent as Record<string, unknown>)[last];
  }
}

/**
 * One Ajv for every checker of the process, and one compiled validator per distinct schema:
 * each server builds a Store per kind (and tests build many servers), and a new Ajv per Store
 * compiled the same schemas, and the JSON Schema meta-schema, again each time. The schemas are
 * the product's own: `validateSchema: false` skips checking them against the meta-schema on
 * every compile; schema-check.test.ts checks every kind's schema against it once instead.
 */
export const AJV_OPTIONS = { allErrors: true, strict: false, validateFormats: false } as const;
let sharedAjv: Ajv | undefined;
/** Keyed by the schema's JSON: kinds built by a function (with their dependencies) make a new but equal schema object per server. */
const validators = new Map<string, ValidateFunction>();

function validatorFor(schema: TSchema): ValidateFunction {
  const key = JSON.stringify(schema);
  let fn = validators.get(key);
  if (!fn) {
    sharedAjv ??= new Ajv({ ...AJV_OPTIONS, validateSchema: false });
    fn = sharedAjv.compile(schema);
    validators.set(key, fn);
  }
  return fn;
}

function pruneValue(value: unknown, schema: TSchema, path: string, unknown: string[]): void {
  if (schema.anyOf) {
    // Nullable wrappers: prune against the object alternative, if any.
    const objectAlt = (schema.anyOf as TSchema[]).find((s) => s.type === "object");
    if (objectAlt) pruneValue(value, objectAlt, path, unknown);
    return;
  }
  if (schema.type === "array" && Array.isArray(value) && schema.items) {
    value.forEach((item, i) => {
      pruneValue(item, schema.items as TSchema, `${path}[${i}]`, unknown);
    });
    return;
  }
  if (schema.type !== "object" || !isPlainObject(value)) return;
  const properties = schema.properties as Record<string, TSchema> | undefined;
  if (schema.additionalProperties === true) return;
  for (const key of Object.keys(value)) {
    // Own properties only: `toString` or `__proto__` must not find Object.prototype's members.
    const child = properties && Object.hasOwn(properties, key) ? properties[key] : undefined;
    const childPath = path ? `${path}.${key}` : key;
    const valueSchema = child ?? mapValueSchema(schema);
    if (valueSchema) {
      if (value[key] === null && !acceptsNull(valueSchema)) delete value[key];
      else pruneValue(value[key], valueSchema, childPath, unknown);
    } else {
      unknown.push(childPath);
      delete value[key];
    }
  }
}

/** The schema of a map's values (Type.Record, or additionalProperties given as a schema). */
function mapValueSchema(schema: TSchema): TSchema | undefined {
  const patternProperties = schema.patternProperties as Record<string, TSchema> | undefined;
  if (patternProperties) return Object.values(patternProperties)[0];
  return isPlainObject(schema.additionalProperties) ? (schema.additionalProperties as TSchema) : undefined;
}

/** Whether null is a value of the schema: a nullable union, the null type, or a schema of any value. */
function acceptsNull(schema: TSchema): boolean {
  if (schema.anyOf) return (schema.anyOf as TSchema[]).some(acceptsNull);
  if (schema.type === undefined) return true;
  return Array.isArray(schema.type) ? schema.type.includes("null") : schema.type === "null";
}

/** `/spec/clusterRoles/0/name` → `spec.clusterRoles[0].name`. */
function instancePathToField(instancePath: string): string {
  let out = "";
  for (const raw of instancePath.split("/").slice(1)) {
    const part = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (/^\d+$/.test(part)) out += `[${part}]`;
    else out += out ? `.${part}` : part;
  }
  return out;
}

/**
 * One Ajv error as the field error kube-apiserver reports for the same schema rule on a custom
 * resource (kube-openapi's wording, `<field> in body ...`, with the value or, for a type, the
 * type sent), so the platform and kube-apiserver answer alike.
 */
function toFieldError(e: ErrorObject, obj: unknown): FieldError {
  const field = instancePathToField(e.instancePath);
  const at = field || "<root>";
  switch (e.keyword) {
    case "required": {
      const missing = (e.params as { missingProperty: string }).missingProperty;
      return fieldError("FieldValueRequired", field ? `${field}.${missing}` : missing, "");
    }
    case "type": {
      const expected = [(e.params as { type: string | string[] }).type].flat().join(",");
      const sent = jsonTypeOf(valueAt(obj, e.instancePath));
      return fieldError("FieldValueTypeInvalid", at, `${at} in body must be of type ${expected}: "${sent}"`, sent);
    }
    case "enum": {
      const allowed = (e.params as { allowedValues: unknown[] }).allowedValues;
      return fieldError(
        "FieldValueNotSupported",
        field,
        `supported values: ${allowed.map((v) => JSON.stringify(v)).join(", ")}`,
        valueAt(obj, e.instancePath),
      );
    }
    case "minimum": {
      const limit = (e.params as { limit: number }).limit;
      return fieldError(
        "FieldValueInvalid",
        at,
        `${at} in body should be greater than or equal to ${limit}`,
        valueAt(obj, e.instancePath),
      );
    }
    case "maxItems": {
      // kube's field.TooMany: the count found as the value, `Too many: 3: must have at most 2 items`.
      const limit = (e.params as { limit: number }).limit;
      const found = valueAt(obj, e.instancePath);
      return fieldError(
        "FieldValueTooMany",
        at,
        `must have at most ${limit} items`,
        Array.isArray(found) ? found.length : undefined,
      );
    }
    default:
      return fieldError("FieldValueInvalid", at, e.message ?? "is invalid");
  }
}

/** The value at a JSON pointer (`/spec/users/0`) of a decoded body. */
function valueAt(obj: unknown, pointer: string): unknown {
  let value = obj;
  for (const raw of pointer.split("/").slice(1)) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (value === null || typeof value !== "object" || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** A JSON value's type as kube-openapi names it: an integral number is an `integer`. */
function jsonTypeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function dedupe(errs: FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return errs.filter((e) => {
    const k = `${e.type}|${e.field}|${e.detail}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
