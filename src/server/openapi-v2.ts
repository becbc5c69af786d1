import { API_PREFIX } from "../api/object.js";
import type { Registry } from "../registry/registry.js";
import { groupVersionDocument } from "./openapi.js";

/**
 * The OpenAPI v2 (Swagger 2.0) document kube-apiserver serves at /openapi/v2, made from the
 * OpenAPI v3 documents of openapi.ts (so from the same schemas the server validates with).
 * kubectl up to 1.26 reads it for client-side validation of create and apply, `explain` and
 * `diff`; without it they fail with 404. One document for every group/version, as in kube.
 */

type Json = Record<string, unknown>;

/** Swagger 2.0 has these schema keywords; everything else of OpenAPI 3 is turned into them or left out. */
const SCHEMA_KEYWORDS = new Set([
  "$ref",
  "format",
  "title",
  "description",
  "default",
  "multipleOf",
  "maximum",
  "exclusiveMaximum",
  "minimum",
  "exclusiveMinimum",
  "maxLength",
  "minLength",
  "pattern",
  "maxItems",
  "minItems",
  "uniqueItems",
  "maxProperties",
  "minProperties",
  "required",
  "enum",
  "additionalProperties",
  "type",
  "items",
  "allOf",
  "properties",
  "readOnly",
  "example",
]);

const V3_REF = "#/components/schemas/";
const V2_REF = "#/definitions/";

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** An OpenAPI 3 schema as Swagger 2.0 has it. */
export function toSwaggerSchema(v3: Json): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(v3)) {
    if (key === "$ref" && typeof value === "string") out.$ref = value.replace(V3_REF, V2_REF);
    else if (key === "properties" && isObject(value))
      out.properties = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toSwaggerSchema(v as Json)]));
    else if ((key === "items" || key === "additionalProperties") && isObject(value)) out[key] = toSwaggerSchema(value);
    else if (key === "allOf" && Array.isArray(value)) out.allOf = value.map((v) => toSwaggerSchema(v as Json));
    else if (key === "const") out.enum = [value];
    else if (key.startsWith("x-") || SCHEMA_KEYWORDS.has(key)) out[key] = value;
  }
  const alternatives = v3.anyOf ?? v3.oneOf;
  if (Array.isArray(alternatives)) {
    // Swagger 2.0 has no unions: a union of constants is an enum; any other is left open.
    const constants = alternatives.filter((a) => isObject(a) && "const" in a) as Json[];
    if (constants.length === alternatives.length && constants.length > 0) {
      out.enum = constants.map((a) => a.const);
      const types = new Set(constants.map((a) => a.type).filter(Boolean));
      if (types.size === 1) out.type = [...types][0];
    }
  }
  // No `nullable` in Swagger 2.0: as kube-apiserver publishes a nullable field of a custom
  // resource, without a type, so that kubectl's client-side validation accepts the null.
  if (v3.nullable === true) delete out.type;
  // Any content kept (fieldsV1): without a type, as kube-apiserver publishes such a field of a
  // custom resource in v2, since kubectl's client-side validation would refuse every key of an
  // object without properties.
  if (v3["x-kubernetes-preserve-unknown-fields"] === true) {
    delete out.type;
    delete out.properties;
  }
  return out;
}

/** A v3 parameter (`schema: {type}`) as a v2 one (`type` beside the name). */
function toSwaggerParameter(p: Json): Json {
  const { schema, ...rest } = p;
  return { ...rest, ...(isObject(schema) ? schema : {}) };
}

function firstSchemaRef(content: unknown): Json | undefined {
  if (!isObject(content)) return undefined;
  const first = Object.values(content)[0];
  return isObject(first) && isObject(first.schema) ? toSwaggerSchema(first.schema) : undefined;
}

function toSwaggerOperation(op: Json): Json {
  const { requestBody, responses, parameters, ...rest } = op;
  const params = Array.isArray(parameters) ? parameters.map((p) => toSwaggerParameter(p as Json)) : [];
  const out: Json = { ...rest };
  if (isObject(requestBody)) {
    params.unshift({ name: "body", in: "body", required: true, schema: firstSchemaRef(requestBody.content) });
    out.consumes = Object.keys(isObject(requestBody.content) ? requestBody.content : {});
  }
  out.produces = ["application/json", "application/yaml"];
  out.schemes = ["https"];
  out.parameters = params;
  out.responses = Object.fromEntries(
    Object.entries(isObject(responses) ? responses : {}).map(([code, r]) => {
      const response = r as Json;
      const schema = firstSchemaRef(response.content);
      return [code, { description: response.description ?? "", ...(schema ? { schema } : {}) }];
    }),
  );
  return out;
}

const METHODS = ["get", "put", "post", "delete", "patch"];

function toSwaggerPathItem(item: Json): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(item)) {
    if (METHODS.includes(key) && isObject(value)) out[key] = toSwaggerOperation(value);
    else if (key === "parameters" && Array.isArray(value)) out.parameters = value.map((p) => toSwaggerParameter(p));
  }
  return out;
}

/** The whole Swagger 2.0 document of the registry's kinds. */
export function swaggerDocument(registry: Registry): Json {
  const gvs = [...new Set(registry.resourceTypes().map((rt) => `${rt.group}/${rt.version}`))].sort();
  const paths: Json = {};
  const definitions: Json = {};
  for (const gv of gvs) {
    const [group = "", version = ""] = gv.split("/");
    const doc = groupVersionDocument(registry, group, version);
    if (!doc) continue;
    for (const [path, item] of Object.entries(doc.paths as Json)) paths[path] = toSwaggerPathItem(item as Json);
    const schemas = (doc.components as { schemas: Record<string, Json> }).schemas;
    for (const [name, schema] of Object.entries(schemas)) definitions[name] = toSwaggerSchema(schema);
  }
  return {
    swagger: "2.0",
    info: { title: "platform management API", version: "v1" },
    // Paths are relative to the management API prefix, as the v3 documents' server URL says.
    basePath: API_PREFIX,
    paths,
    definitions,
    securityDefinitions: {
      BearerToken: { type: "apiKey", description: "Bearer access key", name: "authorization", in: "header" },
    },
    security: [{ BearerToken: [] }],
  };
}
