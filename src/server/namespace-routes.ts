import { Type } from "@sinclair/typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { errors } from "../api/errors.js";
import { API_PREFIX, type KubeObject } from "../api/object.js";
import { requestVerb } from "../api/request-verb.js";
import type { Authorizer, RequestAttributes } from "../authz/contract.js";
import { ageColumn, nameColumn } from "../kinds/define.js";
import type { Registry } from "../registry/registry.js";
import { type RequestContext, systemContext } from "../registry/request-context.js";
import type { ResourceType } from "../registry/resource-type.js";
import { type ApiWatchEvent, type WatchSink, watchStore } from "../registry/store-watch.js";
import { NamespaceView, namespaceSelector, platformNamespaceObject, projectNamespaceObject } from "./namespaces.js";
import { negotiateResponse } from "./negotiation.js";
import { isWatch, listOptions, type Query, watchOptions } from "./query.js";
import { forbidden } from "./resource-handler.js";
import { send } from "./respond.js";
import { objectTable, parseIncludeObject, toTable } from "./table.js";
import { streamWatch, type WatchStreams } from "./watch-stream.js";

type Guarded = (
  handler: (request: FastifyRequest, reply: FastifyReply, ctx: RequestContext) => Promise<unknown>,
) => (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/** The Namespace kind, for Tables and watch metrics; never stored (namespaces.ts). */
export const namespaceResource: ResourceType = {
  group: "",
  version: "v1",
  kind: "Namespace",
  listKind: "NamespaceList",
  plural: "namespaces",
  singular: "namespace",
  shortNames: ["ns"],
  categories: [],
  namespaced: false,
  verbs: ["get", "list", "watch"],
  hasStatus: false,
  schema: Type.Object({}, { additionalProperties: true }),
  description: "A namespace of the platform: `platform`, or a project's `p-<project>`. Read-only.",
  strategy: {},
  columns: [
    nameColumn(),
    {
      name: "Status",
      type: "string",
      description: "Active, or Terminating while its project is deleted.",
      priority: 0,
      cell: (o) => (o.status as { phase?: string } | undefined)?.phase,
    },
    ageColumn(),
  ],
};

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
        return watchNamespaces(view, deps, request, reply, ctx, name);
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

/**
 * A watch of the namespaces: the projects' watch, each project's event as its namespace's,
 * `platform` added first when the watch starts with the current state. Selectors and what the
 * caller sees apply to the namespaces.
 */
function watchNamespaces(
  view: NamespaceView,
  deps: NamespaceRouteDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  ctx: RequestContext,
  name: string | undefined,
) {
  const { format, table } = tableOf(request);
  const options = watchOptions(request.query as Query);
  const byName = name === undefined ? "" : `metadata.name=${name.replace(/[\\,=]/g, (c) => `\\${c}`)}`;
  const fieldSelector = [options.fieldSelector, byName].filter(Boolean).join(",");
  const selected = namespaceSelector(options.labelSelector, fieldSelector);
  const startsWithState = !options.resourceVersion || options.resourceVersion === "0" || options.sendInitialEvents;
  const { labelSelector: _l, fieldSelector: _f, ...projectOptions } = options;
  return streamWatch(
    request,
    reply,
    format,
    options.timeoutSeconds,
    (sink) => {
      const shown = shownToCaller(sink, async (ns) => selected(ns) && view.visible(ctx.user, ns.metadata.name ?? ""));
      if (startsWithState) shown.send({ type: "ADDED", object: platformNamespaceObject() });
      return watchStore(
        deps.registry.store("projects"),
        systemContext(),
        undefined,
        projectOptions,
        asNamespaces(shown),
        {
          bookmarkIntervalMs: deps.bookmarkIntervalMs,
        },
      );
    },
    { rt: namespaceResource, table },
    deps.watchStreams,
  );
}

/**
 * The namespace events a caller sees, as a filtered watch of kube-apiserver sends them: ADDED
 * when one comes into view, DELETED when it leaves it (deleted, or no longer readable: a
 * member's namespace is gone from view as its project is deleted), in the order they came.
 */
function shownToCaller(sink: WatchSink, isShown: (ns: KubeObject) => Promise<boolean>): WatchSink {
  const inView = new Set<string>();
  let chain = Promise.resolve();
  return {
    send(event) {
      chain = chain.then(async () => {
        if (event.type === "BOOKMARK" || event.type === "ERROR") return sink.send(event);
        const ns = event.object as KubeObject;
        const name = ns.metadata.name ?? "";
        const was = inView.has(name);
        const now = event.type !== "DELETED" && (await isShown(ns).catch(() => false));
        if (now) {
          inView.add(name);
          sink.send({ type: was ? "MODIFIED" : "ADDED", object: ns });
        } else if (was) {
          inView.delete(name);
          sink.send({ type: "DELETED", object: ns });
        }
      });
    },
    end() {
      chain = chain.then(() => sink.end());
    },
  };
}

/** A sink of project events as one of namespace events. */
function asNamespaces(sink: WatchSink): WatchSink {
  return {
    send(event: ApiWatchEvent) {
      if (event.type === "ERROR") return sink.send(event);
      const object = event.object as KubeObject;
      // A bookmark carries a resourceVersion (and annotations) only, in the watched kind.
      if (event.type === "BOOKMARK")
        sink.send({ type: "BOOKMARK", object: { ...object, apiVersion: "v1", kind: "Namespace" } });
      else sink.send({ type: event.type, object: projectNamespaceObject(object) });
    },
    end: () => sink.end(),
  };
}
