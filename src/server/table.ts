import { errors } from "../api/errors.js";
import type { KubeObject } from "../api/object.js";
import type { ResourceType } from "../registry/resource-type.js";

export type IncludeObject = "None" | "Metadata" | "Object";

export function parseIncludeObject(value: string | undefined): IncludeObject {
  if (value === undefined || value === "") return "Metadata";
  if (value === "None" || value === "Metadata" || value === "Object") return value;
  // kube-apiserver's wording (optionsForTransform + ValidateTableOptions).
  throw errors.badRequest(
    `Unable to convert to Table as requested: includeObject: Invalid value: ${JSON.stringify(value)}: must be 'Metadata', 'Object', 'None', or empty`,
  );
}

/** kubectl's short age form: 45s, 12m, 5h, 3d, 2y (k8s.io/apimachinery duration.HumanDuration, simplified). */
function humanAge(timestamp: unknown, now = Date.now()): string {
  if (typeof timestamp !== "string") return "<unknown>";
  const t = Date.parse(timestamp);
  if (Number.isNaN(t)) return "<unknown>";
  const s = Math.max(0, Math.floor((now - t) / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return `${m}m${s % 60 ? `${s % 60}s` : ""}`;
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 8) return `${h}h${m % 60 ? `${m % 60}m` : ""}`;
  if (h < 48) return `${h}h`;
  const d = Math.floor(h / 24);
  if (d < 8) return `${d}d${h % 24 ? `${h % 24}h` : ""}`;
  if (d < 365 * 2) return `${d}d`;
  return `${Math.floor(d / 365)}y`;
}

function columnDefinitions(rt: ResourceType) {
  return rt.columns.map((c) => ({
    name: c.name,
    type: c.type === "date" ? "string" : c.type,
    format: c.format ?? "",
    description: c.description,
    priority: c.priority,
  }));
}

function row(rt: ResourceType, obj: KubeObject, include: IncludeObject) {
  const cells = rt.columns.map((c) => {
    const v = c.cell(obj);
    if (c.type === "date") return humanAge(v);
    return v ?? (c.type === "string" ? "" : null);
  });
  const r: Record<string, unknown> = { cells };
  if (include === "Object") r.object = obj;
  else if (include === "Metadata") {
    r.object = { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: obj.metadata };
  }
  return r;
}

/** A meta.k8s.io/v1 Table of objects; `withColumns` false omits the definitions (watch events after the first). */
export function toTable(
  rt: ResourceType,
  objects: KubeObject[],
  include: IncludeObject,
  listMeta: Record<string, unknown> = {},
  withColumns = true,
): Record<string, unknown> {
  return {
    kind: "Table",
    apiVersion: "meta.k8s.io/v1",
    metadata: listMeta,
    columnDefinitions: withColumns ? columnDefinitions(rt) : null,
    rows: objects.map((o) => row(rt, o, include)),
  };
}

/**
 * A one-row Table of a single object (GET, a write's result, a watch event). Like
 * kube-apiserver, its metadata carries the object's resourceVersion.
 */
export function objectTable(
  rt: ResourceType,
  obj: KubeObject,
  include: IncludeObject,
  withColumns = true,
): Record<string, unknown> {
  return toTable(rt, [obj], include, { resourceVersion: obj.metadata.resourceVersion }, withColumns);
}
