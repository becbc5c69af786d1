/**
 * Another method than POST on the collection of a create-only kind (the reviews kubectl's `auth`
 * commands create), answered as kube-apiserver answers it rather than with fastify's 404 (which
 * says the path does not exist). kube authorizes first, for the verb its request info reads from
 * the method (GET is list, or watch with `watch=true`; PUT update; PATCH patch; DELETE
 * deletecollection), so a caller no role lets do that gets 403; one who may (an admin) reaches
 * go-restful, which knows the path but not the method: 405 MethodNotAllowed. Both as Status.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { errors } from "../api/errors.js";
import type { Authorizer, RequestAttributes } from "../authz/contract.js";
import type { RequestContext } from "../registry/request-context.js";
import type { ResourceType } from "../registry/resource-type.js";
import { isWatch, type Query } from "./query.js";
import { forbidden } from "./resource-handler.js";

type Guarded = (
  handler: (request: FastifyRequest, reply: FastifyReply, ctx: RequestContext) => Promise<unknown>,
) => (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/** The verb kube-apiserver's request info reads from a method on a cluster-scoped collection. */
function collectionVerb(method: string, query: Query): string {
  switch (method) {
    case "GET":
    case "HEAD":
      try {
        return isWatch(query) ? "watch" : "list";
      } catch {
        return "list"; // a watch parameter that is not a boolean: not a watch
      }
    case "PUT":
      return "update";
    case "PATCH":
      return "patch";
    default:
      return "deletecollection";
  }
}

/** Registers the answers for GET, PUT, PATCH and DELETE on `url`, the collection of create-only `rt`. */
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
      const attrs: RequestAttributes = {
        verb: collectionVerb(request.method, request.query as Query),
        apiGroup: rt.group,
        resource: rt.plural,
        subresource: "",
        namespace: "",
        name: "",
        resourceRequest: true,
      };
      const decision = await deps.authorizer.authorize(ctx.user, attrs);
      if (!decision.allowed) throw forbidden(attrs, ctx, decision.reason);
      throw errors.methodNotAllowed();
    }),
  });
}
