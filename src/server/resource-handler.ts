import type { FastifyReply, FastifyRequest } from "fastify";
import { errors } from "../api/errors.js";
import type { KubeObject } from "../api/object.js";
import { rawList } from "../registry/cache/raw-list.js";
import { rawGet } from "../registry/cache/raw-read.js";
import { withResourceVersion } from "../registry/cache/shared-codec.js";
import { storedBytesOf } from "../registry/codec.js";
import type { Registry } from "../registry/registry.js";
import type { RequestContext } from "../registry/request-context.js";
import type { Verb } from "../registry/resource-type.js";
import { watchStore } from "../registry/store-watch.js";
import type { Authorizer, RequestAttributes } from "./authorizer.js";
import { decodeObjectBody, decodePatchBody } from "./body.js";
import { negotiateResponse, type ResponseFormat } from "./negotiation.js";
import { deleteOptions, isWatch, listOptions, type Query, watchOptions, writeOptions } from "./query.js";
import { type ResourcePath, resolveResourcePath } from "./resource-path.js";
import { send, sendJsonBytes } from "./respond.js";
import { objectTable, parseIncludeObject, toTable } from "./table.js";
import { streamWatch, type WatchStreams } from "./watch-stream.js";

/** A handler for a custom subresource (kubeconfig, importvirtualcluster, accesskeys…). */
export type SubresourceHandler = (args: {
  request: FastifyRequest;
  reply: FastifyReply;
  ctx: RequestContext;
  path: ResourcePath;
  format: ResponseFormat;
  raw: Buffer;
  authorize: (attrs: Partial<RequestAttributes> & { verb: string }) => Promise<void>;
}) => Promise<unknown>;

export interface ResourceHandlerDeps {
  registry: Registry;
  authorizer: Authorizer;
  /** Keyed `plural/subresource`; the method is checked by the handler itself. */
  subresources: Map<string, SubresourceHandler>;
  bookmarkIntervalMs: number;
  watchStreams: WatchStreams;
}

/** The subresources the generic registry serves itself. */
const STATUS = "status";

/**
 * Serves `{prefix}/apis/management.platform/v1/...`: maps method and path to a registry
 * verb, authorizes it, and writes the result in the negotiated format.
 */
