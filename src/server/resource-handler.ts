import type { FastifyReply, FastifyRequest } from "fastify";
import { errors } from "../api/errors.js";
import type { RequestAttributes } from "../authz/contract.js";
import { readForRules } from "../registry/corrupt-object.js";
import type { RequestContext } from "../registry/request-context.js";
import { legacyWatchQuery, legacyWatchRest } from "./legacy-watch.js";
import { negotiateResponse } from "./negotiation.js";
import type { Query } from "./query.js";
import { type ResourcePath, resolveResourcePath } from "./resource-path.js";
import { requestInfoVerb, VERB_HANDLERS, verbOf } from "./resource-verbs.js";
import { parseIncludeObject } from "./table.js";
import type { ResourceHandlerDeps, SubresourceHandler, VerbCall } from "./verb-call.js";

export type { ResourceHandlerDeps, SubresourceHandler };

/** The subresources the generic registry serves itself. */
const STATUS = "status";

/**
 * Serves `{prefix}/apis/management.platform/v1/...` (and, with the core group's registry,
 * `{prefix}/api/v1/...`): resolves the path, hands custom
 * subresources to their handlers, and everything else to the handler of its verb
 * (resource-verbs.ts), which authorizes and writes the result in the negotiated format.
 */
export async function handleResourceRequest(
  deps: ResourceHandlerDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  rest: string,
  ctx: RequestContext,
): Promise<unknown> {
  const watchRest = legacyWatchRest(rest);
  const path = resolveResourcePath(deps.registry, watchRest ?? rest);
  const { rt } = path;
  if (watchRest !== undefined) {
    const query = legacyWatchQuery(request.method, path, request.query as Query);
    const format = negotiateResponse(request.headers.accept, true);
    const table = format.table
      ? parseIncludeObject((query.includeObject as string | undefined) ?? undefined)
      : undefined;
    const authorize = authorizeOn(deps, path, ctx);
    const raw = Buffer.alloc(0);
    return VERB_HANDLERS.watch({
      deps,
      request,
      reply,
      ctx,
      path,
      query,
      format,
      table,
      raw,
      subresource: "",
      authorize,
    });
  }
  const query = request.query as Query;
  // Reads of an object or its status render as a Table (`kubectl get --subresource=status` asks
  // for one); custom subresources return their own kinds, which have no columns.
  const tableAllowed = request.method === "GET" && (!path.subresource || path.subresource === STATUS);
  const format = negotiateResponse(request.headers.accept, tableAllowed);
  const raw = (request.body as Buffer | undefined) ?? Buffer.alloc(0);
  const authorize = authorizeOn(deps, path, ctx);

  if (path.subresource && path.subresource !== STATUS) {
    const custom = deps.subresources.get(`${rt.plural}/${path.subresource}`);
    if (!custom || !path.name) throw errors.notFoundPath();
    return custom({ request, reply, ctx, path, format, raw, authorize });
  }
  if (rt.namespaced && path.namespace === undefined && path.name) throw errors.notFoundPath();
  if (path.subresource === STATUS && !rt.hasStatus) throw errors.notFoundPath();
  const subresource = path.subresource === STATUS ? STATUS : "";
  const verb = verbOf(request.method, path, query, subresource);
  if (!verb) {
    // kube-apiserver authorizes the method's verb before go-restful answers 405: a caller not
    // allowed it gets 403 and learns nothing of which methods the path serves.
    await authorize({ verb: requestInfoVerb(request.method, path) });
    throw errors.methodNotAllowed();
  }
  const table = format.table ? parseIncludeObject((query.includeObject as string | undefined) ?? undefined) : undefined;
  return VERB_HANDLERS[verb]({ deps, request, reply, ctx, path, query, format, table, raw, subresource, authorize });
}

/** The authorize of a request on `path`: asks again with the object when its access rules decide. */
function authorizeOn(deps: ResourceHandlerDeps, path: ResourcePath, ctx: RequestContext): VerbCall["authorize"] {
  return async (attrs) => {
    const full: RequestAttributes = { ...resourceAttributes(path, attrs.verb), ...attrs };
    let decision = await deps.authorizer.authorize(ctx.user, full);
    if (!decision.allowed && !full.object && full.name && deps.authorizer.needsObject?.(ctx.user, full)) {
      // Access rules live on the object itself: read it and ask again.
      const obj = await readForRules(path.store, path.namespace, full.name);
      if (obj) decision = await deps.authorizer.authorize(ctx.user, { ...full, object: obj });
    }
    if (!decision.allowed) throw forbidden(full, ctx, decision.reason);
  };
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

/** `users.management.platform "bob" is forbidden: User "alice" cannot get resource "users" in API group "management.platform"`. */
export function forbidden(attrs: RequestAttributes, ctx: RequestContext, reason?: string) {
  // Kubernetes' wording (kubectl and clients match on it): always "User", the reason is not shown.
  void reason;
  const resource = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  let detail = `User "${ctx.user.name}" cannot ${attrs.verb} resource "${resource}" in API group "${attrs.apiGroup}"`;
  if (attrs.namespace) detail += ` in the namespace "${attrs.namespace}"`;
  return errors.forbidden({ group: attrs.apiGroup, resource: attrs.resource }, attrs.name, detail);
}
