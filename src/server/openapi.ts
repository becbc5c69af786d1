import { createHash } from "node:crypto";
import type { TSchema } from "@sinclair/typebox";
import { API_PREFIX } from "../api/object.js";
import { listTypeOfSchema } from "../registry/list-types.js";
import type { Registry } from "../registry/registry.js";
import type { ResourceType } from "../registry/resource-type.js";
import { ADVERTISED_PATCH_TYPES } from "./patch-media-types.js";

/**
 * OpenAPI v3 documents generated from each kind's TypeBox schema (the same definition
 * the server validates with), in the shape kube-apiserver serves at /openapi/v3:
 * kubectl reads component schemas by x-kubernetes-group-version-kind for `explain`, and
 * looks for a PATCH operation declaring `fieldValidation` to decide that the server
 * validates fields itself (otherwise it would fall back to client-side validation
 * against /openapi/v2, made from these documents by openapi-v2.ts).
 */

type Json = Record<string, unknown>;

/** Component name of a kind, reverse-DNS like kube-apiserver's (`com.platform.management.v1.User`). */
function componentName(rt: Pick<ResourceType, "group" | "version">, kind: string): string {
  return `${rt.group.split(".").reverse().join(".")}.${rt.version}.${kind}`;
}

/** TypeBox (JSON Schema) → OpenAPI 3.0 schema: nullable instead of null unions, map types, list types. */
function toOpenApiSchema(schema: TSchema): Json {
  const anyOf = schema.anyOf as TSchema[] | undefined;
  if (anyOf) {
    const nonNull = anyOf.filter((s) => s.type !== "null");
    if (nonNull.length === 1 && nonNull[0]) {
      const inner = toOpenApiSchema(nonNull[0]);
      return {
        ...inner,
        ...(schema.description ? { description: schema.description } : {}),
        ...(nonNull.length < anyOf.length ? { nullable: true } : {}),
      };
    }
    return { ...(schema.description ? { description: schema.description } : {}), anyOf: anyOf.map(toOpenApiSchema) };
  }
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    switch (key) {
      case "$id":
        break;
      case "properties":
        out.properties = Object.fromEntries(
          Object.entries(value as Record<string, TSchema>).map(([k, v]) => [k, toOpenApiSchema(v)]),
        );
        break;
      case "patternProperties": {
        // Type.Record: a string-keyed map, which OpenAPI spells additionalProperties.
        const first = Object.values(value as Record<string, TSchema>)[0];
        if (first) out.additionalProperties = toOpenApiSchema(first);
        break;
      }
      case "additionalProperties":
        if (!schema.patternProperties)
          out.additionalProperties = typeof value === "object" ? toOpenApiSchema(value as TSchema) : value;
        break;
      case "items":
        out.items = toOpenApiSchema(value as TSchema);
        break;
      default:
        out[key] = value;
    }
  }
  if (schema.type === "object" && Object.keys((schema.properties as object | undefined) ?? {}).length === 0) {
    // An object with no declared fields (fieldsV1): any content is kept.
    if (!schema.patternProperties) out["x-kubernetes-preserve-unknown-fields"] = true;
  }
  if (schema.type === "array") {
    const lt = listTypeOfSchema(schema);
    out["x-kubernetes-list-type"] = lt.type;
    if (lt.type === "map") out["x-kubernetes-list-map-keys"] = lt.keys;
  }
  return out;
}

const LIST_META = {
  description: "Standard list metadata.",
  type: "object",
  properties: {
    resourceVersion: { type: "string", description: "The version of the list, for watches from this point." },
    continue: { type: "string", description: "Token for the next page, when the list was limited." },
    remainingItemCount: { type: "integer", format: "int64", description: "Items after this page (estimate)." },
  },
};

const STATUS_SCHEMA = {
  description: "Status is the result of an operation that does not return an object (errors, deletes).",
  type: "object",
  properties: {
    apiVersion: { type: "string" },
    kind: { type: "string" },
    status: { type: "string", description: "Success or Failure." },
    message: { type: "string" },
    reason: { type: "string" },
    code: { type: "integer", format: "int32" },
    details: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
  },
};

