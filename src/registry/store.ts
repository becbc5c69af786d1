import { isDeepStrictEqual } from "node:util";
import { ApiError, errors, type FieldError, fieldError } from "../api/errors.js";
import { generateName } from "../api/generate-name.js";
import { nestingMessage, valueNestingExceeds } from "../api/nesting-depth.js";
import type { KubeList, KubeObject } from "../api/object.js";
import { applyJsonPatch, applyMergePatch, refuseOversizedResult } from "../api/patch.js";
import { isStorageError } from "../storage/errors.js";
import type { Storage, TxnOp } from "../storage/interface.js";
import { type AdmissionChain, admissionAttributes } from "./admission.js";
import { serverSideApply, type WriteResult } from "./apply/apply.js";
import { onCachedCopy, UnprovenNoOp } from "./cached-copy.js";
import { encodeObject } from "./codec.js";
import { decodeOrCorrupt, ListReadErrors } from "./corrupt-object.js";
import { planDeletion, readyToRemove } from "./deletion.js";
import { compileFilter, type ObjectFilter } from "./filter.js";
import { namesRevision, requestedRevision } from "./fresh-revision.js";
import { KeySerializer } from "./key-serializer.js";
import { collectionPrefix, objectKey } from "./keys.js";
import { recordUpdateManager } from "./managed-fields.js";
import { carryStoredFields, desiredStateOf, prepareCreateMetadata, validateObjectMetadata } from "./metadata.js";
import type { DeleteOptions, ListOptions, PatchType, WriteOptions } from "./options.js";
import { hiddenReadRefusal, refuseHiddenReads } from "./patch-read-guard.js";
import { checkDeletePreconditions, checkUpdateUid, updateUidPrecondition } from "./preconditions.js";
import { type RawListBody, rawList } from "./raw-list.js";
import { rawGet, rawGetSoon } from "./raw-read.js";
import type { RequestContext } from "./request-context.js";
import { apiVersionOf, groupResource, type KeptWrite, type Prepared, type ResourceType } from "./resource-type.js";
import { SchemaChecker } from "./schema-check.js";
import { schemaRefusal } from "./schema-refusal.js";
import { withResourceVersion } from "./shared-codec.js";
import { storageToApi } from "./storage-errors.js";
import { listObjects } from "./store-list.js";
import { decodeStoredObject, type StoredKeyValue } from "./stored-object.js";
import { StoredVersions } from "./stored-versions.js";
import { StoredEventBatches } from "./stored-watch-event.js";
import { failedOnGuard, GUARDED_CREATE_ATTEMPTS, type WriteGuard } from "./write-guards.js";

/** How often a patch or an internal update is retried on a write conflict before giving up. */
const MAX_CONFLICT_RETRIES = 8;
/** How many generated names are tried before answering 409 AlreadyExists. */
const GENERATE_NAME_ATTEMPTS = 8;

export interface StoreDeps {
  storage: Storage;
  /** The admission plugins every write of this kind goes through (src/admission/plugins.ts). */
  admission: AdmissionChain;
  now?: () => Date;
  /** What is known of each stored version, shared by the registry's stores (default: the store's own). */
  versions?: StoredVersions;
}

/**
 * The generic registry of one kind: create, get, list, update, patch and delete,
 * implemented once and steered by the kind's Strategy (k8s.io/apiserver's generic Store).
 *
 * Every write to an object goes through one pipeline, in this order (docs/architecture.md):
 * 1. decode and check the body against the endpoint and the schema (admitBody; a body the schema
 *    refuses stops here, with metadata's and the kind's own errors too: schema-refusal.ts);
 * 2. mutating admission (`admission.admit`: plugins may change the object or report field errors);
 * 3. the kind's `strategy.prepareForCreate` (then `issueForCreate`, what costs) or `prepareForUpdate`;
 * 4. metadata and strategy validation (with the field errors of steps 2 and 3: one 422);
 * 5. validating admission (`admission.validate`: plugins refuse, never change);
 * 6. the write (skipped on dry-run), mapping storage errors to API errors (storageToApi).
 * The status subresource changes status only: steps 2 and 3 do not run for it; in their place the
 * kind's `strategy.prepareForStatusUpdate` puts back the status fields only the server writes. A delete runs
 * the validating admission (step 5) on the object as stored, then plans finalizers (deletion.ts).
 */
export class Store {
  readonly gr: { group: string; resource: string };
  readonly checker: SchemaChecker;
  /** What is known of each stored version of this kind (its verdict, GET answer and decoded object). */
  readonly versions: StoredVersions;
  /** The events of a watch batch as stored bytes, made once for every watcher of this kind (stored-watch-event.ts). */
  readonly storedEvents = new StoredEventBatches(this);
  private readonly now: () => Date;
  private readonly patches = new KeySerializer();
  /**
   * The bytes an object fresh from a write was stored as (without resourceVersion), so that the
   * response can be those bytes with resourceVersion spliced in rather than a second
   * JSON.stringify (writtenJson). Only objects the write returns unchanged are remembered; an
   * entry goes with its object.
   */
  private readonly storedAs = new WeakMap<KubeObject, Buffer>();

