import { isDeepStrictEqual } from "node:util";
import { isPlainObject } from "../api/object.js";
import type { RawObject } from "./object-client.js";
import { quantityValue } from "./quantity.js";
import { isQuantityField } from "./quantity-fields.js";

/**
 * Whether a server-side apply of `desired` under `fieldManager` would change the `live` object
 * (as a GET or LIST of the cluster returned it, managedFields included): the resync's compare,
 * so a pass that changes nothing writes nothing. An apply is needed when
 * - the object is missing;
 * - a field of `desired` is not owned by the manager's apply: someone else changed or took it
 *   (kube moves a field to whoever last wrote it: an edit of one key of an atomic map or list
 *   shows here even where the values still look alike), or it was never applied;
 * - a field of `desired` has another value on the cluster: the desired object changed, or the
 *   field drifted. Maps are compared as a subset (keys the server defaults or others own are no
 *   drift); lists the manager owns element by element (keyed lists, such as containers by name)
 *   are matched by key, other lists element by element with the same length;
 * - the manager owns a field `desired` no longer has: the apply would remove it.
 * A quantity is compared by the value it stands for: a number given for one matches the string
 * the API server keeps ("10", "500m"), and so does a string it keeps in another form ("1000m"
 * kept as "1", "1024Mi" as "1Gi") where a built-in kind keeps a quantity (quantity-fields.ts).
 * Elsewhere strings are compared as written.
 */

/** Why an apply is needed, and where: `path` is the field, written `spec.ports[0].port`. */
export interface ApplyReason {
  reason: "Missing" | "NotOwned" | "Differs" | "WouldRemove";
  path: string;
}

/** managedFields' FieldsV1: `f:<field>`, `k:<key JSON>` (list element by key), `v:<value JSON>` (set element), `i:<index>`, `.` (the node itself). */
type FieldSet = { [entry: string]: FieldSet };

/**
 * Where a compared value is in the object: `path` as a reason names it, `fields` the field
 * names and map keys leading to it (list elements not counted: quantity-fields.ts), and the
 * object's type, which tells the fields that hold quantities.
 */
interface Place {
  readonly path: string;
  readonly fields: readonly string[];
  readonly type: { readonly apiVersion?: string; readonly kind?: string };
}

/** The place of field or map key `key` inside `place`. */
function fieldOf(place: Place, key: string): Place {
  return { ...place, path: place.path ? `${place.path}.${key}` : key, fields: [...place.fields, key] };
}

/** The place of list element `i` inside `place` (a list element adds no field name). */
function elementOf(place: Place, i: number): Place {
  return { ...place, path: `${place.path}[${i}]` };
}

/** The fields below are owned as one value (an atomic map or list, or a scalar). */
const WHOLE = Symbol("whole");
type Owned = FieldSet | typeof WHOLE;

interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  subresource?: string;
  apiVersion?: string;
  fieldsType?: string;
  fieldsV1?: unknown;
}

export function applyNeeded(
  desired: RawObject,
  live: RawObject | undefined,
  fieldManager: string,
): ApplyReason | undefined {
  if (!live) return { reason: "Missing", path: "" };
  const owned = ownedFields(live, fieldManager, desired.apiVersion);
  const view = liveView(desired, live);
  const root: Place = { path: "", fields: [], type: { apiVersion: desired.apiVersion, kind: desired.kind } };
  return compare(withoutIdentity(desired), view, owned ?? {}, root) ?? (owned ? beyond(owned, desired, "") : undefined);
}

/** The fields the manager's apply owns on `live` (for `apiVersion`: another version's are not comparable), if any. */
function ownedFields(live: RawObject, manager: string, apiVersion: string | undefined): FieldSet | undefined {
  const entries = (live.metadata?.managedFields ?? []) as ManagedFieldsEntry[];
  const entry = entries.find(
    (e) => e.manager === manager && e.operation === "Apply" && !e.subresource && e.apiVersion === apiVersion,
  );
  if (entry?.fieldsType !== "FieldsV1" || !isFieldSet(entry.fieldsV1)) return undefined;
  return entry.fieldsV1;
}

