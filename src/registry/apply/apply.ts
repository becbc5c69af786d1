import { isDeepStrictEqual } from "node:util";
import { ApiError, errors, type StatusCause } from "../../api/errors.js";
import {
  differenceFieldsV1,
  diffFieldsV1,
  type FieldsV1,
  fieldsV1Of,
  fieldsV1ToPathStrings,
  intersectionFieldsV1,
  isEmptyFieldsV1,
  unionFieldsV1,
} from "../../api/fields-v1.js";
import { isPlainObject, type KubeObject, type ManagedFieldsEntry, nowTimestamp } from "../../api/object.js";
import { refuseOversizedResult } from "../../api/patch.js";
import { namesRevision } from "../fresh-revision.js";
import { listTypeAt } from "../list-types.js";
import { capUpdateManagers, ownedPart } from "../managed-fields.js";
import type { WriteOptions } from "../options.js";
import type { RequestContext } from "../request-context.js";
import type { ResourceType } from "../resource-type.js";
import { mergeApplied, removeFields } from "./merge.js";

export interface WriteResult {
  object: KubeObject;
  /** True when a create happened (201) rather than an update (200). */
  created: boolean;
}

/**
 * What server-side apply uses of a kind's Store (store.ts, which calls it): an interface, so
 * that the two files do not import each other.
 */
export interface ApplyTarget {
  readonly rt: ResourceType;
  readonly gr: { group: string; resource: string };
  read(namespace: string | undefined, name: string): Promise<KubeObject | undefined>;
  admitBody(
    body: KubeObject,
    namespace: string | undefined,
    name: string | undefined,
    options: WriteOptions,
    ctx: RequestContext,
  ): Promise<KubeObject>;
  create(
    ctx: RequestContext,
    namespace: string | undefined,
    body: KubeObject,
    options: WriteOptions,
  ): Promise<KubeObject>;
  writeUpdate(
    ctx: RequestContext,
    old: KubeObject,
    proposed: KubeObject,
    options: WriteOptions,
    subresource: "" | "status",
  ): Promise<KubeObject>;
}

/** kubectl's client-side-apply record; its fields may be taken over by an apply (see below). */
const LAST_APPLIED_ANNOTATION = "kubectl.kubernetes.io/last-applied-configuration";

const MAX_ATTEMPTS = 8;

/**
 * Server-side apply (PATCH application/apply-patch+yaml): merges the applied configuration
 * into the live object, records the manager's Apply entry as exactly the applied fields,
 * refuses (409) to change fields other managers own unless forced, removes fields the manager
 * applied before and no longer does when no one else owns them, and creates the object when
 * it does not exist (WriteResult.created, answered with 201).
 */
