import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { errors } from "../api/errors.js";
import { API_PREFIX } from "../api/object.js";
import { requestVerb } from "../api/request-verb.js";
import type { Authorizer, RequestAttributes } from "../authz/contract.js";
import type { Registry } from "../registry/registry.js";
import type { RequestContext } from "../registry/request-context.js";
import { watchNamespaces } from "./namespace-watch.js";
import { NamespaceView, namespaceResource, namespaceSelector } from "./namespaces.js";
import { negotiateResponse } from "./negotiation.js";
import { isWatch, listOptions, type Query } from "./query.js";
import { forbidden } from "./resource-handler.js";
import { send } from "./respond.js";
import { objectTable, parseIncludeObject, toTable } from "./table.js";
import type { WatchStreams } from "./watch-stream.js";

type Guarded = (
  handler: (request: FastifyRequest, reply: FastifyReply, ctx: RequestContext) => Promise<unknown>,
) => (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

export interface NamespaceRouteDeps {
  registry: Registry;
  authorizer: Authorizer;
  guarded: Guarded;
  watchStreams: WatchStreams;
  bookmarkIntervalMs: number;
}

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

/**
 * `/api/v1/namespaces[/{name}]` and `/api/v1/watch/namespaces[/{name}]`: get, list and watch,
 * each authorized as kube-apiserver asks (`get`/`list`/`watch` on `namespaces` in the core
 * group), then showing only the namespaces the caller can read something in (namespaces.ts).
 * Every other verb is refused by the authorizer (403): namespaces follow the projects.
 */
export function registerNamespaceRoutes(app: FastifyInstance, deps: NamespaceRouteDeps): void {
  const view = new NamespaceView(deps.registry, deps.authorizer);
  const base = `${API_PREFIX}/api/v1`;
  const route = (url: string, watchPath: boolean) =>
    app.route({
      method: [...METHODS],
      url,
      handler: deps.guarded(async (request, reply, ctx) => {
        const name = (request.params as { name?: string }).name;
        const query = request.query as Query;
        const watch = watchPath || (name === undefined && isWatch(query));
        const verb = request.method === "GET" ? (watch ? "watch" : name ? "get" : "list") : undefined;
        const authorize = (v: string) => authorizeNamespaces(deps.authorizer, ctx, v, name);
        if (!verb) {
          await authorize(requestVerb(request.method, name !== undefined, false));
          throw errors.methodNotAllowed();
        }
        await authorize(verb);
        if (verb === "get") return getNamespace(view, request, reply, ctx, name ?? "");
        if (verb === "list") return listNamespaces(view, request, reply, ctx);
        return watchNamespaces(view, deps, request, reply, ctx, name, tableOf(request));
      }),
    });
  route(`${base}/namespaces`, false);
  route(`${base}/namespaces/:name`, false);
  route(`${base}/watch/namespaces`, true);
  route(`${base}/watch/namespaces/:name`, true);
}

async function authorizeNamespaces(authorizer: Authorizer, ctx: RequestContext, verb: string, name?: string) {
  const attrs: RequestAttributes = {
    verb,
    apiGroup: "",
    resource: "namespaces",
    subresource: "",
    namespace: "",
    name: name ?? "",
    resourceRequest: true,
  };
  const decision = await authorizer.authorize(ctx.user, attrs);
  if (!decision.allowed) throw forbidden(attrs, ctx, decision.reason);
}

const tableOf = (request: FastifyRequest) => {
  const format = negotiateResponse(request.headers.accept, true);
  const includeObject = (request.query as Query).includeObject;
  const table = format.table
    ? parseIncludeObject(typeof includeObject === "string" ? includeObject : undefined)
    : undefined;
  return { format, table };
};

async function getNamespace(
  view: NamespaceView,
  request: FastifyRequest,
  reply: FastifyReply,
  ctx: RequestContext,
  name: string,
) {
  const { format, table } = tableOf(request);
  const ns = await view.get(name);
  // One the caller cannot read anything in is 404, like one that does not exist.
  if (!ns || !(await view.visible(ctx.user, name))) throw errors.notFound({ group: "", resource: "namespaces" }, name);
  return send(reply, 200, table ? objectTable(namespaceResource, ns, table) : ns, format, ctx.warnings);
}

async function listNamespaces(view: NamespaceView, request: FastifyRequest, reply: FastifyReply, ctx: RequestContext) {
  const { format, table } = tableOf(request);
  const options = listOptions(request.query as Query);
  const selected = namespaceSelector(options.labelSelector, options.fieldSelector);
  const all = await view.all();
  const candidates = all.items.filter(selected);
  const shown = await Promise.all(candidates.map((ns) => view.visible(ctx.user, ns.metadata.name ?? "")));
  const items = candidates.filter((_, i) => shown[i]);
  const metadata = { resourceVersion: all.resourceVersion };
  const body = table
    ? toTable(namespaceResource, items, table, metadata)
    : { kind: "NamespaceList", apiVersion: "v1", metadata, items };
  return send(reply, 200, body, format, ctx.warnings);
}
