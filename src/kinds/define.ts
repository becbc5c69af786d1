import { GROUP, type KubeObject, VERSION } from "../api/object.js";
import { ALL_VERBS, type ResourceType, type TableColumn } from "../registry/resource-type.js";

type KindSpec = Omit<ResourceType, "group" | "version" | "listKind" | "verbs" | "categories" | "strategy"> &
  Partial<Pick<ResourceType, "verbs" | "categories" | "strategy">>;

/** Fills the defaults every kind of this group shares. */
export function defineKind(spec: KindSpec): ResourceType {
  return {
    group: GROUP,
    version: VERSION,
    listKind: `${spec.kind}List`,
    verbs: ALL_VERBS,
    categories: ["platform"],
    strategy: {},
    ...spec,
  };
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