export async function serverSideApply(
  store: ApplyTarget,
  ctx: RequestContext,
  namespace: string | undefined,
  name: string,
  patch: unknown,
  options: WriteOptions,
  subresource: "" | "status",
): Promise<WriteResult> {
  checkApplyRequest(patch, options);
  const rt = store.rt;
  const lt = (path: readonly string[]) => listTypeAt(rt, path);
  const manager = options.fieldManager;
  const sub = subresource || undefined;
  const writeOpts: WriteOptions = { ...options, managedFieldsPrepared: true };

  for (let attempt = 0; ; attempt++) {
    const config = await store.admitBody(patch as KubeObject, namespace, name, options, ctx);
    const configOwned = ownedPart(config, rt, subresource);
    const applied = fieldsV1Of(configOwned, lt);
    const live = await store.read(namespace, name);
    const now = new Date();
    const myEntry = (): ManagedFieldsEntry => ({
      manager,
      operation: "Apply",
      apiVersion: `${rt.group}/${rt.version}`,
      time: nowTimestamp(now),
      fieldsType: "FieldsV1",
      fieldsV1: applied as Record<string, unknown>,
      ...(sub ? { subresource: sub } : {}),
    });

    if (!live) {
      if (subresource) throw errors.notFound(store.gr, name);
      const obj = structuredClone(config);
      delete obj.metadata.resourceVersion;
      obj.metadata.managedFields = isEmptyFieldsV1(applied) ? [] : [myEntry()];
      try {
        const object = await store.create(ctx, namespace, obj, writeOpts);
        return { object, created: true };
      } catch (err) {
        // Created by someone else meanwhile: apply to that object instead.
        if (err instanceof ApiError && err.reason === "AlreadyExists" && attempt + 1 < MAX_ATTEMPTS) continue;
        throw err;
      }
    }

    const asked = config.metadata.resourceVersion;
    if (asked && !namesRevision(asked, live.metadata.resourceVersion)) throw errors.staleObject(store.gr, name);
    const liveOwned = ownedPart(live, rt, subresource);
    const entries = live.metadata.managedFields ?? [];
    const isMine = (e: ManagedFieldsEntry) =>
      e.manager === manager && e.operation === "Apply" && (e.subresource || undefined) === sub;
    const sameScope = (e: ManagedFieldsEntry) => (e.subresource || undefined) === sub;
    const previous = (entries.find(isMine)?.fieldsV1 ?? {}) as FieldsV1;
    const others = entries.filter((e) => !isMine(e) && sameScope(e));
    const othersOwn = others.reduce<FieldsV1>((acc, e) => unionFieldsV1(acc, (e.fieldsV1 ?? {}) as FieldsV1), {});

    const merged = mergeApplied(liveOwned, configOwned, [], lt) as Record<string, unknown>;
    removeFields(merged, differenceFieldsV1(previous, applied), othersOwn);
    const changed = diffFieldsV1(liveOwned, merged, lt);

    const lastApplied = live.metadata.annotations?.[LAST_APPLIED_ANNOTATION];
    const takeOver = lastApplied !== undefined ? lastAppliedFields(lastApplied, rt, lt) : {};
    const conflicts = conflictsWith(others, changed, takeOver);
    if (conflicts.length > 0 && !options.force) throw applyConflict(store, name, conflicts);

    // Forced (or the take-over case): the changed fields leave their previous managers.
    const nextEntries = nextManagedFields(entries, changed, applied, { isMine, sameScope, entry: myEntry });

    const next = rebuild(live, merged, subresource);
    next.metadata.managedFields = capUpdateManagers(nextEntries);
    if (lastApplied !== undefined && !subresource) {
      // Keep kubectl's record current so a later client-side apply computes the right patch.
      next.metadata.annotations = { ...next.metadata.annotations, [LAST_APPLIED_ANNOTATION]: lastAppliedOf(config) };
    }
    refuseOversizedResult(next);
    try {
      const object = await store.writeUpdate(ctx, live, next, writeOpts, subresource);
      return { object, created: false };
    } catch (err) {
      const retriable = err instanceof ApiError && err.code === 409 && !asked && err.reason === "Conflict";
      if (retriable && !(err.status.details?.causes ?? []).length && attempt + 1 < MAX_ATTEMPTS) continue;
      throw err;
    }
  }
}

/** A request that is not an apply configuration from a named manager is refused before anything runs. */
function checkApplyRequest(patch: unknown, options: WriteOptions): void {
  if (!options.fieldManagerGiven) {
    throw errors.invalid("PatchOptions", "meta.k8s.io", "", [
      { type: "FieldValueRequired", field: "fieldManager", detail: "is required for apply patch" },
    ]);
  }
  if (!isPlainObject(patch)) throw errors.badRequest("the apply configuration must be an object");
  const sentMeta = (patch as KubeObject).metadata;
  if (isPlainObject(sentMeta) && sentMeta.managedFields !== undefined && sentMeta.managedFields !== null) {
    throw errors.badRequest("metadata.managedFields must be nil");
  }
}

/** The fields this apply changes that other managers own, per manager. */
function conflictsWith(
  others: ManagedFieldsEntry[],
  changed: FieldsV1,
  takeOver: FieldsV1,
): Array<{ entry: ManagedFieldsEntry; paths: string[] }> {
  const conflicts: Array<{ entry: ManagedFieldsEntry; paths: string[] }> = [];
  for (const e of others) {
    let clash = intersectionFieldsV1(changed, (e.fieldsV1 ?? {}) as FieldsV1);
    // Moving from client-side apply: fields kubectl last applied may be taken over without force.
    if (e.operation === "Update") clash = differenceFieldsV1(clash, takeOver);
    if (!isEmptyFieldsV1(clash)) conflicts.push({ entry: e, paths: fieldsV1ToPathStrings(clash) });
  }
  return conflicts;
}

/**
 * The managed fields after the apply: the manager's entry holds exactly the applied fields, and
 * the changed fields leave the other managers of the same scope (forced, or taken over).
 */
