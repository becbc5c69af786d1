/**
 * The server's hooks for metrics, in one place so that startServer keeps a few one-line calls:
 * the instrumented store, request counting (every branch of the request pipeline), authentication
 * outcomes, watch counting, `/metrics` and the gauges read from the server's state. The
 * composition root hands them to the server (src/server/server-features.ts).
 */
import type { Server } from "node:http";
import { ApiError } from "../api/errors.js";
import type { RequestObservers, ServerFeature } from "../server/server-features.js";
import type { Storage } from "../storage/interface.js";
import { InstrumentedStorage } from "./instrumented-storage.js";
import { etcdRequestDuration, sqliteRequestDuration } from "./metrics.js";
import { registerMetricsRoute, startMetricsListener } from "./metrics-endpoint.js";
import { countAuthentication, installRequestMetrics, observeWatch } from "./request-metrics.js";
import { registerGaugeSource, type ServerGaugeSource } from "./server-gauges.js";

export interface OperationsConfig {
  /** Count requests and storage calls (default true; the bench turns it off to compare). */
  metrics?: boolean;
  /** `--metrics-listen`: also serve GET /metrics over plain HTTP here (no authentication). */
  metricsListen?: { host: string; port: number };
}

/** What the gauges read besides the registry the server lends: the watch cache and the GC queue. */
export type GaugeState = Omit<ServerGaugeSource, "registry">;

export interface Operations extends RequestObservers {
  /** The store to put under the watch cache. */
  storage: Storage;
  /** Request and watch counting, `/metrics` and the gauges, installed into the server. */
  feature(state: GaugeState): ServerFeature;
  listen(): Promise<void>;
  close(): Promise<void>;
}

/** `kind` is the backend's (storage/factory.ts): its requests are timed in its own histogram. */
export function attachOperations(config: OperationsConfig, backend: Storage, kind: "etcd" | "sqlite"): Operations {
  const on = config.metrics !== false;
  let unregister: (() => void) | undefined;
  let listener: Server | undefined;
  return {
    storage: on
      ? new InstrumentedStorage(backend, kind === "etcd" ? etcdRequestDuration : sqliteRequestDuration)
      : backend,
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
    feature: (state) => ({
      installHooks(app, { registry, watchStreams, subresources, requests }) {
        if (!on) return;
        installRequestMetrics(app, requests, {
          resource: (plural) => registry.find(plural) !== undefined,
          subresource: (plural, sub) =>
            sub === "status" ? registry.find(plural)?.rt.hasStatus === true : subresources.has(`${plural}/${sub}`),
        });
        watchStreams.observe = observeWatch;
      },
      addRoutes(app, server) {
        registerMetricsRoute(app, server);
        unregister = registerGaugeSource({ ...state, registry: server.registry });
      },
    }),
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
