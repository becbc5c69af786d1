/**
 * The create-only kinds (the reviews kubectl's `auth` commands create), authorized as
 * kube-apiserver authorizes them: its authorization filter runs before any handler answers, for
 * the verb its request info reads from the method, and only then does go-restful answer.
 *
 * - POST on the collection: `create` first (every authenticated caller holds it, as kube's
 *   system:basic-user gives it; a key whose scope leaves the reviews out does not), then the review.
 * - Another method on the collection (GET is list, or watch with `watch=true`; PUT update; PATCH
 *   patch; DELETE deletecollection): 403 for a caller no role lets do that; one who may (an
 *   admin) reaches go-restful, which knows the path but not the method: 405 MethodNotAllowed.
 * - Any method on a name under the collection (GET get, PUT update, PATCH patch, DELETE delete,
 *   POST create): 403 when refused, else 404 NotFound: go-restful has no route for the path.
 *
 * All answered as Status, rather than with fastify's 404 for a path it does not route.
 */
import type { FastifyInstance } from "fastify";
import { errors } from "../api/errors.js";
import { requestVerb } from "../api/request-verb.js";
import type { Authorizer, RequestAttributes } from "../authz/contract.js";
import type { RequestContext } from "../registry/request-context.js";
import type { ResourceType } from "../registry/resource-type.js";
import { isWatch, type Query } from "./query.js";
import { forbidden } from "./resource-handler.js";
import type { Guarded } from "./server-features.js";

/** Whether a GET on the collection asks for a watch; a watch parameter that is not a boolean does not. */
function asksWatch(query: Query): boolean {
  try {
    return isWatch(query);
  } catch {
    return false;
  }
}

/** Asks the authorizer for `verb` on create-only `rt` (a name and subresource when the path has them); 403 when refused. */
export async function authorizeCreateOnly(
  authorizer: Authorizer,
  ctx: RequestContext,
  rt: ResourceType,
  verb: string,
  name = "",
  subresource = "",
): Promise<void> {
  const attrs: RequestAttributes = {
    verb,
    apiGroup: rt.group,
    resource: rt.plural,
    subresource,
    namespace: "",
    name,
    resourceRequest: true,
  };
  const decision = await authorizer.authorize(ctx.user, attrs);
  if (!decision.allowed) throw forbidden(attrs, ctx, decision.reason);
}

/**
 * Registers the answers for GET, PUT, PATCH and DELETE on `url`, the collection of create-only
 * `rt`, and for every method on a name (and a subresource of it) under it. POST on `url` is the
 * caller's, which authorizes with authorizeCreateOnly before it creates.
 */
export function registerCreateOnlyMethods(
  app: FastifyInstance,
  url: string,
  rt: ResourceType,
  deps: { authorizer: Authorizer; guarded: Guarded },
): void {
  app.route({
    method: ["GET", "PUT", "PATCH", "DELETE"],
    url,
    handler: deps.guarded(async (request, _reply, ctx) => {
      await authorizeCreateOnly(
        deps.authorizer,
        ctx,
        rt,
        requestVerb(request.method, false, asksWatch(request.query as Query)),
      );
      throw errors.methodNotAllowed();
    }),
  });
  app.route({
    method: ["GET", "POST", "PUT", "PATCH", "DELETE"],
    url: `${url}/:name`,
    handler: deps.guarded(async (request, _reply, ctx) => {
      const { name } = request.params as { name: string };
      await authorizeCreateOnly(deps.authorizer, ctx, rt, requestVerb(request.method, true, false), name);
      throw errors.notFoundPath();
    }),
  });
  app.route({
    method: ["GET", "POST", "PUT", "PATCH", "DELETE"],
    url: `${url}/:name/:subresource`,
    handler: deps.guarded(async (request, _reply, ctx) => {
      const { name, subresource } = request.params as { name: string; subresource: string };
      await authorizeCreateOnly(deps.authorizer, ctx, rt, requestVerb(request.method, true, false), name, subresource);
      throw errors.notFoundPath();
    }),
  });
}