export async function handleResourceRequest(
  deps: ResourceHandlerDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  rest: string,
  ctx: RequestContext,
): Promise<unknown> {
  const path = resolveResourcePath(deps.registry, rest);
  const q = request.query as Query;
  const { rt, store } = path;
  // Reads of an object or its status render as a Table (`kubectl get --subresource=status` asks
  // for one); custom subresources return their own kinds, which have no columns.
  const tableAllowed = request.method === "GET" && (!path.subresource || path.subresource === STATUS);
  const format = negotiateResponse(request.headers.accept, tableAllowed);
  const raw = (request.body as Buffer | undefined) ?? Buffer.alloc(0);
  const namespace = path.namespace;

  const authorize = async (attrs: Partial<RequestAttributes> & { verb: string }) => {
    const full: RequestAttributes = { ...resourceAttributes(path, attrs.verb), ...attrs };
    let decision = await deps.authorizer.authorize(ctx.user, full);
    if (!decision.allowed && !full.object && full.name && deps.authorizer.needsObject?.(ctx.user, full)) {
      // Access rules live on the object itself: read it and ask again.
      const obj = await store.read(namespace, full.name);
      if (obj) decision = await deps.authorizer.authorize(ctx.user, { ...full, object: obj });
    }
    if (!decision.allowed) throw forbidden(full, ctx, decision.reason);
  };
  const requireVerb = (verb: Verb) => {
    if (!rt.verbs.includes(verb)) throw errors.methodNotAllowed();
  };

  if (path.subresource && path.subresource !== STATUS) {
    const custom = deps.subresources.get(`${rt.plural}/${path.subresource}`);
    if (!custom || !path.name) throw errors.notFoundPath();
    return custom({ request, reply, ctx, path, format, raw, authorize });
  }
  if (rt.namespaced && namespace === undefined && path.name) throw errors.notFoundPath();
  if (path.subresource === STATUS && !rt.hasStatus) throw errors.notFoundPath();
  const subresource = path.subresource === STATUS ? STATUS : "";

  const table = format.table ? parseIncludeObject((q.includeObject as string | undefined) ?? undefined) : undefined;
  const reply200 = (code: number, obj: KubeObject) => {
    // Fresh from a write: the stored bytes with resourceVersion spliced in, not a second stringify.
    const stored = !table && format.encoding === "json" ? storedBytesOf(obj) : undefined;
    const bytes = stored && withResourceVersion(stored, Number(obj.metadata.resourceVersion));
    if (bytes) return sendJsonBytes(reply, bytes, bytes.length, ctx.warnings, code);
    return send(reply, code, table ? objectTable(rt, obj, table) : obj, format, ctx.warnings);
  };

  switch (request.method) {
    case "GET": {
      if (path.name) {
        requireVerb("get");
        await authorize({ verb: "get" });
        const bytes = format.encoding === "json" && !table ? await rawGet(store, namespace, path.name) : undefined;
        if (bytes) return reply.code(200).type("application/json").send(bytes);
        return reply200(200, await store.get(ctx, namespace, path.name));
      }
      if (isWatch(q)) {
        requireVerb("watch");
        await authorize({ verb: "watch" });
        const options = watchOptions(q);
        ctx.canSee = deps.authorizer.visibleTo?.(ctx.user, attrsFor(rt.plural, rt.group, namespace, "watch"));
        return streamWatch(
          request,
          reply,
          format,
          options.timeoutSeconds,
          (sink) => watchStore(store, ctx, namespace, options, sink, { bookmarkIntervalMs: deps.bookmarkIntervalMs }),
          { rt, table },
          deps.watchStreams,
        );
      }
      requireVerb("list");
      await authorize({ verb: "list" });
      ctx.canSee = deps.authorizer.visibleTo?.(ctx.user, attrsFor(rt.plural, rt.group, namespace, "list"));
      const options = listOptions(q);
      const fast = format.encoding === "json" && !table ? await rawList(store, ctx, namespace, options) : undefined;
      if (fast) return sendJsonBytes(reply, fast.payload(), fast.byteLength, ctx.warnings);
      const list = await store.list(ctx, namespace, options);
      if (table) {
        return send(
          reply,
          200,
          toTable(rt, list.items, table, list.metadata as Record<string, unknown>),
          format,
          ctx.warnings,
        );
      }
      return send(reply, 200, list, format, ctx.warnings);
    }
    case "POST": {
      if (path.name) throw errors.methodNotAllowed();
      if (rt.namespaced && namespace === undefined) throw errors.methodNotAllowed();
      requireVerb("create");
      const body = decodeObjectBody(request.headers["content-type"], raw);
      const options = {
        ...writeOptions(q, request.headers["user-agent"], "CreateOptions"),
        duplicateFields: body.duplicates,
      };
      await authorize({ verb: "create", name: "" });
      if (rt.virtualCreate) {
        const admitted = store.admitBody(body.value as KubeObject, namespace, undefined, { ...options }, ctx, {
          nameOptional: true,
        });
        await ctx.admit?.(rt.plural, admitted, undefined);
        return reply200(201, await rt.virtualCreate(admitted, ctx));
      }
      const created = await store.create(ctx, namespace, body.value as KubeObject, options);
      // kube-apiserver answers 201 to a dry-run create too: the object would have been created.
      return reply200(201, created);
    }
    case "PUT": {
      if (!path.name) throw errors.methodNotAllowed();
      requireVerb("update");
      await authorize({ verb: "update" });
      const body = decodeObjectBody(request.headers["content-type"], raw);
      const options = {
        ...writeOptions(q, request.headers["user-agent"], "UpdateOptions"),
        duplicateFields: body.duplicates,
      };
      return reply200(
        200,
        await store.update(ctx, namespace, path.name, body.value as KubeObject, options, subresource),
      );
    }
    case "PATCH": {
      if (!path.name) throw errors.methodNotAllowed();
      requireVerb("patch");
      await authorize({ verb: "patch" });
      // What a JSON patch may read (test, copy, move): only what the caller may get.
      ctx.canSee = deps.authorizer.visibleTo?.(ctx.user, attrsFor(rt.plural, rt.group, namespace, "get"));
      const body = decodePatchBody(request.headers["content-type"], raw);
      const options = {
        ...writeOptions(q, request.headers["user-agent"], "PatchOptions"),
        duplicateFields: body.duplicates,
      };
      if (body.type === "apply") {
        const applied = await store.apply(ctx, namespace, path.name, body.value, options, subresource);
        return reply200(applied.created ? 201 : 200, applied.object);
      }
      const result = await store.patch(ctx, namespace, path.name, body.type, body.value, options, subresource);
      return reply200(200, result);
    }
    case "DELETE": {
      if (subresource) throw errors.methodNotAllowed();
      const body = raw.length
        ? decodeObjectBody(request.headers["content-type"] ?? "application/json", raw).value
        : undefined;
      const options = deleteOptions(q, body);
      if (path.name) {
        requireVerb("delete");
        await authorize({ verb: "delete" });
        const { object } = await store.delete(ctx, namespace, path.name, options);
        return reply200(200, object);
      }
      requireVerb("deletecollection");
      await authorize({ verb: "deletecollection" });
      ctx.canSee = deps.authorizer.visibleTo?.(ctx.user, attrsFor(rt.plural, rt.group, namespace, "delete"));
      const list = await store.list(ctx, namespace, { ...listOptions(q), limit: undefined, continue: undefined });
      const deleted: KubeObject[] = [];
      for (const item of list.items) {
        try {
          deleted.push((await store.delete(ctx, item.metadata.namespace, item.metadata.name!, options)).object);
        } catch (err) {
          if (!(err instanceof Error && "status" in err && (err as { code?: number }).code === 404)) throw err;
        }
      }
      return send(reply, 200, { ...list, items: deleted }, format, ctx.warnings);
    }
    default:
      throw errors.methodNotAllowed();
  }
}

/** What a request on this path asks to do, for the authorizer. */
export function resourceAttributes(path: ResourcePath, verb: string): RequestAttributes {
  return {
    verb,
    apiGroup: path.rt.group,
    resource: path.rt.plural,
    subresource: path.subresource,
    namespace: path.namespace ?? "",
    name: path.name ?? "",
    resourceRequest: true,
  };
}

function attrsFor(resource: string, apiGroup: string, namespace: string | undefined, verb: string): RequestAttributes {
  return { verb, apiGroup, resource, subresource: "", namespace: namespace ?? "", name: "", resourceRequest: true };
}

/** `users.management.platform "bob" is forbidden: User "alice" cannot get resource "users" in API group "management.platform"`. */
export function forbidden(attrs: RequestAttributes, ctx: RequestContext, reason?: string) {
  // Kubernetes' wording (kubectl and clients match on it): always "User", the reason is not shown.
  void reason;
  const resource = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  let detail = `User "${ctx.user.name}" cannot ${attrs.verb} resource "${resource}" in API group "${attrs.apiGroup}"`;
  if (attrs.namespace) detail += ` in the namespace "${attrs.namespace}"`;
  return errors.forbidden({ group: attrs.apiGroup, resource: attrs.resource }, attrs.name, detail);
}
