import type { FastifyReply, FastifyRequest } from "fastify";
import type { KubeObject } from "../api/object.js";
import type { Registry } from "../registry/registry.js";
import { type RequestContext, systemContext } from "../registry/request-context.js";
import { type ApiWatchEvent, type WatchSink, watchStore } from "../registry/store-watch.js";
import {
  type NamespaceView,
  namespaceResource,
  namespaceSelector,
  platformNamespaceObject,
  projectNamespaceObject,
} from "./namespaces.js";
import type { ResponseFormat } from "./negotiation.js";
import { type Query, watchOptions } from "./query.js";
import type { IncludeObject } from "./table.js";
import { streamWatch, type WatchStreams } from "./watch-stream.js";

export interface NamespaceWatchDeps {
  registry: Registry;
  watchStreams: WatchStreams;
  bookmarkIntervalMs: number;
}

/**
 * A watch of the namespaces: the projects' watch, each project's event as its namespace's,
 * `platform` added first when the watch starts with the current state. Selectors and what the
 * caller sees apply to the namespaces.
 */
export function watchNamespaces(
  view: NamespaceView,
  deps: NamespaceWatchDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  ctx: RequestContext,
  name: string | undefined,
  rendering: { format: ResponseFormat; table: IncludeObject | undefined },
) {
  const { format, table } = rendering;
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
