/**
 * Another method than GET on a non-resource path that serves GET only (/version, discovery,
 * OpenAPI, /metrics, the backup, the token signing keys), answered as kube-apiserver answers it
 * rather than with fastify's 404 (which says the path does not exist). kube authorizes first, for
 * the method's own verb on the path (a non-resource request's verb is the lower-case method:
 * `post`, `put`, …), so a caller no role lets do that gets 403; one who may (an admin) reaches
 * go-restful, which knows the path but not the method: 405 MethodNotAllowed. Both as Status.
 *
 * The paths are found by watching the routes as they are registered (`onRoute`), so a GET
 * route added later is covered without a list to keep: those under the management API prefix
 * (resource paths there take every method already), /version, /metrics and /.well-known/.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { errors } from "../api/errors.js";
import { API_PREFIX } from "../api/object.js";
import { type Authorizer, nonResourceAttributes } from "../authz/contract.js";
import type { RequestContext } from "../registry/request-context.js";

const READ_METHODS = new Set(["GET", "HEAD"]);

function isNonResourcePath(url: string): boolean {
  return (
    url === "/version" || url === "/metrics" || url.startsWith("/.well-known/") || url.startsWith(`${API_PREFIX}/`)
  );
}

export interface GetOnlyPathDeps {
  /** Who asks: for a path anyone may read, the anonymous user when there are no credentials. */
  identify(request: FastifyRequest, path: string): Promise<RequestContext>;
  authorizer: Authorizer;
}

/** Starts watching route registrations; the returned function adds the answers (call it after the last route). */
export function watchGetOnlyPaths(app: FastifyInstance): (deps: GetOnlyPathDeps) => void {
  const methodsByUrl = new Map<string, Set<string>>();
  app.addHook("onRoute", (route) => {
    if (!isNonResourcePath(route.url)) return;
    const methods = methodsByUrl.get(route.url) ?? new Set<string>();
    for (const m of [route.method].flat()) methods.add(m.toUpperCase());
    methodsByUrl.set(route.url, methods);
  });
  return (deps) => {
    const getOnly = [...methodsByUrl].filter(([, methods]) => [...methods].every((m) => READ_METHODS.has(m)));
    const others = app.supportedMethods.filter((m) => !READ_METHODS.has(m));
    for (const [url] of getOnly) {
      app.route({
        method: others,
        url,
        // Before the body is read: a caller who may not gets nothing more read from it.
        onRequest: async (request) => {
          const path = request.url.split("?")[0] ?? "";
          const ctx = await deps.identify(request, path);
          request.userName = ctx.user.name;
          const verb = request.method.toLowerCase();
          const decision = await deps.authorizer.authorize(ctx.user, nonResourceAttributes(verb, path));
          if (!decision.allowed) throw errors.forbiddenPath(ctx.user.name, verb, path);
        },
        handler: async () => {
          throw errors.methodNotAllowed();
        },
      });
    }
  };
}
