import { errors, fieldError } from "../api/errors.js";
import type { KubeObject } from "../api/object.js";
import { requestVerb } from "../api/request-verb.js";
import type { RequestAttributes } from "../authz/contract.js";
import { awaitNotOlderThan } from "../registry/fresh-revision.js";
import type { Verb } from "../registry/resource-type.js";
import { watchStore } from "../registry/store-watch.js";
import { IGNORE_STORE_READ_ERROR } from "../registry/unsafe-delete.js";
import { decodeObjectBody, decodePatchBody } from "./body.js";
import { deleteOptions, getOptions, isWatch, listOptions, type Query, watchOptions, writeOptions } from "./query.js";
import { shownEvents, shownItems, shownOrNotFound } from "./reader-filter.js";
import type { ResourcePath } from "./resource-path.js";
import { send, sendJsonBytes } from "./respond.js";
import { objectTable, toTable } from "./table.js";
import { unsafeDelete } from "./unsafe-delete.js";
import type { VerbCall } from "./verb-call.js";
import { streamWatch } from "./watch-stream.js";

export type { VerbCall };

/**
 * One handler per verb. Each authorizes, checks the kind serves the verb, and only then
 * decodes a body: a caller who may not write learns nothing from how its body is read.
 */
export const VERB_HANDLERS: Record<Verb, (call: VerbCall) => Promise<unknown>> = {
  async get(call) {
    const { path, ctx, deps } = await begin(call, "get");
    // Not older than resourceVersion: one ahead of the store is waited for, then 504, as for a
    // list. Nothing to wait for (the usual GET) makes no promise.
    const fresh = awaitNotOlderThan(path.store.storage, getOptions(call.query).resourceVersion, deps.freshnessWaitMs);
    if (fresh) await fresh;
    const filter = path.rt.readerFilter?.(ctx.user);
    const bytes =
      call.format.encoding === "json" && !call.table && !filter
        ? await path.store.readRaw(path.namespace, path.name!)
        : undefined;
    if (bytes) return call.reply.code(200).type("application/json").send(bytes);
    const obj = await path.store.get(ctx, path.namespace, path.name!);
    return sendObject(call, 200, filter ? await shownOrNotFound(path.rt, filter, obj) : obj);
  },

  async list(call) {
    const { path, ctx, deps } = await begin(call, "list");
    ctx.canSee = deps.authorizer.visibleTo?.(ctx.user, collectionAttributes(path, "list"));
    const options = { ...listOptions(call.query), freshnessWaitMs: deps.freshnessWaitMs };
    const filter = path.rt.readerFilter?.(ctx.user);
    const fast =
      call.format.encoding === "json" && !call.table && !filter
        ? await path.store.listRaw(ctx, path.namespace, options)
        : undefined;
    if (fast) return sendJsonBytes(call.reply, fast.payload(), fast.byteLength, ctx.warnings);
    const stored = await path.store.list(ctx, path.namespace, options);
    const list = filter ? await shownItems(stored, filter) : stored;
    const body = call.table ? toTable(path.rt, list.items, call.table, list.metadata as Record<string, unknown>) : list;
    return send(call.reply, 200, body, call.format, ctx.warnings);
  },

  async watch(call) {
    const { path, ctx, deps } = await begin(call, "watch");
    const options = { ...watchOptions(call.query), freshnessWaitMs: deps.freshnessWaitMs };
    ctx.canSee = deps.authorizer.visibleTo?.(ctx.user, collectionAttributes(path, "watch"));
    const filter = path.rt.readerFilter?.(ctx.user);
    return streamWatch(
      call.request,
      call.reply,
      call.format,
      options.timeoutSeconds,
      (sink) =>
        watchStore(path.store, ctx, path.namespace, options, filter ? shownEvents(sink, filter) : sink, {
          bookmarkIntervalMs: deps.bookmarkIntervalMs,
        }),
      { rt: path.rt, table: call.table },
      deps.watchStreams,
    );
  },

  async create(call) {
    const { path, ctx, request } = await begin(call, "create", { name: "" });
    const body = decodeObjectBody(request.headers["content-type"], call.raw);
    const options = {
      ...writeOptions(call.query, request.headers["user-agent"], "CreateOptions"),
      duplicateFields: body.duplicates,
      bodyOwned: true,
    };
    const value = body.value as KubeObject;
    // kube-apiserver answers 201 to a dry-run create too: the object would have been created.
    if (path.rt.virtualCreate)
      return sendObject(call, 201, await path.store.createVirtual(ctx, path.namespace, value, options));
    return sendObject(call, 201, await path.store.create(ctx, path.namespace, value, options));
  },

  async update(call) {
    const { path, ctx, request } = await begin(call, "update");
    const body = decodeObjectBody(request.headers["content-type"], call.raw);
    const options = {
      ...writeOptions(call.query, request.headers["user-agent"], "UpdateOptions"),
      duplicateFields: body.duplicates,
    };
    const value = body.value as KubeObject;
    return sendObject(
      call,
      200,
      await path.store.update(ctx, path.namespace, path.name!, value, options, call.subresource),
    );
  },

  async patch(call) {
    const { path, ctx, request, deps } = await begin(call, "patch");
    // What a JSON patch may read (test, copy, move): only what the caller may get.
    ctx.canSee = deps.authorizer.visibleTo?.(ctx.user, collectionAttributes(path, "get"));
    const body = decodePatchBody(request.headers["content-type"], call.raw);
    const options = {
      ...writeOptions(call.query, request.headers["user-agent"], "PatchOptions"),
      duplicateFields: body.duplicates,
    };
    const { store, namespace, name } = path;
    if (body.type === "apply") {
      const applied = await store.apply(ctx, namespace, name!, body.value, options, call.subresource);
      return sendObject(call, applied.created ? 201 : 200, applied.object);
    }
    const patched = await store.patch(ctx, namespace, name!, body.type, body.value, options, call.subresource);
    return sendObject(call, 200, patched);
  },

  async delete(call) {
    const { path, ctx } = await begin(call, "delete");
    const options = deleteOptionsOf(call);
    if (options.ignoreStoreReadErrorWithClusterBreakingPotential) return unsafeDelete(call);
    const { object } = await path.store.delete(ctx, path.namespace, path.name!, options);
    return sendObject(call, 200, object);
  },

  async deletecollection(call) {
    const { path, ctx, deps } = await begin(call, "deletecollection");
    ctx.canSee = deps.authorizer.visibleTo?.(ctx.user, collectionAttributes(path, "delete"));
    const options = deleteOptionsOf(call);
    // The unsafe deletion removes one object it cannot read, named by the caller (unsafe-delete.ts):
    // kube-apiserver's DeleteCollection handler refuses the option with this 422.
    if (options.ignoreStoreReadErrorWithClusterBreakingPotential)
      throw errors.invalid("DeleteOptions", "meta.k8s.io", "", [
        fieldError(
          "FieldValueInvalid",
          IGNORE_STORE_READ_ERROR,
          "is not allowed with DELETECOLLECTION, try again after removing the option",
          true,
        ),
      ]);
    const deleted = await path.store.deleteCollection(ctx, path.namespace, listOptions(call.query), options);
    return send(call.reply, 200, deleted, call.format, ctx.warnings);
  },
};

