/**
 * FieldsV1: the set-of-fields format of `metadata.managedFields[].fieldsV1`
 * (sigs.k8s.io/structured-merge-diff, as Kubernetes serialises it).
 *
 * Format. A FieldsV1 value is a JSON object whose keys are path elements and
 * whose values are again FieldsV1 objects:
 *
 *   - `f:<name>`          a field of an object            `f:metadata`, `f:app`
 *   - `k:<json object>`   an item of a keyed ("map") list, by its key fields,
 *                         sorted by key name              `k:{"name":"admin"}`
 *   - `v:<json value>`    an item of a "set" list         `v:"a"`
 *   - `i:<index>`         an item by position (only read, never produced here)
 *   - `.`                 the node itself is in the set, used when it also has
 *                         children                       `"k:{...}": {".": {}, "f:name": {}}`
 *
 * A node with no children (`{}`) is itself in the set (a leaf); a node with
 * children is in the set only if it carries `.`; the root `{}` is the empty set.
 *
 *   {"f:metadata":{"f:labels":{"f:app":{}}},
 *    "f:spec":{"f:roles":{"k:{\"name\":\"admin\"}":{".":{},"f:name":{},"f:verbs":{}}}}}
 *
 * Which fields are in the set of an object (fieldsV1Of, Kubernetes' ToFieldSet):
 * every scalar (null included), every empty object, every atomic or empty
 * list, and every item of a keyed or set list (plus the fields inside keyed
 * items). Objects are treated as structs: a non-empty object is not itself a
 * member (no schema tells a struct from a map here, so map entries such as
 * labels come out as `f:<key>` leaves, as Kubernetes prints them).
 *
 * Lists are atomic unless `listType(path)` says otherwise. `path` is the field
 * names from the root to the list, list items skipped (`["spec", "roles"]`,
 * `["spec", "roles", "verbs"]`). A keyed list whose item lacks a key field or
 * repeats a key, or a set holding a non-scalar, is treated as atomic.
 *
 * Flat paths print as Kubernetes prints them in apply conflicts:
 * `.spec.roles[name="admin"].verbs`, `.spec.tags[="a"]`, `.spec.list[0]`.
 * Field names containing `.` or `[` cannot be told apart when parsing such a
 * string back; the structured FieldPath form round-trips exactly.
 */
import { isPlainObject } from "./object.js";

/** A FieldsV1 tree, as stored in managedFields. */
export interface FieldsV1 {
  [element: string]: FieldsV1;
}

export type ListType = { type: "map"; keys: readonly string[] } | { type: "set" } | { type: "atomic" };

/** Says how the list at `path` (field names, list items skipped) merges; undefined means atomic. */
export type ListTypeOf = (path: readonly string[]) => ListType | undefined;

export type PathElement =
  | { field: string }
  | { key: Readonly<Record<string, string | number | boolean>> }
  | { value: unknown }
  | { index: number };

export type FieldPath = readonly PathElement[];

interface Node {
  member: boolean;
  children: Map<string, Node>;
}

const newNode = (): Node => ({ member: false, children: new Map() });

function child(node: Node, element: string): Node {
  let c = node.children.get(element);
  if (!c) {
    c = newNode();
    node.children.set(element, c);
  }
  return c;
}

