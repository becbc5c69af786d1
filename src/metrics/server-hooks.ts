/**
 * The server's hooks for metrics, in one place so that startServer keeps a few one-line calls:
 * the instrumented store, request counting (fastify and the fast GET path), authentication
 * outcomes, watch counting, `/metrics` and the gauges read from the server's state.
 */
import type { Server } from "node:http";
import type { FastifyInstance } from "fastify";
import { ApiError } from "../api/errors.js";
import type { Authorizer } from "../authz/contract.js";
import { registerBackupRoute } from "../backup/backup-route.js";
import type { Registry } from "../registry/registry.js";
import type { RequestContext } from "../registry/request-context.js";
import type { ResourceType } from "../registry/resource-type.js";
import type { FastCreateCounting } from "../server/fast-create.js";
import type { WatchStreams } from "../server/watch-stream.js";
import type { CachedStorage } from "../storage/cache/cached-storage.js";
import type { Storage } from "../storage/interface.js";
import { InstrumentedStorage } from "./instrumented-storage.js";
import { etcdRequestDuration, sqliteRequestDuration } from "./metrics.js";
import { type Guarded, registerMetricsRoute, startMetricsListener } from "./metrics-endpoint.js";
import {
  countAuthentication,
  FastCreateMetrics,
  FastGetMetrics,
  installRequestMetrics,
  observeWatch,
} from "./request-metrics.js";
import { registerGaugeSource } from "./server-gauges.js";

export interface OperationsConfig {
  /** Count requests and storage calls (default true; the bench turns it off to compare). */
  metrics?: boolean;
  /** `--metrics-listen`: also serve GET /metrics over plain HTTP here (no authentication). */
  metricsListen?: { host: string; port: number };
}

export interface RouteDeps {
  registry: Registry;
  authorizer: Authorizer;
  guarded: Guarded;
  storage: CachedStorage;
  gcQueueDepth(): number;
}

export interface Operations {
  /** The store to put under the watch cache. */
  storage: Storage;
  fastGetServed?: (rt: ResourceType, namespaced: boolean, seconds: number) => void;
  /** How the fast create path (src/server/fast-create.ts) counts its requests. */
  fastCreateCounting?: FastCreateCounting;
  /** `subresources`: the custom ones, keyed `plural/subresource` (ApiServerDeps.subresources). */
  installHooks(
    app: FastifyInstance,
    watches: WatchStreams,
    registry: Registry,
    subresources: ReadonlyMap<string, unknown>,
  ): void;
  authenticated(p: Promise<RequestContext>): Promise<RequestContext>;
  registerRoutes(app: FastifyInstance, deps: RouteDeps): void;
  listen(): Promise<void>;
  close(): Promise<void>;
}

/** `kind` is the backend's (storage/factory.ts): its requests are timed in its own histogram. */
export function attachOperations(config: OperationsConfig, backend: Storage, kind: "etcd" | "sqlite"): Operations {
  const on = config.metrics !== false;
  const hot = on ? new FastGetMetrics() : undefined;
  let unregister: (() => void) | undefined;
  let listener: Server | undefined;
  return {
    storage: on
      ? new InstrumentedStorage(backend, kind === "etcd" ? etcdRequestDuration : sqliteRequestDuration)
      : backend,
    fastGetServed: hot && ((rt, namespaced, seconds) => hot.served(rt, namespaced, seconds)),
    fastCreateCounting: on ? new FastCreateMetrics() : undefined,
    installHooks(app, watches, registry, subresources) {
      if (!on) return;
      installRequestMetrics(app, {
        resource: (plural) => registry.find(plural) !== undefined,
        subresource: (plural, sub) =>
          sub === "status" ? registry.find(plural)?.rt.hasStatus === true : subresources.has(`${plural}/${sub}`),
      });
      watches.observe = observeWatch;
    },
    authenticated(p) {
      if (!on) return p;
      return p.then(
        (ctx) => {
          countAuthentication("success");
          return ctx;
        },
        (err: unknown) => {
          countAuthentication(err instanceof ApiError && err.status.code === 401 ? "failure" : "error");
          throw err;
        },
      );
    },
    registerRoutes(app, deps) {
      registerMetricsRoute(app, deps);
      registerBackupRoute(app, { ...deps, store: deps.storage.inner });
      unregister = registerGaugeSource(deps);
    },
    async listen() {
      if (config.metricsListen)
        listener = await startMetricsListener(config.metricsListen.host, config.metricsListen.port);
    },
    async close() {
      unregister?.();
      if (listener) await new Promise((resolve) => listener!.close(resolve));
    },
  };
}