/** What names the object rather than sets its fields: matched by the caller, never in managedFields. */
function withoutIdentity(desired: RawObject): Record<string, unknown> {
  const { apiVersion: _v, kind: _k, metadata, ...rest } = desired as Record<string, unknown>;
  const { name: _n, namespace: _ns, ...meta } = (metadata ?? {}) as Record<string, unknown>;
  return Object.keys(meta).length > 0 ? { ...rest, metadata: meta } : rest;
}

/**
 * The live object as `desired` is written. A Secret's `stringData` is write-only: the API server
 * merges it into `data` (base64), so its keys are read back from there.
 */
function liveView(desired: RawObject, live: RawObject): unknown {
  const stringData = (desired as { stringData?: unknown }).stringData;
  if (desired.apiVersion !== "v1" || desired.kind !== "Secret" || !isPlainObject(stringData)) return live;
  const data = ((live as { data?: unknown }).data ?? {}) as Record<string, unknown>;
  const decoded: Record<string, string> = {};
  for (const key of Object.keys(stringData)) {
    const value = data[key];
    if (typeof value === "string") decoded[key] = Buffer.from(value, "base64").toString("utf8");
  }
  return { ...live, stringData: decoded };
}

/** The first field of `desired` not owned as `owned` says or not as on the cluster (`live`). */
function compare(desired: unknown, live: unknown, owned: Owned, place: Place): ApplyReason | undefined {
  if (Array.isArray(desired)) return compareList(desired, live, owned, place);
  if (isPlainObject(desired)) {
    if (!isPlainObject(live)) {
      return Object.keys(desired).length > 0 ? { reason: "Differs", path: place.path } : undefined;
    }
    for (const [key, value] of Object.entries(desired)) {
      if (value === null || value === undefined) continue;
      const at = fieldOf(place, key);
      const child = owned === WHOLE ? WHOLE : owned[`f:${key}`];
      if (child === undefined) return { reason: "NotOwned", path: at.path };
      const found = compare(value, live[key], ownedAs(child, value), at);
      if (found) return found;
    }
    return undefined;
  }
  return sameValue(desired, live, place) ? undefined : { reason: "Differs", path: place.path };
}

/**
 * Equal, or the same quantity: a number the API server keeps as a quantity string (a quota's
 * `pods: 10` is stored as "10", `cpu: 0.5` as "500m"; only a quantity field takes a number and
 * gives back a string), or a quantity string it keeps in its own form ("1000m" as "1") in a
 * field known to hold quantities.
 */
function sameValue(desired: unknown, live: unknown, place: Place): boolean {
  if (typeof desired === "number" && typeof live === "string") return quantityValue(live) === desired;
  if (
    typeof desired === "string" &&
    typeof live === "string" &&
    desired !== live &&
    isQuantityField(place.type.apiVersion, place.type.kind, place.fields)
  ) {
    const value = quantityValue(desired);
    return value !== undefined && value === quantityValue(live);
  }
  return isDeepStrictEqual(desired, live);
}

function compareList(desired: unknown[], live: unknown, owned: Owned, place: Place): ApplyReason | undefined {
  const items = Array.isArray(live) ? live : [];
  if (owned !== WHOLE && hasEntries(owned, "k:")) {
    for (const [i, item] of desired.entries()) {
      const at = elementOf(place, i);
      const entry = Object.entries(owned).find(([e]) => e.startsWith("k:") && keyFits(keyOfEntry(e), item, false));
      if (!entry) return { reason: "NotOwned", path: at.path };
      const key = keyOfEntry(entry[0]);
      const match = items.find((l) => keyFits(key, l, true));
      if (match === undefined) return { reason: "Differs", path: at.path };
      const found = compare(item, match, ownedAs(entry[1], item), at);
      if (found) return found;
    }
    return undefined;
  }
  if (owned !== WHOLE && hasEntries(owned, "v:")) {
    for (const [i, item] of desired.entries()) {
      const at = elementOf(place, i).path;
      if (!Object.keys(owned).some((e) => e.startsWith("v:") && isDeepStrictEqual(parseEntry(e), item))) {
        return { reason: "NotOwned", path: at };
      }
      if (!items.some((l) => isDeepStrictEqual(l, item))) return { reason: "Differs", path: at };
    }
    return undefined;
  }
  // Owned whole (atomic): the apply would set it as written.
  if (!Array.isArray(live) && desired.length === 0) return undefined;
  if (items.length !== desired.length) return { reason: "Differs", path: place.path };
  for (const [i, item] of desired.entries()) {
    const found = compare(item, items[i], WHOLE, elementOf(place, i));
    if (found) return found;
  }
  return undefined;
}