  constructor(
    readonly rt: ResourceType,
    private readonly deps: StoreDeps,
  ) {
    this.gr = groupResource(rt);
    this.checker = new SchemaChecker(rt.schema);
    this.versions = deps.versions ?? new StoredVersions();
    this.now = deps.now ?? (() => new Date());
  }

  get storage(): Storage {
    return this.deps.storage;
  }

  key(namespace: string | undefined, name: string): string {
    return objectKey(this.rt, namespace, name);
  }

  /** Stored bytes → API object (used by lists, watches and caches). */
  decodeForWatch(kv: StoredKeyValue): KubeObject {
    return this.decode(kv);
  }

  /** UndecodableValueError when the value is not an object this kind stores there (stored-object.ts). */
  private decode(kv: StoredKeyValue): KubeObject {
    const obj = decodeStoredObject(this.rt, kv);
    return this.rt.strategy.fromStorage ? this.rt.strategy.fromStorage(obj) : obj;
  }

  private encode(obj: KubeObject): Buffer {
    return encodeObject(this.rt.strategy.toStorage ? this.rt.strategy.toStorage(obj) : obj);
  }

  /** `shown`, remembering its stored bytes when it is exactly what was stored (for writtenJson). */
  private shownAsStored(shown: KubeObject, stored: KubeObject, bytes: Buffer): KubeObject {
    if (shown === stored && !this.rt.strategy.toStorage) this.storedAs.set(shown, bytes);
    return shown;
  }

  /**
   * The API JSON of an object one of this store's writes returned: its stored bytes with its
   * resourceVersion spliced in, or undefined when they were not remembered (or cannot be
   * spliced): then stringify it.
   */
  writtenJson(obj: KubeObject): Buffer | undefined {
    const stored = this.storedAs.get(obj);
    return stored && withResourceVersion(stored, Number(obj.metadata.resourceVersion));
  }

  /** The object as this caller may read it; undefined when it may not get it (ctx.canSee says so). */
  private visibleTo(obj: KubeObject, ctx: RequestContext): KubeObject | undefined {
    return ctx.canSee && !ctx.canSee(obj) ? undefined : this.present(obj, ctx);
  }

  /** What the caller is shown of an object (the kind's `present`: secret data hidden from viewers). */
  present(obj: KubeObject, ctx: RequestContext): KubeObject {
    return this.rt.strategy.present ? this.rt.strategy.present(obj, ctx) : obj;
  }

  /**
   * GET as JSON bytes: the stored bytes with the resourceVersion spliced in, when the kind shows
   * objects as stored and the storage reads from memory; undefined otherwise (use get()).
   */
  readRaw(namespace: string | undefined, name: string): Promise<Buffer | undefined> {
    return rawGet(this, namespace, name);
  }

  /**
   * readRaw() answered from memory, by the object's storage key (key(): the fast GET path keeps
   * the keys it computed), without a promise when none is needed: the bytes, null when the
   * object does not exist, undefined when memory cannot answer (use readRaw or get).
   */
  readRawSoon(key: string): ReturnType<typeof rawGetSoon> {
    return rawGetSoon(this, key);
  }

  /** LIST as JSON bytes around each object's stored bytes, when the kind shows objects as stored; undefined otherwise (use list()). */
  listRaw(ctx: RequestContext, namespace: string | undefined, options: ListOptions): Promise<RawListBody | undefined> {
    return rawList(this, ctx, namespace, options);
  }

  /** Reads an object as stored (API form), or undefined. */
  async read(namespace: string | undefined, name: string): Promise<KubeObject | undefined> {
    const kv = await this.deps.storage.get(this.key(namespace, name));
    // A value that does not decode: CorruptObjectError (500, naming the object, never its bytes).
    return kv ? decodeOrCorrupt(kv, this.decodeKv, this.gr, name) : undefined;
  }

  private readonly decodeKv = (kv: StoredKeyValue) => this.decode(kv);

  async get(ctx: RequestContext, namespace: string | undefined, name: string): Promise<KubeObject> {
    const obj = await this.read(namespace, name);
    if (!obj) throw errors.notFound(this.gr, name);
    return this.present(obj, ctx);
  }

  async list(ctx: RequestContext, namespace: string | undefined, options: ListOptions): Promise<KubeList> {
    const filter = compileFilter(this.rt, options.labelSelector, options.fieldSelector, ctx);
    const prefix = collectionPrefix(this.rt, namespace);
    const corrupt = new ListReadErrors();
    const select = corrupt.guard((kv) => {
      const obj = this.decode(kv);
      return filter.matches(obj) ? obj : undefined;
    });
    const result = await listObjects(this.deps.storage, prefix, options, filter, select);
    corrupt.throwIfAny(this.gr, prefix, ctx.canSee !== undefined);
    return {
      apiVersion: apiVersionOf(this.rt),
      kind: this.rt.listKind,
      metadata: result.metadata,
      items: result.items.map((o) => this.present(o, ctx)),
    };
  }