function param(name: string, description: string, type = "string", extra: Json = {}): Json {
  return { name, in: "query", description, schema: { type, uniqueItems: true }, ...extra };
}

const P = {
  pretty: param("pretty", "If 'true', the output is pretty printed."),
  dryRun: param("dryRun", "When present (All), the change is validated and admitted but not persisted."),
  fieldManager: param(
    "fieldManager",
    "Name of the actor making the change; at most 128 characters. Defaults to the User-Agent's product.",
  ),
  fieldValidation: param(
    "fieldValidation",
    "How unknown and duplicate fields are treated: Ignore (drop silently), Warn (drop with a Warning header, the default) or Strict (fail the request).",
  ),
  force: param("force", "Server-side apply: take over fields owned by other managers.", "boolean"),
  labelSelector: param("labelSelector", "Selects objects by their labels."),
  fieldSelector: param("fieldSelector", "Selects objects by their fields (metadata.name, metadata.namespace, …)."),
  limit: param("limit", "Most items in one response; continue with the returned token.", "integer"),
  continue: param("continue", "Token from a previous limited list."),
  resourceVersion: param("resourceVersion", "List or watch from this version."),
  resourceVersionMatch: param("resourceVersionMatch", "Exact or NotOlderThan, how resourceVersion applies."),
  watch: param("watch", "Stream changes instead of listing.", "boolean"),
  allowWatchBookmarks: param("allowWatchBookmarks", "Ask for BOOKMARK events in a watch.", "boolean"),
  sendInitialEvents: param("sendInitialEvents", "Start a watch with the current objects as ADDED events.", "boolean"),
  timeoutSeconds: param("timeoutSeconds", "End a list or watch after this many seconds.", "integer"),
  gracePeriodSeconds: param("gracePeriodSeconds", "Seconds before the object is deleted.", "integer"),
  propagationPolicy: param("propagationPolicy", "Orphan, Background or Foreground garbage collection."),
  name: { name: "name", in: "path", required: true, description: "Name of the object.", schema: { type: "string" } },
  namespace: {
    name: "namespace",
    in: "path",
    required: true,
    description: "Namespace of the objects.",
    schema: { type: "string" },
  },
};

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

function content(schemaName: string, types = ["application/json", "application/yaml"]): Json {
  return Object.fromEntries(types.map((t) => [t, { schema: ref(schemaName) }]));
}

function operation(
  rt: ResourceType,
  action: string,
  opId: string,
  description: string,
  parameters: Json[],
  response: string,
  request?: { name: string; types?: string[] },
  codes: string[] = ["200"],
): Json {
  return {
    tags: [`${rt.group}_${rt.version}`],
    description,
    operationId: opId,
    parameters,
    ...(request ? { requestBody: { required: true, content: content(request.name, request.types) } } : {}),
    responses: {
      ...Object.fromEntries(
        codes.map((c) => [c, { description: c === "201" ? "Created" : "OK", content: content(response) }]),
      ),
      "401": { description: "Unauthorized" },
    },
    "x-kubernetes-action": action,
    "x-kubernetes-group-version-kind": { group: rt.group, version: rt.version, kind: rt.kind },
  };
}

const PATCH_CONTENT_TYPES = [...ADVERTISED_PATCH_TYPES];

/** What the paths of one kind share: where they live and the names of their operations and schemas. */
interface KindPaths {
  rt: ResourceType;
  base: string;
  Kind: string;
  kindName: string;
  listName: string;
  verbs: Set<string>;
  nsParams: Json[];
  /** "Namespaced" in the operation ids of a namespaced kind (kube-apiserver's naming). */
  suffix: string;
  collection: string;
  item: string;
}

const WRITE_PARAMS = [P.dryRun, P.fieldManager, P.fieldValidation];
const LIST_PARAMS = [
  P.labelSelector,
  P.fieldSelector,
  P.limit,
  P.continue,
  P.resourceVersion,
  P.resourceVersionMatch,
  P.watch,
  P.allowWatchBookmarks,
  P.sendInitialEvents,
  P.timeoutSeconds,
];
const PATCH_BODY = { name: "io.k8s.apimachinery.pkg.apis.meta.v1.Patch", types: PATCH_CONTENT_TYPES };

