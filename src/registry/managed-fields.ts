import {
  differenceFieldsV1,
  diffFieldsV1,
  type FieldsV1,
  fieldsV1Of,
  isEmptyFieldsV1,
  unionFieldsV1,
} from "../api/fields-v1.js";
import { type KubeObject, type ManagedFieldsEntry, nowTimestamp } from "../api/object.js";
import { listTypeAt } from "./list-types.js";
import { apiVersionOf, type ResourceType } from "./resource-type.js";

/** Kubernetes keeps at most this many Update managers; older ones are merged into one entry. */
const MAX_UPDATE_MANAGERS = 10;
const ANCIENT_CHANGES_MANAGER = "ancient-changes";

/** Metadata the server sets: never owned by a manager. */
const SERVER_METADATA = new Set([
  "name",
  "namespace",
  "uid",
  "resourceVersion",
  "generation",
  "creationTimestamp",
  "managedFields",
  "selfLink",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "generateName",
]);

/**
 * The part of an object whose fields managers own: server-owned metadata is never
 * owned, and status belongs to the status subresource's managers only. Copied key by key
 * (every write computes it, and object rest destructuring was most of its cost), in the
 * object's own key order, as the rest pattern copied them.
 */
export function ownedPart(
  obj: KubeObject | undefined,
  rt: Pick<ResourceType, "hasStatus">,
  subresource: string,
): Record<string, unknown> {
  if (!obj) return {};
  if (subresource === "status") return obj.status === undefined ? {} : { status: obj.status };
  const out: Record<string, unknown> = {};
  const whole = obj as unknown as Record<string, unknown>;
  for (const k of Object.keys(whole)) {
    if (k !== "apiVersion" && k !== "kind" && k !== "metadata" && k !== "status") put(out, k, whole[k]);
  }
  const given = (obj.metadata ?? {}) as Record<string, unknown>;
  const metadata: Record<string, unknown> = {};
  let owned = false;
  for (const k of Object.keys(given)) {
    if (SERVER_METADATA.has(k)) continue;
    put(metadata, k, given[k]);
    owned = true;
  }
  if (owned) out.metadata = metadata;
  if (!rt.hasStatus && obj.status !== undefined) out.status = obj.status;
  return out;
}

/** `into[key] = value` as a copy defines it: a key named `__proto__` is a field, not the prototype. */
function put(into: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__")
    Object.defineProperty(into, key, { value, enumerable: true, writable: true, configurable: true });
  else into[key] = value;
}

/**
 * Records an Update operation in managedFields: the fields this request added or
 * changed move to `manager` (taken from whoever owned them), as kube-apiserver's
 * field manager does for non-apply writes.
 */
export function recordUpdateManager(
  obj: KubeObject,
  old: KubeObject | undefined,
  manager: string,
  subresource: string,
  now: Date,
  rt: Pick<ResourceType, "hasStatus" | "schema" | "group" | "version">,
): void {
  const listType = (path: readonly string[]) => listTypeAt(rt, path);
  const before = ownedPart(old, rt, subresource);
  const after = ownedPart(obj, rt, subresource);
  const changed: FieldsV1 = old ? diffFieldsV1(before, after, listType) : fieldsV1Of(after, listType);

  // As in Kubernetes: managedFields a client sends replace the stored ones (kubectl's move from
  // client-side to server-side apply relies on it); an absent or empty list keeps them, so
  // clients unaware of the field never strip it; `[{}]` resets them to nothing.
  const sent = obj.metadata.managedFields;
  if (sent?.length === 1 && Object.keys(sent[0] ?? {}).length === 0) {
    delete obj.metadata.managedFields;
    return;
  }
  let entries: ManagedFieldsEntry[] =
    sent !== undefined && sent.length > 0 ? [...sent] : [...(old?.metadata.managedFields ?? [])];
  if (isEmptyFieldsV1(changed)) {
    if (entries.length) obj.metadata.managedFields = entries;
    else delete obj.metadata.managedFields;
    return;
  }
  entries = entries
    .map((e) => ({
      ...e,
      fieldsV1: differenceFieldsV1((e.fieldsV1 ?? {}) as FieldsV1, changed) as Record<string, unknown>,
    }))
    .filter((e) => !isEmptyFieldsV1(e.fieldsV1 as FieldsV1));
  const sub = subresource || undefined;
  const mine = entries.find(
    (e) => e.manager === manager && e.operation === "Update" && (e.subresource || undefined) === sub,
  );
  const time = nowTimestamp(now);
  if (mine) {
    mine.fieldsV1 = unionFieldsV1((mine.fieldsV1 ?? {}) as FieldsV1, changed) as Record<string, unknown>;
    mine.time = time;
  } else {
    entries.push({
      manager,
      operation: "Update",
      apiVersion: apiVersionOf(rt),
      time,
      fieldsType: "FieldsV1",
      fieldsV1: changed as Record<string, unknown>,
      ...(sub ? { subresource: sub } : {}),
    });
  }
  obj.metadata.managedFields = capUpdateManagers(entries);
}

/** Merges the oldest Update entries into one `ancient-changes` entry beyond the limit. */
export function capUpdateManagers(entries: ManagedFieldsEntry[]): ManagedFieldsEntry[] {
  const updates = entries.filter((e) => e.operation === "Update");
  if (updates.length <= MAX_UPDATE_MANAGERS) return entries;
  const byAge = [...updates].sort((a, b) => (a.time ?? "").localeCompare(b.time ?? ""));
  const excess = byAge.slice(0, updates.length - MAX_UPDATE_MANAGERS + 1);
  const merged = excess.reduce<FieldsV1>(
    (acc, e) => unionFieldsV1(acc, (e.fieldsV1 ?? {}) as FieldsV1),
    {} as FieldsV1,
  );
  const kept = entries.filter((e) => !excess.includes(e));
  kept.push({
    manager: ANCIENT_CHANGES_MANAGER,
    operation: "Update",
    apiVersion: excess[0]?.apiVersion,
    time: excess.at(-1)?.time,
    fieldsType: "FieldsV1",
    fieldsV1: merged as Record<string, unknown>,
  });
  return kept;
}
