/**
 * CustomResourceDefinitions for the platform's kinds, made from what the platform serves: the
 * component schemas of its /openapi/v3 document and the names, scope, short names, categories
 * and status subresources of its discovery. Installed into a real kube-apiserver, they make it
 * the reference the compatibility oracle compares the platform with.
 */

type Json = Record<string, unknown>;

/** One entry of an APIResourceList (meta/v1), as far as a CRD needs it. */
export interface DiscoveredResource {
  name: string;
  singularName?: string;
  namespaced: boolean;
  kind: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
}

/**
 * The CRDs of every stored kind of `group`/`version`. Create-only kinds (selves, tokens) are left
 * out: a CRD always serves every verb, so there is nothing of theirs to compare.
 */
export function crdsFromPlatform(
  group: string,
  version: string,
  resources: DiscoveredResource[],
  openApiDocument: { components: { schemas: Record<string, Json> } },
): Json[] {
  const withStatus = new Set(resources.filter((r) => r.name.endsWith("/status")).map((r) => r.name.split("/")[0]));
  const schemas = Object.values(openApiDocument.components.schemas);
  return resources
    .filter((r) => !r.name.includes("/") && r.verbs.includes("get"))
    .map((r) => {
      const schema = schemas.find((s) => gvkKind(s, group, version) === r.kind);
      if (!schema) throw new Error(`no OpenAPI schema of kind ${r.kind} in the platform's document`);
      return {
        apiVersion: "apiextensions.k8s.io/v1",
        kind: "CustomResourceDefinition",
        metadata: { name: `${r.name}.${group}` },
        spec: {
          group,
          scope: r.namespaced ? "Namespaced" : "Cluster",
          names: {
            kind: r.kind,
            listKind: `${r.kind}List`,
            plural: r.name,
            singular: r.singularName || r.kind.toLowerCase(),
            ...(r.shortNames?.length ? { shortNames: r.shortNames } : {}),
            ...(r.categories?.length ? { categories: r.categories } : {}),
          },
          versions: [
            {
              name: version,
              served: true,
              storage: true,
              schema: { openAPIV3Schema: structural(withoutMetadata(schema)) },
              ...(withStatus.has(r.name) ? { subresources: { status: {} } } : {}),
            },
          ],
        },
      };
    });
}

function gvkKind(schema: Json, group: string, version: string): string | undefined {
  const gvks = schema["x-kubernetes-group-version-kind"] as
    | { group: string; version: string; kind: string }[]
    | undefined;
  return gvks?.find((g) => g.group === group && g.version === version)?.kind;
}

/** kube-apiserver owns metadata's schema: a CRD may say no more of it than that it is an object. */
function withoutMetadata(schema: Json): Json {
  const properties = { ...(schema.properties as Record<string, Json>), metadata: { type: "object" } };
  return { ...schema, properties };
}

/**
 * An OpenAPI schema in the structural form kube requires of a CRD: a free-form object
 * (`additionalProperties: true`, which the platform keeps as sent) becomes
 * `x-kubernetes-preserve-unknown-fields`; the GVK extension and references have no place in it.
 */
export function structural(schema: Json): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "x-kubernetes-group-version-kind" || key === "$id") continue;
    if (key === "additionalProperties") {
      if (value === true) out["x-kubernetes-preserve-unknown-fields"] = true;
      else if (value && typeof value === "object") out.additionalProperties = structural(value as Json);
      continue;
    }
    if (key === "properties") {
      const props = Object.entries(value as Record<string, Json>);
      if (props.length > 0) out.properties = Object.fromEntries(props.map(([k, v]) => [k, structural(v)]));
      continue;
    }
    out[key] = key === "items" ? structural(value as Json) : value;
  }
  return out;
}