/** JSON with object keys sorted, so equal values print alike. */
function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(",")}]`;
  if (isPlainObject(v)) {
    const keys = Object.keys(v).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(v[k])}`).join(",")}}`;
  }
  return JSON.stringify(v) ?? "null";
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  }
  if (isPlainObject(a)) {
    if (!isPlainObject(b)) return false;
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

const isScalar = (v: unknown): v is string | number | boolean | null =>
  v === null || typeof v === "string" || typeof v === "number" || typeof v === "boolean";

// ---- path elements -------------------------------------------------------

/** The FieldsV1 key of a path element: `f:name`, `k:{"name":"x"}`, `v:"x"`, `i:0`. */
export function pathElementKey(pe: PathElement): string {
  if ("field" in pe) return `f:${pe.field}`;
  if ("key" in pe) return `k:${canonicalJson(pe.key)}`;
  if ("value" in pe) return `v:${canonicalJson(pe.value)}`;
  return `i:${pe.index}`;
}

/** Reads a FieldsV1 key back into a path element; throws a TypeError when malformed. */
export function parsePathElementKey(element: string): PathElement {
  const kind = element.slice(0, 2);
  const rest = element.slice(2);
  try {
    switch (kind) {
      case "f:":
        return { field: rest };
      case "k:": {
        const key = JSON.parse(rest) as unknown;
        if (isPlainObject(key) && Object.values(key).every((v) => isScalar(v) && v !== null)) {
          return { key: key as Record<string, string | number | boolean> };
        }
        break;
      }
      case "v:":
        return { value: JSON.parse(rest) };
      case "i:":
        if (/^\d+$/.test(rest)) return { index: Number(rest) };
        break;
    }
  } catch {
    // fall through to the TypeError
  }
  throw new TypeError(`invalid FieldsV1 path element: ${JSON.stringify(element)}`);
}

function scalarString(v: unknown): string {
  return typeof v === "string" ? JSON.stringify(v) : canonicalJson(v);
}

/** One path element as Kubernetes prints it: `.name`, `[name="x",port=80]`, `[="x"]`, `[0]`. */
function pathElementString(pe: PathElement): string {
  if ("field" in pe) return `.${pe.field}`;
  if ("key" in pe) {
    return `[${Object.keys(pe.key)
      .sort()
      .map((k) => `${k}=${scalarString(pe.key[k])}`)
      .join(",")}]`;
  }
  if ("value" in pe) return `[=${scalarString(pe.value)}]`;
  return `[${pe.index}]`;
}

/** A path as Kubernetes prints it: `.spec.roles[name="admin"].verbs`. */
export function fieldPathString(path: FieldPath): string {
  return path.map(pathElementString).join("");
}

/** Reads a JSON literal starting at `i` (a quoted string, or up to `,`/`]`); returns it and the end index. */
function readLiteral(s: string, i: number): [unknown, number] {
  let j = i;
  if (s[i] === '"') {
    j++;
    while (j < s.length && s[j] !== '"') j += s[j] === "\\" ? 2 : 1;
    j++;
  } else {
    while (j < s.length && s[j] !== "," && s[j] !== "]") j++;
  }
  return [JSON.parse(s.slice(i, j)), j];
}

/** Parses a printed path (see fieldPathString); throws a TypeError when malformed. */
export function parseFieldPath(s: string): PathElement[] {
  const out: PathElement[] = [];
  let i = 0;
  try {
    while (i < s.length) {
      if (s[i] === ".") {
        let j = i + 1;
        while (j < s.length && s[j] !== "." && s[j] !== "[") j++;
        out.push({ field: s.slice(i + 1, j) });
        i = j;
      } else if (s[i] === "[") {
        i++;
        if (s[i] === "=") {
          const [value, end] = readLiteral(s, i + 1);
          out.push({ value });
          i = end;
        } else if (/\d/.test(s[i] ?? "")) {
          let j = i;
          while (/\d/.test(s[j] ?? "")) j++;
          out.push({ index: Number(s.slice(i, j)) });
          i = j;
        } else {
          const key: Record<string, string | number | boolean> = {};
          while (true) {
            const eq = s.indexOf("=", i);
            if (eq < 0) throw new Error("no '='");
            const [value, end] = readLiteral(s, eq + 1);
            if (!isScalar(value) || value === null) throw new Error("key values are scalars");
            key[s.slice(i, eq)] = value;
            i = end;
            if (s[i] !== ",") break;
            i++;
          }
          out.push({ key });
        }
        if (s[i] !== "]") throw new Error("no ']'");
        i++;
      } else {
        throw new Error(`unexpected ${s[i]}`);
      }
    }
  } catch {
    throw new TypeError(`invalid field path: ${JSON.stringify(s)}`);
  }
  return out;
}

// ---- FieldsV1 <-> tree ---------------------------------------------------

function fromFieldsV1(fs: unknown, root: boolean): Node {
  const node = newNode();
  if (!isPlainObject(fs)) {
    node.member = !root;
    return node;
  }
  const keys = Object.keys(fs).filter((k) => k !== ".");
  node.member = Object.hasOwn(fs, ".") || (!root && keys.length === 0);
  for (const k of keys) node.children.set(k, fromFieldsV1(fs[k], false));
  return node;
}

/** The order of element kinds: `f:`, `k:`, `v:`, `i:`, then anything else (read without slicing: sorts compare often). */
function kindRank(element: string): number {
  if (element.charCodeAt(1) !== 0x3a /* : */) return 4;
  switch (element.charCodeAt(0)) {
    case 0x66 /* f */:
      return 0;
    case 0x6b /* k */:
      return 1;
    case 0x76 /* v */:
      return 2;
    case 0x69 /* i */:
      return 3;
    default:
      return 4;
  }
}

function compareElements(a: string, b: string): number {
  const ra = kindRank(a);
  const rb = kindRank(b);
  if (ra !== rb) return ra - rb;
  if (ra === 3) return Number(a.slice(2)) - Number(b.slice(2));
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Drops nodes that are neither members nor lead to one; true when `node` itself is empty. */
function prune(node: Node): boolean {
  for (const [k, c] of node.children) if (prune(c)) node.children.delete(k);
  return !node.member && node.children.size === 0;
}

function toFieldsV1(node: Node): FieldsV1 {
  prune(node);
  const build = (n: Node): FieldsV1 => {
    const out: FieldsV1 = {};
    if (n.member && n.children.size > 0) out["."] = {};
    for (const k of [...n.children.keys()].sort(compareElements)) out[k] = build(n.children.get(k)!);
    return out;
  };
  return build(node);
}

// ---- the fields of an object ----------------------------------------------

/** The FieldsV1 keys of a list's items, or undefined when the list must be treated as atomic. */
function listElements(list: readonly unknown[], type: ListType): Map<string, unknown> | undefined {
  const out = new Map<string, unknown>();
  for (const item of list) {
    let element: string;
    if (type.type === "set") {
      if (!isScalar(item)) return undefined;
      element = pathElementKey({ value: item });
    } else if (type.type === "map") {
      if (!isPlainObject(item)) return undefined;
      const key: Record<string, string | number | boolean> = {};
      for (const k of type.keys) {
        const v = item[k];
        if (typeof v !== "string" && typeof v !== "number" && typeof v !== "boolean") return undefined;
        key[k] = v;
      }
      element = pathElementKey({ key });
      if (out.has(element)) return undefined;
    } else {
      return undefined;
    }
    out.set(element, item);
  }
  return out;
}

function listTypeAt(listType: ListTypeOf | undefined, path: readonly string[]): ListType {
  return listType?.(path) ?? { type: "atomic" };
}

/** The FieldsV1 set of the fields present in a (partial) object. */
export function fieldsV1Of(obj: unknown, listType?: ListTypeOf): FieldsV1 {
  // Built directly in canonical form, without the tree diffs and unions need: every create and
  // update computes it, and nothing in one value's own fields is ever pruned (each leaf is in the set).
  return isPlainObject(obj) ? objectFields(obj, [], listType) : {};
}

function objectFields(obj: Record<string, unknown>, path: readonly string[], lt?: ListTypeOf): FieldsV1 {
  return sortedFields(Object.keys(obj).map((k) => [`f:${k}`, valueFields(obj[k], [...path, k], lt)]));
}

function valueFields(v: unknown, path: readonly string[], lt?: ListTypeOf): FieldsV1 {
  if (Array.isArray(v)) {
    const type = listTypeAt(lt, path);
    const items = v.length > 0 ? listElements(v, type) : undefined;
    // An atomic or empty list is a leaf.
    if (!items) return {};
    const out: [string, FieldsV1][] = [];
    for (const [element, item] of items) {
      const fields = type.type === "map" && isPlainObject(item) ? objectFields(item, path, lt) : {};
      // Each item is in the set itself: with fields of its own, it says so with `.`.
      out.push([element, Object.keys(fields).length > 0 ? { ".": {}, ...fields } : fields]);
    }
    return sortedFields(out);
  }
  // A non-empty object is not itself in the set (a struct), only its fields; anything else is a leaf.
  return isPlainObject(v) && Object.keys(v).length > 0 ? objectFields(v, path, lt) : {};
}

/** Elements in toFieldsV1's order. */
function sortedFields(entries: [string, FieldsV1][]): FieldsV1 {
  entries.sort((a, b) => compareElements(a[0], b[0]));
  const out: FieldsV1 = {};
  for (const [k, v] of entries) out[k] = v;
  return out;
}

// ---- what an update changed -----------------------------------------------

function diffObject(
  node: Node,
  path: readonly string[],
  lhs: Record<string, unknown> | undefined,
  rhs: Record<string, unknown>,
  lt?: ListTypeOf,
): void {
  for (const [k, v] of Object.entries(rhs)) {
    const present = lhs !== undefined && Object.hasOwn(lhs, k);
    diffValue(child(node, `f:${k}`), [...path, k], present, present ? lhs[k] : undefined, v, lt);
  }
}

function diffValue(
  node: Node,
  path: readonly string[],
  lhsPresent: boolean,
  lhs: unknown,
  rhs: unknown,
  lt?: ListTypeOf,
): void {
  if (lhsPresent && deepEqual(lhs, rhs)) return;
  if (Array.isArray(rhs)) {
    const type = listTypeAt(lt, path);
    const lhsList = Array.isArray(lhs) ? lhs : undefined;
    if (rhs.length === 0) {
      // Emptiness is itself a value unless it replaces a non-empty list (then it only removes).
      if (!lhsList || lhsList.length === 0) node.member = true;
      return;
    }
    const rItems = listElements(rhs, type);
    const lItems = lhsList && lhsList.length > 0 ? listElements(lhsList, type) : new Map<string, unknown>();
    if (!rItems || !lItems) {
      node.member = true;
      return;
    }
    for (const [element, item] of rItems) {
      const had = lItems.has(element);
      const c = child(node, element);
      if (had && deepEqual(lItems.get(element), item)) continue;
      if (!had) c.member = true;
      if (type.type === "map" && isPlainObject(item)) {
        const before = lItems.get(element);
        diffObject(c, path, had && isPlainObject(before) ? before : undefined, item, lt);
      }
    }
    if (!lhsPresent) node.member = true;
    return;
  }
  if (isPlainObject(rhs)) {
    const lhsObject = isPlainObject(lhs) ? lhs : undefined;
    if (Object.keys(rhs).length === 0) {
      if (!lhsObject || Object.keys(lhsObject).length === 0) node.member = true;
      return;
    }
    diffObject(node, path, lhsObject, rhs, lt);
    if (!lhsPresent) node.member = true;
    return;
  }
  node.member = true;
}

/**
 * The fields an update from `oldObj` to `newObj` added or changed (Kubernetes'
 * Comparison Added ∪ Modified): what an Update manager comes to own. Objects,
 * lists and list items that did not exist before are owned themselves too
 * (`.`). With no old object, this is fieldsV1Of(newObj). Removed fields are
 * not included; subtract them from other managers with differenceFieldsV1.
 */
export function diffFieldsV1(oldObj: unknown, newObj: unknown, listType?: ListTypeOf): FieldsV1 {
  if (oldObj === undefined || oldObj === null) return fieldsV1Of(newObj, listType);
  const root = newNode();
  if (isPlainObject(newObj)) diffObject(root, [], isPlainObject(oldObj) ? oldObj : undefined, newObj, listType);
  return toFieldsV1(root);
}

// ---- set operations ------------------------------------------------------

function unionNodes(a: Node, b: Node): Node {
  const out: Node = { member: a.member || b.member, children: new Map() };
  for (const [k, c] of a.children) {
    const other = b.children.get(k);
    out.children.set(k, other ? unionNodes(c, other) : c);
  }
  for (const [k, c] of b.children) if (!a.children.has(k)) out.children.set(k, c);
  return out;
}

function differenceNodes(a: Node, b: Node): Node {
  const out: Node = { member: a.member && !b.member, children: new Map() };
  for (const [k, c] of a.children) {
    const other = b.children.get(k);
    out.children.set(k, other ? differenceNodes(c, other) : c);
  }
  return out;
}

function intersectionNodes(a: Node, b: Node): Node {
  const out: Node = { member: a.member && b.member, children: new Map() };
  for (const [k, c] of a.children) {
    const other = b.children.get(k);
    if (other) out.children.set(k, intersectionNodes(c, other));
  }
  return out;
}

/** Fields in `a` or `b`. */
export function unionFieldsV1(a: FieldsV1, b: FieldsV1): FieldsV1 {
  return toFieldsV1(unionNodes(fromFieldsV1(a, true), fromFieldsV1(b, true)));
}

/** Fields in `a` but not in `b`. */
export function differenceFieldsV1(a: FieldsV1, b: FieldsV1): FieldsV1 {
  return toFieldsV1(differenceNodes(fromFieldsV1(a, true), fromFieldsV1(b, true)));
}

/** Fields in both `a` and `b`. */
export function intersectionFieldsV1(a: FieldsV1, b: FieldsV1): FieldsV1 {
  return toFieldsV1(intersectionNodes(fromFieldsV1(a, true), fromFieldsV1(b, true)));
}

/** True when the set holds no field. */
export function isEmptyFieldsV1(fs: FieldsV1 | undefined | null): boolean {
  // Every node below the root is in the set or leads to one (a node without children is a
  // leaf, and a leaf is a member): a set is empty exactly when its root has no key at all.
  return !isPlainObject(fs) || Object.keys(fs).length === 0;
}

/** The set written canonically: `.` where needed, empty branches dropped, keys sorted. */
export function normalizeFieldsV1(fs: FieldsV1): FieldsV1 {
  return toFieldsV1(fromFieldsV1(fs, true));
}

// ---- flat lists ----------------------------------------------------------

/** Every member of the set as a structured path, in canonical order. */
export function fieldsV1ToPaths(fs: FieldsV1): FieldPath[] {
  const out: FieldPath[] = [];
  const walk = (node: Node, path: PathElement[]) => {
    if (node.member && path.length > 0) out.push(path);
    for (const k of [...node.children.keys()].sort(compareElements)) {
      walk(node.children.get(k)!, [...path, parsePathElementKey(k)]);
    }
  };
  walk(fromFieldsV1(fs, true), []);
  return out;
}

/** The set holding exactly the given paths. */
export function fieldsV1FromPaths(paths: Iterable<FieldPath>): FieldsV1 {
  const root = newNode();
  for (const path of paths) {
    if (path.length === 0) continue;
    let node = root;
    for (const pe of path) node = child(node, pathElementKey(pe));
    node.member = true;
  }
  return toFieldsV1(root);
}

/** Every member printed as Kubernetes prints field paths (`.spec.roles[name="admin"]`). */
export function fieldsV1ToPathStrings(fs: FieldsV1): string[] {
  return fieldsV1ToPaths(fs).map(fieldPathString);
}

/** The set of the given printed paths; throws a TypeError for a malformed one. */
export function fieldsV1FromPathStrings(paths: Iterable<string>): FieldsV1 {
  return fieldsV1FromPaths([...paths].map(parseFieldPath));
}
