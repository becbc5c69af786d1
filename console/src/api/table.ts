import type { KindInfo } from "../kinds";
import { request } from "./client";
import { collectionPath, type ListQuery, objectPath } from "./resources";
import type { KubeList, KubeObject } from "./types";

/**
 * The server's Table (meta.k8s.io/v1, what `kubectl get` shows) with each row's object: the
 * console's list columns are the kind's Table columns (KindInfo.columns names them), so their
 * cells are computed once, by the server.
 */
const TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io";

interface Table {
  metadata: KubeList["metadata"];
  columnDefinitions: Array<{ name: string }>;
  rows: Array<{ cells: unknown[]; object: KubeObject }>;
}

/** The cells of one object, by column name, as the console shows them. */
export type Cells = Record<string, string>;

/** A page of a kind with the cells of each object, by `cellKey`. */
export interface ListWithCells extends KubeList {
  cells: Record<string, Cells>;
}

/** Which object a row's cells belong to. */
export function cellKey(o: KubeObject): string {
  return `${o.metadata.namespace ?? ""}/${o.metadata.name ?? ""}`;
}

/** A cell as text: `true` is "yes", `false` and empty cells show nothing. */
export function cellText(value: unknown): string {
  if (value === true) return "yes";
  if (value === false || value === null || value === undefined) return "";
  return String(value);
}

function cellsOf(table: Table, cells: unknown[]): Cells {
  return Object.fromEntries(table.columnDefinitions.map((c, i) => [c.name, cellText(cells[i])]));
}

export async function listWithCells(kind: KindInfo, q: ListQuery, signal?: AbortSignal): Promise<ListWithCells> {
  const params = new URLSearchParams({ limit: String(q.limit), includeObject: "Object" });
  if (q.continueToken) params.set("continue", q.continueToken);
  if (q.labelSelector) params.set("labelSelector", q.labelSelector);
  const table = await request<Table>("GET", `${collectionPath(kind)}?${params}`, { accept: TABLE, signal });
  const items = table.rows.map((r) => r.object);
  return {
    metadata: table.metadata,
    items,
    cells: Object.fromEntries(table.rows.map((r) => [cellKey(r.object), cellsOf(table, r.cells)])),
  };
}

export async function getWithCells(
  kind: KindInfo,
  name: string,
  namespace?: string,
): Promise<{ object: KubeObject; cells: Cells }> {
  const path = `${objectPath(kind, name, namespace)}?includeObject=Object`;
  const table = await request<Table>("GET", path, { accept: TABLE });
  const row = table.rows[0];
  if (!row) throw new Error(`the server sent no row for ${kind.kind} ${name}`);
  return { object: row.object, cells: cellsOf(table, row.cells) };
}