function nextManagedFields(
  entries: ManagedFieldsEntry[],
  changed: FieldsV1,
  applied: FieldsV1,
  mine: {
    isMine(e: ManagedFieldsEntry): boolean;
    sameScope(e: ManagedFieldsEntry): boolean;
    entry(): ManagedFieldsEntry;
  },
): ManagedFieldsEntry[] {
  const nextEntries: ManagedFieldsEntry[] = [];
  let placed = false;
  for (const e of entries) {
    if (mine.isMine(e)) {
      // The entry's time moves only when the manager's fields or their values change (a no-op
      // apply must stay a no-op, whatever second it lands in).
      const same = isEmptyFieldsV1(changed) && isDeepStrictEqual(e.fieldsV1, applied);
      if (!isEmptyFieldsV1(applied)) nextEntries.push(same ? e : mine.entry());
      placed = true;
      continue;
    }
    if (!mine.sameScope(e)) {
      nextEntries.push(e);
      continue;
    }
    const rest = differenceFieldsV1((e.fieldsV1 ?? {}) as FieldsV1, changed);
    if (!isEmptyFieldsV1(rest)) nextEntries.push({ ...e, fieldsV1: rest as Record<string, unknown> });
  }
  if (!placed && !isEmptyFieldsV1(applied)) nextEntries.push(mine.entry());
  return nextEntries;
}

/** The live object with its owned part replaced by `owned` (server-owned metadata kept). */
function rebuild(live: KubeObject, owned: Record<string, unknown>, subresource: string): KubeObject {
  const next = structuredClone(live);
  if (subresource === "status") {
    next.status = (owned.status as Record<string, unknown> | undefined) ?? {};
    return next;
  }
  for (const k of Object.keys(next)) {
    if (k !== "apiVersion" && k !== "kind" && k !== "metadata" && k !== "status") delete next[k];
  }
  const { metadata, status: _s, ...rest } = owned as { metadata?: Record<string, unknown>; status?: unknown };
  Object.assign(next, structuredClone(rest));
  if (!("status" in live) && _s !== undefined) next.status = _s as Record<string, unknown>;
  const m = next.metadata as Record<string, unknown>;
  for (const k of ["labels", "annotations", "ownerReferences", "finalizers"]) delete m[k];
  Object.assign(m, structuredClone(metadata ?? {}));
  return next;
}

function lastAppliedFields(
  text: string,
  rt: ResourceType,
  lt: (path: readonly string[]) => ReturnType<typeof listTypeAt>,
): FieldsV1 {
  try {
    const parsed = JSON.parse(text) as KubeObject;
    return isPlainObject(parsed) ? fieldsV1Of(ownedPart(parsed, rt, ""), lt) : {};
  } catch {
    return {};
  }
}

function lastAppliedOf(config: KubeObject): string {
  const copy = structuredClone(config);
  const annotations = { ...copy.metadata.annotations };
  delete annotations[LAST_APPLIED_ANNOTATION];
  if (Object.keys(annotations).length) copy.metadata.annotations = annotations;
  else delete copy.metadata.annotations;
  return JSON.stringify(copy);
}

/** How kube-apiserver names a manager in conflict messages. */
function printManager(e: ManagedFieldsEntry): string {
  const name = JSON.stringify(e.manager ?? "");
  if (e.operation === "Update")
    return e.time ? `${name} using ${e.apiVersion} at ${e.time}` : `${name} using ${e.apiVersion}`;
  if (e.subresource) return `${name} with subresource ${JSON.stringify(e.subresource)}`;
  return name;
}

/** 409 Conflict worded as Kubernetes words apply conflicts, one FieldManagerConflict cause per field. */
function applyConflict(
  store: ApplyTarget,
  name: string,
  conflicts: Array<{ entry: ManagedFieldsEntry; paths: string[] }>,
) {
  const causes: StatusCause[] = [];
  for (const c of conflicts) {
    for (const field of c.paths) {
      causes.push({ reason: "FieldManagerConflict", message: `conflict with ${printManager(c.entry)}`, field });
    }
  }
  let message: string;
  if (causes.length === 1) {
    message = `Apply failed with 1 conflict: conflict with ${printManager(conflicts[0]!.entry)}: ${causes[0]!.field}`;
  } else {
    const lines: string[] = [];
    for (const c of [...conflicts].sort((a, b) => printManager(a.entry).localeCompare(printManager(b.entry)))) {
      lines.push(`conflicts with ${printManager(c.entry)}`);
      for (const p of c.paths) lines.push(`- ${p}`);
    }
    message = `Apply failed with ${causes.length} conflicts: ${lines.join("\n")}`;
  }
  return errors.conflictWithCauses(store.gr, name, message, causes);
}
