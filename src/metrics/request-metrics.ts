/**
 * Request counting for the fastify path (hooks) and for the fast GET path (src/server/fast-get.ts),
 * where the label children are resolved once per resource so that counting allocates nothing.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ResourceType } from "../registry/resource-type.js";
import type { RequestDone } from "../server/request-done.js";
import type { WatchObserver } from "../server/watch-stream.js";
import type { CounterSeries, HistogramSeries } from "./labeled-series.js";
import {
  authenticationAttempts,
  inflightCounts,
  longrunningRequests,
  pendingFastAuthentications,
  registeredWatchers,
  requestDuration,
  requestTotal,
  watchEventsTotal,
} from "./metrics.js";
import {
  type RequestLabels,
  refusedRequestLabels,
  requestLabels,
  type ServedResources,
  scopeOf,
} from "./request-labels.js";

const authFailure = authenticationAttempts.labels("failure");
const authError = authenticationAttempts.labels("error");

declare module "fastify" {
  interface FastifyRequest {
    /** Set by the metrics hooks when the request arrives. */
    metricLabels?: RequestLabels;
  }
}

/** Counts every request fastify answers: totals, latency, in-flight and long-running (watch) gauges. */
export function installRequestMetrics(app: FastifyInstance, requestDone: RequestDone, served: ServedResources): void {
  app.decorateRequest("metricLabels", undefined);
  app.addHook("onRequest", (request, _reply, done) => {
    const labels = requestLabels(request.method, request.url, request.headers["content-type"], served);
    request.metricLabels = labels;
    if (labels.verb === "WATCH") longrunningRequests.labels(labels).inc();
    else {
      const kind = isReadOnly(request) ? "readOnly" : "mutating";
      inflightCounts[kind]++;
      inflightCounts.seen[kind] = true;
    }
    done();
  });
  requestDone.add((request, reply) => {
    const arrived = request.metricLabels;
    if (arrived) {
      if (arrived.verb === "WATCH") longrunningRequests.labels(arrived).dec();
      else inflightCounts[isReadOnly(request) ? "readOnly" : "mutating"]--;
      const code = reply.statusCode;
      const refused = code === 401 || code === 429;
      const labels = refused ? refusedRequestLabels(arrived.verb) : arrived;
      const dryRun = refused ? "" : dryRunOf(request.url);
      requestDuration.observe(requestDuration.series({ ...labels, dry_run: dryRun }), reply.elapsedTime / 1000);
      requestTotal.series({ ...labels, dry_run: dryRun, code: String(code) }).value++;
    }
  });
}

function isReadOnly(request: FastifyRequest): boolean {
  return request.method === "GET" || request.method === "HEAD" || request.method === "OPTIONS";
}

function dryRunOf(url: string): string {
  return url.includes("dryRun=All") ? "All" : "";
}

/** The outcome of one authentication, for `authentication_attempts{result}`. */
export function countAuthentication(result: "success" | "failure" | "error"): void {
  // Successes (nearly every request) are added at the next scrape, as the fast GET path's are.
  if (result === "success") pendingFastAuthentications.count++;
  else (result === "failure" ? authFailure : authError).inc();
}

interface HotChildren {
  total: CounterSeries;
  duration: HistogramSeries;
}

/** The fast GET path's counters: children per resource and scope, made on first use. */
export class FastGetMetrics {
  private readonly children = new WeakMap<ResourceType, { namespaced: HotChildren; cluster: HotChildren }>();

  /** One successful GET answered in `seconds` (the caller authenticated from its cache). */
  served(rt: ResourceType, namespaced: boolean, seconds: number): void {
    let entry = this.children.get(rt);
    if (entry === undefined) {
      entry = { namespaced: hotChildren(rt, true), cluster: hotChildren(rt, false) };
      this.children.set(rt, entry);
    }
    const c = namespaced ? entry.namespaced : entry.cluster;
    c.total.value++;
    requestDuration.observe(c.duration, seconds);
    pendingFastAuthentications.count++;
  }
}

/**
 * The fast create path's counting (src/server/fast-create.ts), the same series the hooks count a
 * create in: in flight while it runs, its authentication, its code and latency. The series of a
 * resource, scope and code are looked up once.
 */
export class FastCreateMetrics {
  private readonly children = new WeakMap<ResourceType, Map<number, HotChildren>>();

  started(): void {
    inflightCounts.mutating++;
    inflightCounts.seen.mutating = true;
    pendingFastAuthentications.count++;
  }

  finished(rt: ResourceType, namespaced: boolean, code: number, seconds: number): void {
    inflightCounts.mutating--;
    let byCode = this.children.get(rt);
    if (byCode === undefined) {
      byCode = new Map();
      this.children.set(rt, byCode);
    }
    // Two scopes per code, told apart by sign.
    const key = namespaced ? code : -code;
    let c = byCode.get(key);
    if (c === undefined) {
      c = hotChildren(rt, namespaced, "POST", String(code));
      byCode.set(key, c);
    }
    c.total.value++;
    requestDuration.observe(c.duration, seconds);
  }

  abandoned(): void {
    inflightCounts.mutating--;
  }
}

function hotChildren(rt: ResourceType, namespaced: boolean, verb = "GET", code = "200"): HotChildren {
  const labels = {
    verb,
    group: rt.group,
    version: rt.version,
    resource: rt.plural,
    subresource: "",
    // A GET names its object; a create names none.
    scope: scopeOf(verb === "GET", namespaced),
    component: "apiserver",
    dry_run: "",
  };
  return { total: requestTotal.series({ ...labels, code }), duration: requestDuration.series(labels) };
}

/** apiserver_watch_events_total and apiserver_registered_watchers of one watch of a resource. */
export function observeWatch(rt: ResourceType): WatchObserver {
  const labels = { group: rt.group, version: rt.version, kind: rt.kind };
  const events = watchEventsTotal.series(labels);
  const registered = registeredWatchers.labels(labels);
  registered.inc();
  let open = true;
  return {
    event: () => {
      events.value++;
    },
    end: () => {
      if (open) registered.dec();
      open = false;
    },
  };
}
