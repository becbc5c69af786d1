/**
 * Every Prometheus metric the server exports, on one process-wide registry (as kube-apiserver's
 * legacyregistry is). Names, labels and buckets follow kube-apiserver wherever the meaning is the
 * same, so its dashboards and alerts work unchanged; the platform's own metrics start with
 * `platform_`. See docs/operations.md for the list.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, type Metric, Registry } from "prom-client";
import { identityCacheCounts } from "../auth/identity-cache-counts.js";
import { walSyncTiming } from "../storage/sqlite/durable-wal.js";
import { LabeledCounter, LabeledHistogram } from "./labeled-series.js";

export const metricsRegistry = new Registry();

/** Adds one of labeled-series.ts's metrics (prom-client prints any object with name, help, type and get()). */
function register<M extends LabeledCounter | LabeledHistogram>(metric: M): M {
  metricsRegistry.registerMetric(metric as unknown as Metric);
  return metric;
}
collectDefaultMetrics({ register: metricsRegistry });

/** kube-apiserver's request latency buckets (seconds). */
const REQUEST_BUCKETS = [
  0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60,
];
/** kube-apiserver's etcd request latency buckets (seconds). */
const STORAGE_BUCKETS = [
  0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60,
];
/** Finer buckets for an fsync, which is usually well under 5 ms. */
const FSYNC_BUCKETS = [0.0005, 0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.064, 0.128, 0.256, 0.512, 1.024, 2.048];

const REQUEST_LABELS = ["verb", "group", "version", "resource", "subresource", "scope", "component"] as const;

export const requestTotal = register(
  new LabeledCounter(
    "apiserver_request_total",
    "Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.",
    [...REQUEST_LABELS, "dry_run", "code"],
  ),
);

export const requestDuration = register(
  new LabeledHistogram(
    "apiserver_request_duration_seconds",
    "Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.",
    [...REQUEST_LABELS, "dry_run"],
    REQUEST_BUCKETS,
  ),
);

/**
 * Requests in flight, kept as plain numbers (every request changes one twice) and copied into
 * the gauge when it is read; a kind appears once a request of it has been seen.
 */
export const inflightCounts = { readOnly: 0, mutating: 0, seen: { readOnly: false, mutating: false } };

export const inflightRequests = new Gauge({
  name: "apiserver_current_inflight_requests",
  help: "Maximal number of currently used inflight request limit of this apiserver per request kind in last second.",
  labelNames: ["request_kind"],
  registers: [metricsRegistry],
  collect() {
    for (const kind of ["readOnly", "mutating"] as const)
      if (inflightCounts.seen[kind]) this.set({ request_kind: kind }, inflightCounts[kind]);
  },
});

export const longrunningRequests = new Gauge({
  name: "apiserver_longrunning_requests",
  help: "Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component.",
  labelNames: REQUEST_LABELS,
  registers: [metricsRegistry],
});

export const registeredWatchers = new Gauge({
  name: "apiserver_registered_watchers",
  help: "Number of currently registered watchers for a given resources",
  labelNames: ["group", "version", "kind"],
  registers: [metricsRegistry],
});

export const watchEventsTotal = register(
  new LabeledCounter("apiserver_watch_events_total", "Number of events sent in watch clients", [
    "group",
    "version",
    "kind",
  ]),
);

export const etcdRequestDuration = register(
  new LabeledHistogram(
    "etcd_request_duration_seconds",
    "Etcd request latency in seconds for each operation and object type.",
    ["operation", "type"],
    STORAGE_BUCKETS,
  ),
);

export const sqliteRequestDuration = register(
  new LabeledHistogram(
    "platform_sqlite_request_duration_seconds",
    "Embedded SQLite store request latency in seconds for each operation and object type (etcd_request_duration_seconds' equivalent; writes include the wait for the WAL fsync).",
    ["operation", "type"],
    STORAGE_BUCKETS,
  ),
);

const walFsyncDuration = new Histogram({
  name: "platform_sqlite_wal_fsync_duration_seconds",
  help: "Time of each fsync of the SQLite write-ahead log (one covers every transaction committed before it started).",
  buckets: FSYNC_BUCKETS,
  registers: [metricsRegistry],
});

export const auditEventTotal = new Counter({
  name: "apiserver_audit_event_total",
  help: "Counter of audit events generated and sent to the audit backend.",
  registers: [metricsRegistry],
});

/** Successful authentications since the last scrape (added then: no label hashing per request). */
export const pendingFastAuthentications = { count: 0 };

export const authenticationAttempts = new Counter({
  name: "authentication_attempts",
  help: "Counter of authenticated attempts.",
  labelNames: ["result"],
  registers: [metricsRegistry],
  collect() {
    if (pendingFastAuthentications.count > 0) this.inc({ result: "success" }, pendingFastAuthentications.count);
    pendingFastAuthentications.count = 0;
  },
});

/**
 * The access-key identity cache (src/auth/authenticator.ts): `hit` for an identity answered from
 * the cache, `build` for one built from the in-memory index (a first use, or after a change of
 * what it is built from). Plain numbers per request, added here when scraped.
 */
export const identityCacheLookups = new Counter({
  name: "platform_identity_cache_lookups_total",
  help: "Access-key identities answered from the authenticator's cache (result=hit) or built again from the identity index (result=build).",
  labelNames: ["result"],
  registers: [metricsRegistry],
  collect() {
    this.inc({ result: "hit" }, identityCacheCounts.hits);
    this.inc({ result: "build" }, identityCacheCounts.builds);
    identityCacheCounts.hits = 0;
    identityCacheCounts.builds = 0;
  },
});

/**
 * Requests a fast branch of the server's pipeline answered (src/server/front-door.ts), by branch:
 * `get` (GET of one object as JSON), `create` (a JSON create). Beside apiserver_request_total,
 * which counts them too, it tells how much of the traffic takes them.
 */
export const fastPathRequests = register(
  new LabeledCounter(
    "platform_fast_path_requests_total",
    "Requests answered by a fast branch of the request pipeline (path=get: GET of one object as JSON; path=create: a JSON create).",
    ["path"],
  ),
);

const gatewayRequests = register(
  new LabeledCounter(
    "platform_gateway_requests_total",
    "Requests proxied by the cluster gateway, by connected cluster and HTTP response code.",
    ["cluster", "code"],
  ),
);

/** For the cluster gateway: count one proxied request. */
export function countGatewayRequest(cluster: string, code: number): void {
  gatewayRequests.series({ cluster, code: String(code) }).value++;
}

/**
 * Stored values a shared informer skipped because they do not decode (src/registry/informer.ts):
 * rare, so a plain prom-client counter; a series appears once its resource has had one.
 */
export const informerUndecodableObjects = new Counter({
  name: "platform_informer_undecodable_objects_total",
  help: "Stored objects the server's shared informers skipped because their stored value does not decode, by resource.",
  labelNames: ["resource"],
  registers: [metricsRegistry],
});

/**
 * Which server process answered this scrape: its identity in the controllers' leader election
 * (host, pid and a random part). Several replicas each export their own; a scrape of
 * `--workers N` shows one series per worker, labelled `worker` (1…N) as well.
 */
export const replicaInfo = new Gauge({
  name: "platform_replica_info",
  help: "This server process (replica), by its leader-election identity, and its worker number under --workers; always 1.",
  labelNames: ["identity", "worker"],
  registers: [metricsRegistry],
});

walSyncTiming.observe = (seconds) => walFsyncDuration.observe(seconds);