  /** The compiled selector/visibility filter a watch of this kind applies. */
  filter(ctx: RequestContext, labelSelector?: string, fieldSelector?: string): ObjectFilter {
    return compileFilter(this.rt, labelSelector, fieldSelector, ctx);
  }

  // ---- create -------------------------------------------------------------------------------

  async create(
    ctx: RequestContext,
    namespace: string | undefined,
    body: KubeObject,
    options: WriteOptions,
  ): Promise<KubeObject> {
    const { object: obj, fieldErrors, prepared } = await this.admitNew(ctx, namespace, body, options);
    const wantsGeneratedName = !obj.metadata.name && !!obj.metadata.generateName;
    for (let attempt = 0; ; attempt++) {
      if (wantsGeneratedName) obj.metadata.name = generateName(obj.metadata.generateName!);
      const guards = await this.validateNew(ctx, obj, fieldErrors, options);
      if (options.dryRun) return this.present(obj, ctx);
      const key = this.key(obj.metadata.namespace, obj.metadata.name!);
      try {
        const bytes = this.encode(obj);
        const revision = await this.writeNew(key, bytes, prepared?.alongside ?? [], guards);
        obj.metadata.resourceVersion = String(revision);
        const shown = this.present(obj, ctx);
        if (prepared?.reveal) return prepared.reveal(shown);
        return this.shownAsStored(shown, obj, bytes);
      } catch (err) {
        if (failedOnGuard(err, guards)) {
          // Another create committed since admission counted: admit this one again on the new count.
          if (attempt + 1 < GUARDED_CREATE_ATTEMPTS) continue;
          throw errors.conflict(
            this.gr,
            obj.metadata.name!,
            "other creates kept changing what admission counted; try again",
          );
        }
        if (!isStorageError(err, "KeyExists")) throw this.storageToApi(err, obj.metadata.name!);
        const kept = prepared?.alongside?.find((k) => k.keys.key(k.id) === err.key);
        if (kept) throw kept.onExists();
        if (!wantsGeneratedName || attempt + 1 >= GENERATE_NAME_ATTEMPTS) {
          throw errors.alreadyExists(this.gr, obj.metadata.name!);
        }
      }
    }
  }

  /** Creates the object's key, with the kept entries the kind writes beside it and the guards admission added (write-guards.ts), in one transaction. */
  private async writeNew(
    key: string,
    bytes: Buffer,
    alongside: readonly KeptWrite[],
    guards: readonly WriteGuard[],
  ): Promise<number> {
    if (alongside.length === 0 && guards.length === 0) return this.deps.storage.create(key, bytes);
    const ops = [
      { type: "create" as const, key, value: bytes },
      ...alongside.map((k) => k.keys.createOp(k.id, k.value)),
      // What admission decided from what it read (a project quota) commits with the object too.
      ...guards.map((g) => g.op),
    ];
    return (await this.deps.storage.txn(ops)).revision;
  }

  /**
   * Everything create does short of writing (the whole pipeline, steps 1–5): for the
   * registry's transactions (registry.transact), which write several keys at once. `status`,
   * when given, replaces the cleared status (a moved object keeps its own); `replacing` is the
   * stored object the transaction deletes for this one (a move's source: AdmissionAttributes).
   */
  async prepareCreate(
    ctx: RequestContext,
    namespace: string | undefined,
    body: KubeObject,
    options: WriteOptions,
    status?: Record<string, unknown>,
    replacing?: KubeObject,
  ): Promise<{
    object: KubeObject;
    key: string;
    value: Buffer;
    alongside: readonly KeptWrite[];
    guards: WriteGuard[];
  }> {
    const { object: obj, fieldErrors, prepared } = await this.admitNew(ctx, namespace, body, options, status);
    const guards = await this.validateNew(ctx, obj, fieldErrors, options, replacing);
    const key = this.key(obj.metadata.namespace, obj.metadata.name!);
    return { object: obj, key, value: this.encode(obj), alongside: prepared?.alongside ?? [], guards };
  }

