import protobuf from "protobufjs";

/**
 * The protobuf form of the OpenAPI v2 document (gnostic's `openapi.v2.Document`), which
 * kubectl up to 1.26 asks for first (`application/com.github.proto-openapi.spec.v2@v1.0+protobuf`)
 * and decodes with gnostic. Only the messages and fields the document uses are declared here,
 * with gnostic's field numbers (github.com/google/gnostic, openapiv2/OpenAPIv2.proto); oneof
 * names are not on the wire, so they are named freely. Maps are repeated (name, value) pairs,
 * in the document's order; vendor extensions, `default`, `enum` and `example` values are `Any`
 * messages carrying the value as YAML text, which JSON is.
 */
const GNOSTIC_OPENAPI_V2 = `
syntax = "proto3";
package openapi.v2;
message Any { string yaml = 2; }
message NamedAny { string name = 1; Any value = 2; }
message Info { string title = 1; string version = 2; string description = 3; repeated NamedAny vendor_extension = 7; }
message Document {
  string swagger = 1; Info info = 2; string host = 3; string base_path = 4; repeated string schemes = 5;
  repeated string consumes = 6; repeated string produces = 7; Paths paths = 8; Definitions definitions = 9;
  repeated SecurityRequirement security = 12; SecurityDefinitions security_definitions = 13;
  repeated NamedAny vendor_extension = 16;
}
message Paths { repeated NamedAny vendor_extension = 1; repeated NamedPathItem path = 2; }
message NamedPathItem { string name = 1; PathItem value = 2; }
message PathItem {
  string _ref = 1; Operation get = 2; Operation put = 3; Operation post = 4; Operation delete = 5;
  Operation options = 6; Operation head = 7; Operation patch = 8; repeated ParametersItem parameters = 9;
  repeated NamedAny vendor_extension = 10;
}
message Operation {
  repeated string tags = 1; string summary = 2; string description = 3; string operation_id = 5;
  repeated string produces = 6; repeated string consumes = 7; repeated ParametersItem parameters = 8;
  Responses responses = 9; repeated string schemes = 10; bool deprecated = 11; repeated NamedAny vendor_extension = 13;
}
message ParametersItem { oneof item { Parameter parameter = 1; JsonReference json_reference = 2; } }
message JsonReference { string _ref = 1; string description = 2; }
message Parameter { oneof item { BodyParameter body_parameter = 1; NonBodyParameter non_body_parameter = 2; } }
message BodyParameter {
  string description = 1; string name = 2; string in = 3; bool required = 4; Schema schema = 5;
  repeated NamedAny vendor_extension = 6;
}
message NonBodyParameter {
  oneof item { QueryParameterSubSchema query_parameter_sub_schema = 3; PathParameterSubSchema path_parameter_sub_schema = 4; }
}
message QueryParameterSubSchema {
  bool required = 1; string in = 2; string description = 3; string name = 4; bool allow_empty_value = 5;
  string type = 6; string format = 7; bool unique_items = 20; repeated NamedAny vendor_extension = 23;
}
message PathParameterSubSchema {
  bool required = 1; string in = 2; string description = 3; string name = 4; string type = 5; string format = 6;
  bool unique_items = 19; repeated NamedAny vendor_extension = 22;
}
message Responses { repeated NamedResponseValue response_code = 1; repeated NamedAny vendor_extension = 2; }
message NamedResponseValue { string name = 1; ResponseValue value = 2; }
message ResponseValue { oneof item { Response response = 1; JsonReference json_reference = 2; } }
message Response { string description = 1; SchemaItem schema = 2; repeated NamedAny vendor_extension = 5; }
message SchemaItem { oneof item { Schema schema = 1; } }
message Schema {
  string _ref = 1; string format = 2; string title = 3; string description = 4; Any default = 5;
  double multiple_of = 6; double maximum = 7; bool exclusive_maximum = 8; double minimum = 9;
  bool exclusive_minimum = 10; int64 max_length = 11; int64 min_length = 12; string pattern = 13;
  int64 max_items = 14; int64 min_items = 15; bool unique_items = 16; int64 max_properties = 17;
  int64 min_properties = 18; repeated string required = 19; repeated Any enum = 20;
  AdditionalPropertiesItem additional_properties = 21; TypeItem type = 22; ItemsItem items = 23;
  repeated Schema all_of = 24; Properties properties = 25; bool read_only = 27; Any example = 30;
  repeated NamedAny vendor_extension = 31;
}
message AdditionalPropertiesItem { oneof item { Schema schema = 1; bool boolean = 2; } }
message TypeItem { repeated string value = 1; }
message ItemsItem { repeated Schema schema = 1; }
message Properties { repeated NamedSchema additional_properties = 1; }
message Definitions { repeated NamedSchema additional_properties = 1; }
message NamedSchema { string name = 1; Schema value = 2; }
message SecurityDefinitions { repeated NamedSecurityDefinitionsItem additional_properties = 1; }
message NamedSecurityDefinitionsItem { string name = 1; SecurityDefinitionsItem value = 2; }
message SecurityDefinitionsItem { oneof item { ApiKeySecurity api_key_security = 2; } }
message ApiKeySecurity { string type = 1; string name = 2; string in = 3; string description = 4; repeated NamedAny vendor_extension = 5; }
message SecurityRequirement { repeated NamedStringArray additional_properties = 1; }
message NamedStringArray { string name = 1; StringArray value = 2; }
message StringArray { repeated string value = 1; }
`;

type Json = Record<string, unknown>;

let documentType: protobuf.Type | undefined;