function pathsOf(rt: ResourceType): Record<string, Json> {
  const base = `/apis/${rt.group}/${rt.version}`;
  const collection = rt.namespaced ? `${base}/namespaces/{namespace}/${rt.plural}` : `${base}/${rt.plural}`;
  const k: KindPaths = {
    rt,
    base,
    Kind: rt.kind,
    kindName: componentName(rt, rt.kind),
    listName: componentName(rt, rt.listKind),
    verbs: new Set<string>(rt.verbs),
    nsParams: rt.namespaced ? [P.namespace] : [],
    suffix: rt.namespaced ? "Namespaced" : "",
    collection,
    item: `${collection}/{name}`,
  };
  return { ...collectionPaths(k), ...itemPaths(k), ...statusPaths(k) };
}

/** The collection: list (and watch), create, deletecollection; and the list across namespaces. */
function collectionPaths(k: KindPaths): Record<string, Json> {
  const { rt, Kind, suffix, verbs, kindName, listName } = k;
  const paths: Record<string, Json> = {};
  const coll: Json = { parameters: [...k.nsParams, P.pretty] };
  if (verbs.has("list"))
    coll.get = operation(rt, "list", `list${suffix}${Kind}`, `list or watch ${Kind} objects`, LIST_PARAMS, listName);
  if (verbs.has("create"))
    coll.post = operation(
      rt,
      "post",
      `create${suffix}${Kind}`,
      `create a ${Kind}`,
      WRITE_PARAMS,
      kindName,
      { name: kindName },
      ["200", "201"],
    );
  if (verbs.has("deletecollection"))
    coll.delete = operation(
      rt,
      "deletecollection",
      `deleteCollection${suffix}${Kind}`,
      `delete a collection of ${Kind} objects`,
      [...LIST_PARAMS.slice(0, 5), P.dryRun, P.gracePeriodSeconds, P.propagationPolicy],
      "io.k8s.apimachinery.pkg.apis.meta.v1.Status",
    );
  if (coll.get || coll.post || coll.delete) paths[k.collection] = coll;
  if (rt.namespaced && verbs.has("list")) {
    paths[`${k.base}/${rt.plural}`] = {
      parameters: [P.pretty],
      get: operation(
        rt,
        "list",
        `list${Kind}ForAllNamespaces`,
        `list or watch ${Kind} objects of every namespace`,
        LIST_PARAMS,
        listName,
      ),
    };
  }
  return paths;
}

/** One object: get, replace, patch, delete. */
function itemPaths(k: KindPaths): Record<string, Json> {
  const { rt, Kind, suffix, verbs, kindName } = k;
  const one: Json = { parameters: [P.name, ...k.nsParams, P.pretty] };
  if (verbs.has("get"))
    one.get = operation(rt, "get", `read${suffix}${Kind}`, `read the specified ${Kind}`, [], kindName);
  if (verbs.has("update"))
    one.put = operation(rt, "put", `replace${suffix}${Kind}`, `replace the specified ${Kind}`, WRITE_PARAMS, kindName, {
      name: kindName,
    });
  if (verbs.has("patch"))
    one.patch = operation(
      rt,
      "patch",
      `patch${suffix}${Kind}`,
      `partially update the specified ${Kind}`,
      [...WRITE_PARAMS, P.force],
      kindName,
      PATCH_BODY,
    );
  if (verbs.has("delete"))
    one.delete = operation(
      rt,
      "delete",
      `delete${suffix}${Kind}`,
      `delete the specified ${Kind}`,
      [P.dryRun, P.gracePeriodSeconds, P.propagationPolicy],
      kindName,
    );
  return one.get || one.put || one.patch || one.delete ? { [k.item]: one } : {};
}