  /**
   * A create of a kind that is not stored (selves, tokens, reviews): the same pipeline as a
   * create, where the write is the kind's own `virtualCreate` computing the answer. Nothing is
   * stored, so no metadata is set or checked (a name is optional) and dry-run changes nothing.
   */
  async createVirtual(
    ctx: RequestContext,
    namespace: string | undefined,
    body: KubeObject,
    options: WriteOptions,
  ): Promise<KubeObject> {
    const create = this.rt.virtualCreate;
    if (!create) throw errors.methodNotAllowed();
    const obj = await this.admitBody(body, namespace, undefined, options, ctx, { nameOptional: true });
    const attrs = admissionAttributes("CREATE", this.rt, obj, undefined, ctx, options.dryRun);
    const fieldErrors = await this.deps.admission.admit(attrs);
    const prepared = await this.rt.strategy.prepareForCreate?.(obj, ctx);
    fieldErrors.push(...(prepared?.fieldErrors ?? []), ...((await this.rt.strategy.validate?.(obj, ctx)) ?? []));
    if (fieldErrors.length) throw errors.invalid(this.rt.kind, this.rt.group, obj.metadata.name ?? "", fieldErrors);
    await this.deps.admission.validate(attrs);
    return create(obj, ctx);
  }

  /** Pipeline steps 1–3 of a create: the checked body, admitted and prepared. */
  private async admitNew(
    ctx: RequestContext,
    namespace: string | undefined,
    body: KubeObject,
    options: WriteOptions,
    status?: Record<string, unknown>,
  ): Promise<{ object: KubeObject; fieldErrors: FieldError[]; prepared: Prepared | undefined }> {
    const obj = await this.admitBody(body, namespace, undefined, options, ctx, {
      owned: options.bodyOwned,
      depthChecked: options.bodyOwned,
    });
    const now = this.now();
    prepareCreateMetadata(obj, now);
    if (this.rt.hasStatus) obj.status = status ?? {};
    const fieldErrors = await this.deps.admission.admit(
      admissionAttributes("CREATE", this.rt, obj, undefined, ctx, options.dryRun),
    );
    const cheap = (await this.rt.strategy.prepareForCreate?.(obj, ctx)) ?? undefined;
    const issued = (await this.rt.strategy.issueForCreate?.(obj, ctx)) ?? [];
    const prepared = issued.length ? { ...cheap, alongside: [...(cheap?.alongside ?? []), ...issued] } : cheap;
    fieldErrors.push(...(prepared?.fieldErrors ?? []));
    if (!options.managedFieldsPrepared) {
      recordUpdateManager(obj, undefined, options.fieldManager, "", now, this.rt);
    }
    this.collectWarnings(obj, undefined, ctx);
    return { object: obj, fieldErrors, prepared };
  }

  /** Pipeline steps 4–5 of a create: validation, then validating admission; returns the guards it added. */
  private async validateNew(
    ctx: RequestContext,
    obj: KubeObject,
    fieldErrors: FieldError[],
    options: WriteOptions,
    replacing?: KubeObject,
  ): Promise<WriteGuard[]> {
    await this.validateOrThrow(obj, [...fieldErrors, ...((await this.rt.strategy.validate?.(obj, ctx)) ?? [])]);
    const attrs = admissionAttributes("CREATE", this.rt, obj, undefined, ctx, options.dryRun);
    if (replacing) attrs.replacing = replacing;
    await this.deps.admission.validate(attrs);
    return attrs.guards;
  }

  // ---- update (PUT) -------------------------------------------------------------------------

  async update(
    ctx: RequestContext,
    namespace: string | undefined,
    name: string,
    body: KubeObject,
    options: WriteOptions,
    subresource: "" | "status" = "",
  ): Promise<KubeObject> {
    // The body's uid is a precondition, checked on the stored object before anything else that
    // reads it: the resourceVersion, the schema's refusal (preconditions.ts).
    const uid = updateUidPrecondition(body);
    const key = this.key(namespace, name);
    const storedMeetingUid = async () => {
      const old = await this.read(namespace, name);
      if (old) checkUpdateUid(this.rt, uid, old, key, options.dryRun);
      return old;
    };
    const obj = await this.admitBody(body, namespace, name, options, ctx, {
      stored: subresource === "" ? storedMeetingUid : undefined,
    });
    const rv = obj.metadata.resourceVersion;
    if (!rv) {
      // As kube-apiserver, which reads the object first: an update of nothing is NotFound.
      if (!(await storedMeetingUid())) throw errors.notFound(this.gr, name);
      throw errors.invalid(this.rt.kind, this.rt.group, name, [
        fieldError("FieldValueInvalid", "metadata.resourceVersion", "must be specified for an update", 0),
      ]);
    }
    requestedRevision(rv); // 400 for one that is no number, before any read
    const once = (old: KubeObject, cachedCopy: boolean) => {
      checkUpdateUid(this.rt, uid, old, key, options.dryRun);
      if (!namesRevision(rv, old.metadata.resourceVersion)) throw errors.staleObject(this.gr, name);
      // writeUpdate may change what it is given: an attempt that may be redone gets a copy.
      return this.writeUpdate(ctx, old, cachedCopy ? structuredClone(obj) : obj, options, subresource, cachedCopy);
    };
    const cached = options.dryRun
      ? undefined
      : await onCachedCopy(this.deps.storage, key, ctx, (kv) =>
          once(decodeOrCorrupt(kv, this.decodeKv, this.gr, name), true),
        );
    if (cached) return cached.result;
    const old = await this.read(namespace, name);
    if (!old) throw errors.notFound(this.gr, name);
    return once(old, false);
  }