/** gnostic's openapi.v2.Document type (field names as in the .proto: snake_case). */
export function gnosticDocumentType(): protobuf.Type {
  documentType ??= protobuf.parse(GNOSTIC_OPENAPI_V2, { keepCase: true }).root.lookupType("openapi.v2.Document");
  return documentType;
}

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const yamlAny = (value: unknown) => ({ yaml: JSON.stringify(value) });

/** The `x-…` keys of an object as NamedAny pairs. */
function extensions(obj: Json): Json[] {
  return Object.entries(obj)
    .filter(([k]) => k.startsWith("x-"))
    .map(([name, value]) => ({ name, value: yamlAny(value) }));
}

const SCHEMA_SCALARS: Record<string, string> = {
  format: "format",
  title: "title",
  description: "description",
  multipleOf: "multiple_of",
  maximum: "maximum",
  exclusiveMaximum: "exclusive_maximum",
  minimum: "minimum",
  exclusiveMinimum: "exclusive_minimum",
  maxLength: "max_length",
  minLength: "min_length",
  pattern: "pattern",
  maxItems: "max_items",
  minItems: "min_items",
  uniqueItems: "unique_items",
  maxProperties: "max_properties",
  minProperties: "min_properties",
  readOnly: "read_only",
};

function schemaMessage(s: Json): Json {
  const m: Json = {};
  if (typeof s.$ref === "string") m._ref = s.$ref;
  for (const [json, proto] of Object.entries(SCHEMA_SCALARS)) if (s[json] !== undefined) m[proto] = s[json];
  if (s.default !== undefined) m.default = yamlAny(s.default);
  if (s.example !== undefined) m.example = yamlAny(s.example);
  if (Array.isArray(s.required)) m.required = s.required;
  if (Array.isArray(s.enum)) m.enum = s.enum.map(yamlAny);
  if (s.type !== undefined) m.type = { value: Array.isArray(s.type) ? s.type : [s.type] };
  if (isObject(s.items)) m.items = { schema: [schemaMessage(s.items)] };
  if (Array.isArray(s.allOf)) m.all_of = s.allOf.map((a) => schemaMessage(a as Json));
  if (isObject(s.properties))
    m.properties = { additional_properties: named(s.properties, (v) => schemaMessage(v as Json)) };
  if (typeof s.additionalProperties === "boolean") m.additional_properties = { boolean: s.additionalProperties };
  else if (isObject(s.additionalProperties))
    m.additional_properties = { schema: schemaMessage(s.additionalProperties) };
  m.vendor_extension = extensions(s);
  return m;
}

function named(obj: Json, value: (v: unknown) => unknown): Json[] {
  return Object.entries(obj).map(([name, v]) => ({ name, value: value(v) }));
}

function parameterMessage(p: Json): Json {
  if (p.in === "body") {
    const body = { description: p.description, name: p.name, in: p.in, required: p.required === true };
    return {
      parameter: { body_parameter: { ...body, schema: isObject(p.schema) ? schemaMessage(p.schema) : undefined } },
    };
  }
  const common = {
    required: p.required === true,
    in: p.in,
    description: p.description,
    name: p.name,
    type: p.type,
    format: p.format,
    unique_items: p.uniqueItems === true,
    vendor_extension: extensions(p),
  };
  const sub = p.in === "path" ? "path_parameter_sub_schema" : "query_parameter_sub_schema";
  return { parameter: { non_body_parameter: { [sub]: common } } };
}

function operationMessage(op: Json): Json {
  const responses = isObject(op.responses) ? op.responses : {};
  return {
    tags: op.tags,
    description: op.description,
    operation_id: op.operationId,
    produces: op.produces,
    consumes: op.consumes,
    schemes: op.schemes,
    parameters: ((op.parameters as Json[] | undefined) ?? []).map(parameterMessage),
    responses: {
      response_code: named(responses, (r) => {
        const response = r as Json;
        const schema = isObject(response.schema) ? { schema: schemaMessage(response.schema) } : undefined;
        return { response: { description: response.description, schema } };
      }),
    },
    vendor_extension: extensions(op),
  };
}

function pathItemMessage(item: Json): Json {
  const m: Json = {};
  for (const method of ["get", "put", "post", "delete", "patch"])
    if (isObject(item[method])) m[method] = operationMessage(item[method] as Json);
  m.parameters = ((item.parameters as Json[] | undefined) ?? []).map(parameterMessage);
  return m;
}

/** The Swagger 2.0 JSON document (openapi-v2.ts) as gnostic's protobuf bytes. */
export function encodeSwaggerDocument(doc: Json): Buffer {
  const info = isObject(doc.info) ? doc.info : {};
  const security = (doc.security as Json[] | undefined) ?? [];
  const message = {
    swagger: doc.swagger,
    info: { title: info.title, version: info.version },
    base_path: doc.basePath,
    paths: { path: named(isObject(doc.paths) ? doc.paths : {}, (v) => pathItemMessage(v as Json)) },
    definitions: {
      additional_properties: named(isObject(doc.definitions) ? doc.definitions : {}, (v) => schemaMessage(v as Json)),
    },
    security_definitions: {
      additional_properties: named(isObject(doc.securityDefinitions) ? doc.securityDefinitions : {}, (v) => ({
        api_key_security: v,
      })),
    },
    security: security.map((requirement) => ({
      additional_properties: named(requirement, (scopes) => ({ value: scopes })),
    })),
  };
  const type = gnosticDocumentType();
  return Buffer.from(type.encode(type.fromObject(message)).finish());
}