/** The status subresource, when the kind serves it: get, replace, patch. */
function statusPaths(k: KindPaths): Record<string, Json> {
  const { rt, Kind, suffix, kindName } = k;
  if (!rt.hasStatus) return {};
  return {
    [`${k.item}/status`]: {
      parameters: [P.name, ...k.nsParams, P.pretty],
      get: operation(rt, "get", `read${suffix}${Kind}Status`, `read status of the specified ${Kind}`, [], kindName),
      put: operation(
        rt,
        "put",
        `replace${suffix}${Kind}Status`,
        `replace status of the specified ${Kind}`,
        WRITE_PARAMS,
        kindName,
        { name: kindName },
      ),
      patch: operation(
        rt,
        "patch",
        `patch${suffix}${Kind}Status`,
        `partially update status of the specified ${Kind}`,
        [...WRITE_PARAMS, P.force],
        kindName,
        PATCH_BODY,
      ),
    },
  };
}

function schemasOf(rt: ResourceType): Record<string, Json> {
  const gvk = (kind: string) => [{ group: rt.group, version: rt.version, kind }];
  const kindSchema = toOpenApiSchema(rt.schema);
  return {
    [componentName(rt, rt.kind)]: { ...kindSchema, "x-kubernetes-group-version-kind": gvk(rt.kind) },
    [componentName(rt, rt.listKind)]: {
      description: `${rt.listKind} is a list of ${rt.kind} objects.`,
      type: "object",
      required: ["items"],
      properties: {
        apiVersion: { type: "string", description: `Always ${rt.group}/${rt.version}.` },
        kind: { type: "string", description: `Always ${rt.listKind}.` },
        metadata: LIST_META,
        items: { type: "array", description: `The ${rt.plural}.`, items: ref(componentName(rt, rt.kind)) },
      },
      "x-kubernetes-group-version-kind": gvk(rt.listKind),
    },
  };
}

/** The document of one group/version: every kind's schema and operations. */
export function groupVersionDocument(registry: Registry, group: string, version: string): Json | undefined {
  const kinds = registry.resourceTypes().filter((rt) => rt.group === group && rt.version === version);
  if (kinds.length === 0) return undefined;
  return {
    openapi: "3.0.0",
    info: { title: "platform management API", version: `${group}/${version}` },
    // Operation paths are relative to the management API prefix.
    servers: [{ url: API_PREFIX }],
    paths: Object.fromEntries(kinds.flatMap((rt) => Object.entries(pathsOf(rt)))),
    components: {
      schemas: {
        ...Object.fromEntries(kinds.flatMap((rt) => Object.entries(schemasOf(rt)))),
        "io.k8s.apimachinery.pkg.apis.meta.v1.Status": STATUS_SCHEMA,
        "io.k8s.apimachinery.pkg.apis.meta.v1.Patch": {
          description: "A JSON Patch, JSON merge patch or apply configuration.",
          type: "object",
        },
      },
      securitySchemes: {
        BearerToken: { type: "apiKey", description: "Bearer access key", name: "authorization", in: "header" },
      },
    },
    security: [{ BearerToken: [] }],
  };
}

/** A serialised document and its content hash (the `hash` of its index URL, and its ETag). */
export interface OpenApiDocs {
  index: Json;
  documents: Map<string, { body: string; hash: string }>;
}

/**
 * Builds the /openapi/v3 index and every group/version document once (the kinds are
 * fixed for a server's lifetime). serverRelativeURL carries the API prefix, because
 * clients request it as an absolute path on the server.
 */
export function buildOpenApi(registry: Registry): OpenApiDocs {
  const gvs = new Set(registry.resourceTypes().map((rt) => `${rt.group}/${rt.version}`));
  const documents = new Map<string, { body: string; hash: string }>();
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const gv of gvs) {
    const [group = "", version = ""] = gv.split("/");
    const doc = groupVersionDocument(registry, group, version);
    if (!doc) continue;
    const body = JSON.stringify(doc);
    const hash = createHash("sha512").update(body).digest("hex").slice(0, 128).toUpperCase();
    const key = `apis/${gv}`;
    documents.set(key, { body, hash });
    paths[key] = { serverRelativeURL: `${API_PREFIX}/openapi/v3/${key}?hash=${hash}` };
  }
  return { index: { paths }, documents };
}