  /**
   * Turns a proposed new state into a stored one: carries server-owned fields, bumps
   * generation, validates, and writes with the old revision as precondition.
   */
  async writeUpdate(
    ctx: RequestContext,
    old: KubeObject,
    proposed: KubeObject,
    options: WriteOptions,
    subresource: "" | "status",
    /** `old` is the cache's copy (cached-copy.ts): a no-op proves nothing and is redone. */
    cachedCopy = false,
  ): Promise<KubeObject> {
    const name = old.metadata.name!;
    let obj: KubeObject;
    const fieldErrs: FieldError[] = [];
    if (subresource === "status") {
      // The status endpoint changes status only; everything else stays as stored.
      obj = structuredClone(old);
      obj.status = proposed.status ?? {};
      this.rt.strategy.prepareForStatusUpdate?.(obj, old, ctx);
      if (options.managedFieldsPrepared) obj.metadata.managedFields = proposed.metadata.managedFields;
    } else {
      obj = proposed;
      fieldErrs.push(...carryStoredFields(obj, old, this.rt.hasStatus));
    }
    obj.metadata.namespace = old.metadata.namespace;
    if (!this.rt.namespaced) delete obj.metadata.namespace;
    if (subresource === "") {
      fieldErrs.push(
        ...(await this.deps.admission.admit(admissionAttributes("UPDATE", this.rt, obj, old, ctx, options.dryRun))),
      );
      const prepared = await this.rt.strategy.prepareForUpdate?.(obj, old, ctx);
      fieldErrs.push(...(prepared?.fieldErrors ?? []));
    }
    if (!isDeepStrictEqual(desiredStateOf(obj), desiredStateOf(old))) {
      obj.metadata.generation = (old.metadata.generation ?? 0) + 1;
    }
    if (!options.managedFieldsPrepared) {
      recordUpdateManager(obj, old, options.fieldManager, subresource, this.now(), this.rt);
    }
    this.collectWarnings(obj, old, ctx);
    const strategyErrs = this.rt.strategy.validateUpdate
      ? await this.rt.strategy.validateUpdate(obj, old, ctx)
      : await this.rt.strategy.validate?.(obj, ctx);
    await this.validateOrThrow(obj, [...fieldErrs, ...(strategyErrs ?? [])]);
    const admitted = async () => {
      const attrs = admissionAttributes("UPDATE", this.rt, obj, old, ctx, options.dryRun, subresource);
      await this.deps.admission.validate(attrs);
      return attrs.guards;
    };
    const guards = await admitted();

    obj.metadata.resourceVersion = old.metadata.resourceVersion;
    if (isDeepStrictEqual(obj, old)) {
      if (cachedCopy) throw new UnprovenNoOp();
      return this.present(old, ctx); // no-op: no write, no new revision
    }
    if (options.dryRun) return this.present(obj, ctx);

    const key = this.key(old.metadata.namespace, name);
    // A terminating object whose last finalizer was just removed goes away now, unless its
    // grace period is still running (then the garbage collector removes it at the deadline).
    if (readyToRemove(obj, this.now())) {
      try {
        const res = await this.deps.storage.delete(key, Number(old.metadata.resourceVersion));
        obj.metadata.resourceVersion = String(res.revision);
        return this.present(obj, ctx);
      } catch (err) {
        throw this.storageToApi(err, name);
      }
    }
    try {
      const bytes = this.encode(obj);
      const update = {
        type: "update" as const,
        key,
        value: bytes,
        expectedModRevision: Number(old.metadata.resourceVersion),
      };
      const revision = await this.writeUpdated(update, name, guards, admitted);
      obj.metadata.resourceVersion = String(revision);
      return this.shownAsStored(this.present(obj, ctx), obj, bytes);
    } catch (err) {
      throw this.storageToApi(err, name);
    }
  }

  /**
   * Writes an update at the revision it was read at, with the guards validating admission added
   * (write-guards.ts: a project quota an update claims, such as a wake-up) in one transaction. A
   * guard another write moved meanwhile runs validating admission again (`admitted`), on the new
   * count: the object itself did not change, or the write fails on its own key.
   */
  private async writeUpdated(
    update: TxnOp & { type: "update" },
    name: string,
    guards: readonly WriteGuard[],
    admitted: () => Promise<WriteGuard[]>,
  ): Promise<number> {
    for (let attempt = 0; ; attempt++) {
      if (guards.length === 0) return this.deps.storage.update(update.key, update.value, update.expectedModRevision);
      try {
        return (await this.deps.storage.txn([update, ...guards.map((g) => g.op)])).revision;
      } catch (err) {
        if (!failedOnGuard(err, guards)) throw err;
        if (attempt + 1 >= GUARDED_CREATE_ATTEMPTS) {
          throw errors.conflict(this.gr, name, "other writes kept changing what admission counted; try again");
        }
        guards = await admitted();
      }
    }
  }

