/**
 * Request counting: every request the server answers, whichever branch of its request pipeline
 * answered it (src/server/request-pipeline.ts): fastify's routing or a fast branch.
 */
import type { FastifyInstance } from "fastify";
import type { ResourceType } from "../registry/resource-type.js";
import type { PipelineRequest, RequestPipeline } from "../server/request-pipeline.js";
import type { WatchObserver } from "../server/watch-stream.js";
import type { CounterSeries, HistogramSeries } from "./labeled-series.js";
import {
  authenticationAttempts,
  fastPathRequests,
  inflightCounts,
  longrunningRequests,
  pendingFastAuthentications,
  registeredWatchers,
  requestDuration,
  requestTotal,
  watchEventsTotal,
} from "./metrics.js";
import { type RequestLabels, refusedRequestLabels, requestLabels, type ServedResources } from "./request-labels.js";

const authFailure = authenticationAttempts.labels("failure");
const authError = authenticationAttempts.labels("error");
const fastGets = fastPathRequests.series({ path: "get" });
const fastCreates = fastPathRequests.series({ path: "create" });

declare module "fastify" {
  interface FastifyRequest {
    /** Set by the metrics' `arrived` stage. */
    metricLabels?: RequestLabels;
  }
}

/** A request as the metrics' stages see it: the labels are kept on it from arrival to the end. */
type Counted = PipelineRequest & { metricLabels?: RequestLabels };

/** Counts every request: totals, latency, in-flight and long-running (watch) gauges. */
export function installRequestMetrics(app: FastifyInstance, requests: RequestPipeline, served: ServedResources): void {
  app.decorateRequest("metricLabels", undefined);
  requests.join({
    arrived(request: Counted) {
      const labels = requestLabels(request.method, request.url, request.headers["content-type"], served);
      request.metricLabels = labels;
      if (labels.verb === "WATCH") longrunningRequests.labels(labels).inc();
      else {
        const kind = isReadOnly(request) ? "readOnly" : "mutating";
        inflightCounts[kind]++;
        inflightCounts.seen[kind] = true;
      }
    },
    done(request: Counted, answer) {
      const arrived = request.metricLabels;
      if (!arrived) return;
      if (arrived.verb === "WATCH") longrunningRequests.labels(arrived).dec();
      else inflightCounts[isReadOnly(request) ? "readOnly" : "mutating"]--;
      const code = answer.statusCode;
      const refused = code === 401 || code === 429;
      const labels = refused ? refusedRequestLabels(arrived.verb) : arrived;
      const series = seriesOf(labels, refused ? "" : dryRunOf(request.url), code);
      requestDuration.observe(series.duration, answer.elapsedTime / 1000);
      series.total.value++;
      if (answer.fastPath) {
        // Its caller authenticated at once, from the identity cache (routed requests are counted
        // as they authenticate: countAuthentication).
        pendingFastAuthentications.count++;
        (answer.fastPath === "get" ? fastGets : fastCreates).value++;
      }
    },
  });
}

interface RequestSeries {
  total: CounterSeries;
  duration: HistogramSeries;
}

/**
 * The series of each label set, dry run and code, looked up by one string: building the label
 * objects to look them up (two spreads) cost more than all the rest of counting a request. As
 * bounded as the series themselves (each value comes from a fixed set: request-labels.ts).
 */
const seriesByKey = new Map<string, RequestSeries>();

function seriesOf(labels: RequestLabels, dryRun: string, code: number): RequestSeries {
  const key = `${labels.verb}\u0001${labels.group}\u0001${labels.resource}\u0001${labels.subresource}\u0001${labels.scope}\u0001${dryRun}\u0001${code}`;
  let series = seriesByKey.get(key);
  if (series === undefined) {
    series = {
      total: requestTotal.series({ ...labels, dry_run: dryRun, code: String(code) }),
      duration: requestDuration.series({ ...labels, dry_run: dryRun }),
    };
    seriesByKey.set(key, series);
  }
  return series;
}

function isReadOnly(request: PipelineRequest): boolean {
  return request.method === "GET" || request.method === "HEAD" || request.method === "OPTIONS";
}

function dryRunOf(url: string): string {
  return url.includes("dryRun=All") ? "All" : "";
}

/** The outcome of one authentication, for `authentication_attempts{result}`. */
export function countAuthentication(result: "success" | "failure" | "error"): void {
  // Successes (nearly every request) are added at the next scrape, as the fast branches' are.
  if (result === "success") pendingFastAuthentications.count++;
  else (result === "failure" ? authFailure : authError).inc();
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
