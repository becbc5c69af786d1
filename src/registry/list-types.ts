import type { TSchema } from "@sinclair/typebox";
import type { ListType, ResourceType } from "./resource-type.js";

/**
 * How each list field of a kind merges, derived from its schema: a list whose items
 * are objects with a required `name` is keyed by name (so two managers can own different
 * items); any other list is atomic. A key must be required, as Kubernetes requires of a
 * CRD's list-map keys: an item without one could not be told from another. The same answer
 * is published in OpenAPI as x-kubernetes-list-type / x-kubernetes-list-map-keys.
 */
export function listTypeOfSchema(arraySchema: TSchema): ListType {
  const items = arraySchema.items as TSchema | undefined;
  const declared = arraySchema["x-kubernetes-list-type"] as string | undefined;
  if (declared === "map")
    return { type: "map", keys: (arraySchema["x-kubernetes-list-map-keys"] as string[]) ?? ["name"] };
  if (declared === "set") return { type: "set" };
  if (declared === "atomic") return { type: "atomic" };
  const required = (items?.required as string[] | undefined) ?? [];
  if (
    items?.type === "object" &&
    (items.properties as Record<string, TSchema> | undefined)?.name &&
    required.includes("name")
  ) {
    return { type: "map", keys: ["name"] };
  }
  return { type: "atomic" };
}

/** Finds the list type at a field path (names only, list indices skipped) in a kind's schema. */
export function listTypeAt(rt: Pick<ResourceType, "schema">, path: readonly string[]): ListType {
  let schema: TSchema | undefined = rt.schema;
  for (const step of path) {
    schema = childSchema(schema, step);
    if (!schema) return { type: "atomic" };
  }
  return schema?.type === "array" ? listTypeOfSchema(schema) : { type: "atomic" };
}

function childSchema(schema: TSchema | undefined, step: string): TSchema | undefined {
  if (!schema) return undefined;
  if (schema.anyOf)
    return childSchema(
      (schema.anyOf as TSchema[]).find((s) => s.type === "object"),
      step,
    );
  if (schema.type === "array") return childSchema(schema.items as TSchema, step);
  const props = schema.properties as Record<string, TSchema> | undefined;
  if (props?.[step]) return props[step];
  const pattern = schema.patternProperties as Record<string, TSchema> | undefined;
  if (pattern) return Object.values(pattern)[0];
  return undefined;
}
