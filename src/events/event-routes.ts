import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { errors } from "../api/errors.js";
import { API_PREFIX, type KubeObject } from "../api/object.js";
import type { Authorizer } from "../authz/contract.js";
import type { Registry } from "../registry/registry.js";
import type { RequestContext } from "../registry/request-context.js";
import type { Store } from "../registry/store.js";
import { type WatchSink, watchStore } from "../registry/store-watch.js";
import { AGGREGATED_DISCOVERY_V2, wantsAggregatedDiscovery } from "../server/discovery.js";
import { negotiateResponse } from "../server/negotiation.js";
import { isWatch, listOptions, type Query, watchOptions } from "../server/query.js";
import { send } from "../server/respond.js";
import { parseIncludeObject, toTable } from "../server/table.js";
import { streamWatch, type WatchStreams } from "../server/watch-stream.js";
import { apiVersions, coreAggregatedDiscovery, coreResourceList } from "./core-discovery.js";
import { eventResource } from "./event-type.js";
import { type EventFilter, eventFilterFor } from "./event-visibility.js";

export type Guarded = (
  handler: (request: FastifyRequest, reply: FastifyReply, ctx: RequestContext) => Promise<unknown>,
) => (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

export interface EventRouteDeps {
  /** The Event store (platform-events.ts). */
  events: Store;
  /** The platform's kinds, whose objects Events are about. */
  registry: Registry;
  authorizer: Authorizer;
  watchStreams: WatchStreams;
  bookmarkIntervalMs: number;
  freshnessWaitMs?: number;
}

const CORE = `${API_PREFIX}/api`;
const ALL = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

/**
 * The core group: `/api` discovery and core v1 Events, read-only. Lists and watches show each
 * caller only the Events about objects they may get (event-visibility.ts); any write is 405.
 */
export function registerEventRoutes(app: FastifyInstance, guarded: Guarded, deps: EventRouteDeps): void {
  app.get(
    CORE,
    guarded(async (req, reply) => {
      if (wantsAggregatedDiscovery(req.headers.accept)) {
        return reply
          .code(200)
          .header("content-type", AGGREGATED_DISCOVERY_V2)
          .send(Buffer.from(JSON.stringify(coreAggregatedDiscovery())));
      }
      return send(reply, 200, apiVersions(), negotiateResponse(req.headers.accept, false));
    }),
  );
  app.get(
    `${CORE}/v1`,
    guarded(async (req, reply) => send(reply, 200, coreResourceList(), negotiateResponse(req.headers.accept, false))),
  );
  const collection = guarded((req, reply, ctx) => {
    if (req.method !== "GET") throw errors.methodNotAllowed();
    const { namespace } = req.params as { namespace?: string };
    return isWatch(req.query as Query)
      ? watchEvents(deps, req, reply, ctx, namespace)
      : listEvents(deps, req, reply, ctx, namespace);
  });
  app.route({ method: [...ALL], url: `${CORE}/v1/events`, handler: collection });
  app.route({ method: [...ALL], url: `${CORE}/v1/namespaces/:namespace/events`, handler: collection });
  app.route({
    method: [...ALL],
    url: `${CORE}/v1/namespaces/:namespace/events/:name`,
    handler: guarded((req, reply, ctx) => {
      if (req.method !== "GET") throw errors.methodNotAllowed();
      const { namespace, name } = req.params as { namespace: string; name: string };
      return getEvent(deps, req, reply, ctx, namespace, name);
    }),
  });
}

async function getEvent(
  deps: EventRouteDeps,
  req: FastifyRequest,
  reply: FastifyReply,
  ctx: RequestContext,
  namespace: string,
  name: string,
): Promise<unknown> {
  const format = negotiateResponse(req.headers.accept, true);
  const event = await deps.events.read(namespace, name);
  // Not shown and not there answer alike: the name of an Event says which object it is about.
  if (!event || !(await eventFilterFor(deps.registry, deps.authorizer, ctx.user)(event))) {
    throw errors.notFound({ group: "", resource: "events" }, name);
  }
  const table = format.table ? parseIncludeObject((req.query as Query).includeObject as string | undefined) : undefined;
  return send(reply, 200, table ? toTable(eventResource, [event], table) : event, format);
}

async function listEvents(
  deps: EventRouteDeps,
  req: FastifyRequest,
  reply: FastifyReply,
  ctx: RequestContext,
  namespace: string | undefined,
): Promise<unknown> {
  const query = req.query as Query;
  const format = negotiateResponse(req.headers.accept, true);
  const list = await deps.events.list(ctx, namespace, { ...listOptions(query), freshnessWaitMs: deps.freshnessWaitMs });
  const visible = eventFilterFor(deps.registry, deps.authorizer, ctx.user);
  const shown = await Promise.all(list.items.map(visible));
  const items = list.items.filter((_, i) => shown[i]);
  // How many Events remain would count the hidden ones too.
  const { remainingItemCount: _hidden, ...metadata } = list.metadata as Record<string, unknown>;
  const table = format.table ? parseIncludeObject(query.includeObject as string | undefined) : undefined;
  const body = table ? toTable(eventResource, items, table, metadata) : { ...list, metadata, items };
  return send(reply, 200, body, format, ctx.warnings);
}

async function watchEvents(
  deps: EventRouteDeps,
  req: FastifyRequest,
  reply: FastifyReply,
  ctx: RequestContext,
  namespace: string | undefined,
): Promise<unknown> {
  const query = req.query as Query;
  const format = negotiateResponse(req.headers.accept, true);
  const table = format.table ? parseIncludeObject(query.includeObject as string | undefined) : undefined;
  const options = { ...watchOptions(query), freshnessWaitMs: deps.freshnessWaitMs };
  const visible = eventFilterFor(deps.registry, deps.authorizer, ctx.user);
  return streamWatch(
    req,
    reply,
    format,
    options.timeoutSeconds,
    (sink) =>
      watchStore(deps.events, ctx, namespace, options, filtered(sink, visible), {
        bookmarkIntervalMs: deps.bookmarkIntervalMs,
      }),
    { rt: eventResource, table },
    deps.watchStreams,
  );
}

/** The watch's events in their order, each Event only when the caller may see it. */
function filtered(sink: WatchSink, visible: EventFilter): WatchSink {
  let chain = Promise.resolve();
  return {
    send(event) {
      chain = chain.then(async () => {
        const shown =
          event.type === "BOOKMARK" ||
          event.type === "ERROR" ||
          (await visible(event.object as KubeObject).catch(() => false));
        if (shown) sink.send(event);
      });
    },
    end() {
      chain = chain.then(() => sink.end());
    },
  };
}
