import { GROUP, type KubeObject, VERSION } from "../api/object.js";
import type { ConsoleField } from "../registry/presentation.js";
import { ALL_VERBS, type ResourceType, type TableColumn } from "../registry/resource-type.js";
import { withOwnerValidation } from "./owner-validation.js";

type KindSpec = Omit<
  ResourceType,
  "group" | "version" | "listKind" | "verbs" | "categories" | "strategy" | "accessRules" | "owner"
> &
  Partial<Pick<ResourceType, "verbs" | "categories" | "strategy">>;

/**
 * Fills the defaults every kind of this group shares, and what its schema tells: whether its
 * objects carry access rules (`spec.access`) and name an owner (`spec.owner`: at most one of user
 * and team, owner-validation.ts). A console presentation may name only the kind's own Table
 * columns; a project's instances are namespaced and have `spec.clusterRef`.
 */
export function defineKind(spec: KindSpec): ResourceType {
  const columnNames = new Set(spec.columns.map((c) => c.name));
  for (const name of spec.console?.columns ?? []) {
    if (!columnNames.has(name)) throw new Error(`${spec.kind}: the console column "${name}" is not one of its columns`);
  }
  if (spec.projectInstance && !(spec.namespaced && specHasField(spec.schema, "clusterRef"))) {
    throw new Error(`${spec.kind}: a project's instances are namespaced and name their cluster in spec.clusterRef`);
  }
  if (spec.projectNamespaced && !spec.namespaced) {
    throw new Error(`${spec.kind}: the objects of a project live in its namespace: the kind is namespaced`);
  }
  const owner = specHasField(spec.schema, "owner");
  const strategy = spec.strategy ?? {};
  return {
    group: GROUP,
    version: VERSION,
    listKind: `${spec.kind}List`,
    verbs: ALL_VERBS,
    categories: ["platform"],
    ...spec,
    strategy: owner ? withOwnerValidation(strategy) : strategy,
    accessRules: specHasField(spec.schema, "access"),
    owner,
  };
}

function specHasField(schema: ResourceType["schema"], field: string): boolean {
  const spec = schema.properties.spec as { properties?: Record<string, unknown> } | undefined;
  return spec?.properties?.[field] !== undefined;
}

/** The console's fields for `spec.displayName` and `spec.description`, which most kinds have. */
export function displayNameFields(): ConsoleField[] {
  return [
    { path: "spec.displayName", label: "Display name", type: "text" },
    { path: "spec.description", label: "Description", type: "textarea" },
  ];
}

/** The Name and Age columns every table has, around the kind's own. */
export function nameColumn(): TableColumn {
  return {
    name: "Name",
    type: "string",
    format: "name",
    description: "Name must be unique within a namespace.",
    priority: 0,
    cell: (o) => o.metadata.name,
  };
}

/** `spec.displayName`, which most kinds have; shown by default or only with `-o wide`. */
export function displayNameColumn(priority: 0 | 1 = 0): TableColumn {
  return {
    name: "Display Name",
    type: "string",
    description: "Name shown in the UI.",
    priority,
    cell: (o) => specString(o, "displayName"),
  };
}

/** `spec.description`, which most kinds have; shown only with `-o wide`. */
export function descriptionColumn(): TableColumn {
  return {
    name: "Description",
    type: "string",
    description: "Description.",
    priority: 1,
    cell: (o) => specString(o, "description"),
  };
}

export function ageColumn(): TableColumn {
  return {
    name: "Age",
    type: "date",
    description: "Time since the object was created.",
    priority: 0,
    cell: (o) => o.metadata.creationTimestamp,
  };
}

export function specString(obj: KubeObject, field: string): string {
  const v = obj.spec?.[field];
  return typeof v === "string" ? v : "";
}

export function statusField(obj: KubeObject, field: string): unknown {
  return obj.status?.[field];
}