  // ---- patch --------------------------------------------------------------------------------

  async patch(
    ctx: RequestContext,
    namespace: string | undefined,
    name: string,
    type: PatchType,
    patch: unknown,
    options: WriteOptions,
    subresource: "" | "status" = "",
  ): Promise<KubeObject> {
    if (type === "apply") return (await this.apply(ctx, namespace, name, patch, options, subresource)).object;
    if (options.force !== undefined) {
      throw errors.invalid("PatchOptions", "meta.k8s.io", "", [
        fieldError("FieldValueForbidden", "force", "may not be specified for non-apply patch"),
      ]);
    }
    // Patches of one object queue behind each other here instead of racing to a conflict.
    return this.patches.run(this.key(namespace, name), () =>
      this.patchOnce(ctx, namespace, name, type, patch, options, subresource),
    );
  }

  private async patchOnce(
    ctx: RequestContext,
    namespace: string | undefined,
    name: string,
    type: Exclude<PatchType, "apply">,
    patch: unknown,
    options: WriteOptions,
    subresource: "" | "status",
  ): Promise<KubeObject> {
    const once = (old: KubeObject, cachedCopy: boolean) =>
      this.patchAttempt(ctx, old, namespace, name, type, patch, options, subresource, cachedCopy);
    // A dry run writes nothing, so nothing would prove a cached copy current.
    const cached = options.dryRun
      ? undefined
      : await onCachedCopy(this.deps.storage, this.key(namespace, name), ctx, (kv) =>
          once(decodeOrCorrupt(kv, this.decodeKv, this.gr, name), true),
        );
    if (cached) return cached.result;
    for (let attempt = 0; ; attempt++) {
      const old = await this.read(namespace, name);
      if (!old) throw errors.notFound(this.gr, name);
      try {
        return await once(old, false);
      } catch (err) {
        const retriable = err instanceof ApiError && err.reason === "Conflict" && !patchCarriesVersion(patch, type);
        if (!retriable || attempt + 1 >= MAX_CONFLICT_RETRIES) throw err;
      }
    }
  }

  /** One patch of `old` (a consistent read, or the cache's copy: see cached-copy.ts). */
  private async patchAttempt(
    ctx: RequestContext,
    old: KubeObject,
    namespace: string | undefined,
    name: string,
    type: Exclude<PatchType, "apply">,
    patch: unknown,
    options: WriteOptions,
    subresource: "" | "status",
    cachedCopy: boolean,
  ): Promise<KubeObject> {
    if (type === "json")
      refuseHiddenReads(patch, old, () => this.visibleTo(old, ctx), hiddenReadRefusal(this.gr, name, ctx.user.name));
    const patched = type === "json" ? applyJsonPatch(old, patch) : applyMergePatch(old, patch);
    refuseOversizedResult(patched);
    const proposed = patched as KubeObject;
    if (!proposed || typeof proposed !== "object" || Array.isArray(proposed)) {
      throw errors.badRequest("the patch did not produce an object");
    }
    proposed.metadata ??= {};
    const asked = proposed.metadata.resourceVersion;
    if (asked !== undefined && !namesRevision(asked, old.metadata.resourceVersion)) {
      throw errors.staleObject(this.gr, name);
    }
    // applyMergePatch/applyJsonPatch return a copy that shares nothing: no second clone.
    const admitted = await this.admitBody(proposed, namespace, name, options, ctx, {
      owned: true,
      patched: true,
      stored: subresource === "" ? async () => old : undefined,
    });
    admitted.metadata.resourceVersion = old.metadata.resourceVersion;
    return this.writeUpdate(ctx, old, admitted, options, subresource, cachedCopy);
  }

  /** Server-side apply (see apply/apply.ts); `created` says whether the object was created (201). */
  apply(
    ctx: RequestContext,
    namespace: string | undefined,
    name: string,
    patch: unknown,
    options: WriteOptions,
    subresource: "" | "status" = "",
  ): Promise<WriteResult> {
    return serverSideApply(this, ctx, namespace, name, patch, options, subresource);
  }

  /**
   * Read-modify-write for the server's own controllers: applies `mutate` to the latest
   * object and retries on conflict (k8s GuaranteedUpdate). Returns undefined when the object is gone.
   */
  async guaranteedUpdate(
    ctx: RequestContext,
    namespace: string | undefined,
    name: string,
    mutate: (obj: KubeObject) => KubeObject | undefined,
    subresource: "" | "status" = "",
    fieldManager = "platform",
  ): Promise<KubeObject | undefined> {
    for (let attempt = 0; ; attempt++) {
      const old = await this.read(namespace, name);
      if (!old) return undefined;
      const next = mutate(structuredClone(old));
      if (!next) return old;
      try {
        return await this.writeUpdate(
          ctx,
          old,
          next,
          { dryRun: false, fieldManager, fieldValidation: "Ignore" },
          subresource,
        );
      } catch (err) {
        if (isApiError409(err) && attempt + 1 < MAX_CONFLICT_RETRIES) continue;
        if (err instanceof ApiError && err.reason === "NotFound") return undefined;
        throw err;
      }
    }
  }