/**
 * The verb's preamble: allowed to the caller (else 403), then served by this kind (else 405).
 * kube-apiserver's authorization filter runs before any handler answers, so a caller no role lets
 * use the verb learns 403, not which verbs the kind serves; one who may (an admin) learns 405.
 */
async function begin(call: VerbCall, verb: Verb, attrs: Partial<RequestAttributes> = {}): Promise<VerbCall> {
  await call.authorize({ verb, ...attrs });
  if (!call.path.rt.verbs.includes(verb)) throw errors.methodNotAllowed();
  return call;
}

/** DeleteOptions from the query and the optional body. */
function deleteOptionsOf(call: VerbCall) {
  const body = call.raw.length
    ? decodeObjectBody(call.request.headers["content-type"] ?? "application/json", call.raw).value
    : undefined;
  return deleteOptions(call.query, body);
}

/** Sends one object, fresh from a write as its stored bytes with resourceVersion spliced in (no second stringify). */
function sendObject(call: VerbCall, code: number, obj: KubeObject): unknown {
  const { reply, format, table, ctx } = call;
  const bytes = !table && format.encoding === "json" ? call.path.store.writtenJson(obj) : undefined;
  if (bytes) return sendJsonBytes(reply, bytes, bytes.length, ctx.warnings, code);
  return send(reply, code, table ? objectTable(call.path.rt, obj, table) : obj, format, ctx.warnings);
}

function collectionAttributes(path: ResourcePath, verb: string): RequestAttributes {
  return {
    verb,
    apiGroup: path.rt.group,
    resource: path.rt.plural,
    subresource: "",
    namespace: path.namespace ?? "",
    name: "",
    resourceRequest: true,
  };
}

/** Which verb a method on a path asks for; undefined for the combinations no handler serves (405). */
export function verbOf(method: string, path: ResourcePath, query: Query, subresource: "" | "status"): Verb | undefined {
  switch (method) {
    case "GET":
      if (path.name) return "get";
      return isWatch(query) ? "watch" : "list";
    case "POST":
      if (path.name || (path.rt.namespaced && path.namespace === undefined)) break;
      return "create";
    case "PUT":
      if (path.name) return "update";
      break;
    case "PATCH":
      if (path.name) return "patch";
      break;
    case "DELETE":
      if (subresource) break;
      return path.name ? "delete" : "deletecollection";
  }
  return undefined;
}

/**
 * The verb kube-apiserver's request info reads from a method on a path, whether or not a handler
 * serves it: what it authorizes before go-restful answers 405 (POST on a name is `create`, PUT on
 * a collection `update`, DELETE on a status `delete`; another method its own name, lower-cased).
 */
export function requestInfoVerb(method: string, path: ResourcePath): string {
  return requestVerb(method, !!path.name, false);
}