/** A field owned with nothing listed below it, holding a map or list: owned as one value. */
function ownedAs(owned: Owned, value: unknown): Owned {
  if (owned === WHOLE) return WHOLE;
  const below = Object.keys(owned).some((e) => e !== ".");
  return below || !(isPlainObject(value) || Array.isArray(value)) ? owned : WHOLE;
}

/** The first field the manager owns that `desired` no longer has: the apply would remove it. */
function beyond(owned: FieldSet, desired: unknown, path: string): ApplyReason | undefined {
  for (const [entry, below] of Object.entries(owned)) {
    if (entry === ".") continue;
    let value: unknown;
    let at: string;
    if (entry.startsWith("f:")) {
      const name = entry.slice(2);
      value = isPlainObject(desired) ? desired[name] : undefined;
      at = path ? `${path}.${name}` : name;
    } else if (entry.startsWith("k:")) {
      const key = keyOfEntry(entry);
      value = Array.isArray(desired) ? desired.find((d) => keyFits(key, d, false)) : undefined;
      at = `${path}[${entry.slice(2)}]`;
    } else if (entry.startsWith("v:")) {
      const item = parseEntry(entry);
      value = Array.isArray(desired) && desired.some((d) => isDeepStrictEqual(d, item)) ? item : undefined;
      at = `${path}[${entry.slice(2)}]`;
    } else if (entry.startsWith("i:") && Array.isArray(desired)) {
      value = desired[Number(entry.slice(2))];
      at = `${path}[${entry.slice(2)}]`;
    } else {
      // An entry this compare does not know: the apply decides.
      return { reason: "WouldRemove", path: `${path}{${entry}}` };
    }
    if (value === undefined || value === null) return { reason: "WouldRemove", path: at };
    const found = beyond(below, value, at);
    if (found) return found;
  }
  return undefined;
}

/** A `k:` entry's key fields; undefined when it does not parse (matches nothing). */
function keyOfEntry(entry: string): Record<string, unknown> | undefined {
  const key = parseEntry(entry);
  return isPlainObject(key) ? key : undefined;
}

function parseEntry(entry: string): unknown {
  try {
    return JSON.parse(entry.slice(2));
  } catch {
    return undefined;
  }
}

/**
 * Whether a list element is the one a key names. The key kube records holds the key fields the
 * API server defaulted too (a port's `protocol: TCP`): an element as the platform wrote it
 * (`strict` false) may leave those out, one on the cluster (`strict` true) has them all.
 */
function keyFits(key: Record<string, unknown> | undefined, item: unknown, strict: boolean): boolean {
  if (!key || !isPlainObject(item)) return false;
  let named = 0;
  for (const [field, value] of Object.entries(key)) {
    if (item[field] === undefined && !strict) continue;
    if (!isDeepStrictEqual(item[field], value)) return false;
    named++;
  }
  return named > 0;
}

function hasEntries(owned: FieldSet, prefix: string): boolean {
  return Object.keys(owned).some((e) => e.startsWith(prefix));
}

function isFieldSet(value: unknown): value is FieldSet {
  return isPlainObject(value) && Object.values(value).every(isFieldSet);
}