  // ---- delete -------------------------------------------------------------------------------

  async delete(
    ctx: RequestContext,
    namespace: string | undefined,
    name: string,
    options: DeleteOptions,
  ): Promise<{ object: KubeObject; removed: boolean }> {
    for (let attempt = 0; ; attempt++) {
      const current = await this.read(namespace, name);
      if (!current) throw errors.notFound(this.gr, name);
      checkDeletePreconditions(this.rt, current, options);
      await this.deps.admission.validate(admissionAttributes("DELETE", this.rt, current, current, ctx, options.dryRun));
      const now = this.now();
      const next = planDeletion(current, options, now);
      if (next === "remove") {
        if (options.dryRun) return { object: this.present(current, ctx), removed: true };
        try {
          const res = await this.deps.storage.delete(
            this.key(namespace, name),
            Number(current.metadata.resourceVersion),
          );
          const deleted = structuredClone(current);
          deleted.metadata.resourceVersion = String(res.revision);
          return { object: this.present(deleted, ctx), removed: true };
        } catch (err) {
          if (isStorageError(err, "Conflict") && attempt + 1 < MAX_CONFLICT_RETRIES) continue;
          throw this.storageToApi(err, name);
        }
      }
      if (next === "unchanged") return { object: this.present(current, ctx), removed: false };
      // Graceful path: mark terminating; controllers remove finalizers, then the object goes.
      if (options.dryRun) return { object: this.present(next, ctx), removed: false };
      try {
        const revision = await this.deps.storage.update(
          this.key(namespace, name),
          this.encode(next),
          Number(current.metadata.resourceVersion),
        );
        next.metadata.resourceVersion = String(revision);
        return { object: this.present(next, ctx), removed: false };
      } catch (err) {
        if (isStorageError(err, "Conflict") && attempt + 1 < MAX_CONFLICT_RETRIES) continue;
        throw this.storageToApi(err, name);
      }
    }
  }

  /**
   * DELETE of a collection: every object the list options select (and the caller may see,
   * ctx.canSee), deleted one by one; one deleted meanwhile by someone else is skipped.
   */
  async deleteCollection(
    ctx: RequestContext,
    namespace: string | undefined,
    listOptions: ListOptions,
    options: DeleteOptions,
  ): Promise<KubeList> {
    const list = await this.list(ctx, namespace, { ...listOptions, limit: undefined, continue: undefined });
    const deleted: KubeObject[] = [];
    for (const item of list.items) {
      try {
        deleted.push((await this.delete(ctx, item.metadata.namespace, item.metadata.name!, options)).object);
      } catch (err) {
        if (!(err instanceof ApiError && err.code === 404)) throw err;
      }
    }
    return { ...list, items: deleted };
  }

  // ---- shared checks ------------------------------------------------------------------------

  /**
   * Checks a body against the endpoint (kind, apiVersion, name, namespace) and the
   * schema, applying fieldValidation to unknown and duplicate fields. Returns a fresh copy
   * (or, for an owned body, the body itself). A body the schema refuses gets one 422 with every
   * field error of metadata, the schema and the kind's own validation (schema-refusal.ts).
   */
  async admitBody(
    body: KubeObject,
    namespace: string | undefined,
    name: string | undefined,
    options: WriteOptions,
    ctx: RequestContext,
    how: {
      /** A create whose name the strategy fills in (virtual creates). */
      nameOptional?: boolean;
      /** The body is the caller's own fresh copy (a patch result): checked and changed in place. */
      owned?: boolean;
      /** The body's depth was checked when it was decoded (WriteOptions.bodyOwned). */
      depthChecked?: boolean;
      /** The body is what a JSON or merge patch made: a strict refusal names the patch. */
      patched?: boolean;
      /**
       * An update of the main resource: the stored object, read only when the schema refuses the
       * body, so that its refusal lists the rules that compare with it too (schema-refusal.ts).
       */
      stored?: () => Promise<KubeObject | undefined>;
    } = {},
  ): Promise<KubeObject> {
    const { nameOptional = false, owned = false, depthChecked = false, patched = false } = how;
    if (!body || typeof body !== "object" || Array.isArray(body)) {
      throw errors.badRequest("the request body must be an object");
    }
    // A patch can deepen an object past what any body may carry (copy a subtree into itself).
    if (!depthChecked && valueNestingExceeds(body)) throw errors.unprocessable(nestingMessage("the object"));
    const apiVersion = apiVersionOf(this.rt);
    if (body.apiVersion !== undefined && body.apiVersion !== apiVersion) {
      throw errors.badRequest(
        `the API version in the data (${String(body.apiVersion)}) does not match the expected API version (${apiVersion})`,
      );
    }
    if (body.kind !== undefined && body.kind !== this.rt.kind) {
      throw errors.badRequest(
        `the kind in the data (${String(body.kind)}) does not match the expected kind (${this.rt.kind})`,
      );
    }
    const obj = owned ? body : structuredClone(body);
    obj.apiVersion = apiVersion;
    obj.kind = this.rt.kind;
    if (obj.metadata === undefined || obj.metadata === null) obj.metadata = {};
    if (typeof obj.metadata !== "object" || Array.isArray(obj.metadata)) {
      throw errors.badRequest("metadata must be an object");
    }
    const unknown = this.checker.prune(obj);
    const problems = [
      ...unknown.map((p) => `unknown field "${p}"`),
      ...(options.duplicateFields ?? []).map((p) => `duplicate field "${p}"`),
    ];
    if (problems.length > 0) {
      if (options.fieldValidation === "Strict") throw strictDecodingError(problems, patched);
      if (options.fieldValidation === "Warn") ctx.warnings.push(...problems);
    }
    const schemaErrors = this.checker.check(obj);

    if (this.rt.namespaced) {
      if (obj.metadata.namespace && namespace && obj.metadata.namespace !== namespace) {
        throw errors.badRequest(
          "the namespace of the provided object does not match the namespace sent on the request",
        );
      }
      obj.metadata.namespace = namespace ?? obj.metadata.namespace;
      if (!obj.metadata.namespace) throw errors.badRequest("a namespace is required for a namespaced resource");
    } else {
      delete obj.metadata.namespace;
    }
    if (name !== undefined) {
      if (obj.metadata.name === undefined || obj.metadata.name === "") obj.metadata.name = name;
      if (obj.metadata.name !== name) {
        throw errors.badRequest(
          `the name of the object (${obj.metadata.name}) does not match the name on the URL (${name})`,
        );
      }
    } else if (!obj.metadata.name && !obj.metadata.generateName && !nameOptional && schemaErrors.length === 0) {
      throw errors.invalid(this.rt.kind, this.rt.group, "", [
        fieldError("FieldValueRequired", "metadata.name", "name or generateName is required"),
      ]);
    }
    if (schemaErrors.length > 0) {
      throw await schemaRefusal({
        rt: this.rt,
        checker: this.checker,
        body: obj,
        schemaErrors,
        ctx,
        create: name === undefined,
        virtual: nameOptional,
        stored: how.stored,
      });
    }
    return obj;
  }

  private async validateOrThrow(obj: KubeObject, strategyErrors: FieldError[] | undefined): Promise<void> {
    const errs = [
      ...validateObjectMetadata(obj, this.rt.names?.format ?? "subdomain", this.rt.names?.maxLength),
      ...(strategyErrors ?? []),
    ];
    if (errs.length) throw errors.invalid(this.rt.kind, this.rt.group, obj.metadata.name ?? "", errs);
  }

  private collectWarnings(obj: KubeObject, old: KubeObject | undefined, ctx: RequestContext): void {
    const w = this.rt.strategy.warnings?.(obj, old);
    if (w?.length) ctx.warnings.push(...w);
  }

  /** A storage error of a write of `name`, as an API error (storage-errors.ts). */
  storageToApi(err: unknown, name: string): Error {
    return storageToApi(err, this.gr, name);
  }
}

function isApiError409(err: unknown): boolean {
  return err instanceof ApiError && err.code === 409;
}

function patchCarriesVersion(patch: unknown, type: PatchType): boolean {
  if (type === "merge" && patch && typeof patch === "object") {
    const m = (patch as { metadata?: { resourceVersion?: unknown } }).metadata;
    return m?.resourceVersion !== undefined;
  }
  if (type === "json" && Array.isArray(patch)) {
    return patch.some(
      (op) =>
        op &&
        typeof op === "object" &&
        typeof (op as { path?: unknown }).path === "string" &&
        (op as { path: string }).path.startsWith("/metadata/resourceVersion"),
    );
  }
  return false;
}

/**
 * Unknown or duplicate fields under fieldValidation=Strict, as kube-apiserver refuses them: a
 * body sent whole is 400 BadRequest; what a JSON or merge patch made is 422 Invalid on the field
 * `patch` (without the patch's value, which may hold secret data).
 */
function strictDecodingError(problems: string[], patched: boolean): ApiError {
  const message = `strict decoding error: ${problems.join(", ")}`;
  return patched
    ? errors.invalid("", "", "", [fieldError("FieldValueInvalid", "patch", message)])
    : errors.badRequest(message);
}
