import { isDeepStrictEqual } from "node:util";
import { ApiError } from "../../api/errors.js";
import { type KubeObject, specOf, statusOf } from "../../api/object.js";
import {
  ClusterConnectionError,
  classifyError,
  clusterClient,
  DEFAULT_SECRET_NAMESPACE,
  withDeadline,
} from "../../clusters/cluster-connection.js";
import type { EndpointPolicy } from "../../clusters/endpoint-policy.js";
import type { EventRecorder } from "../../events/event-recorder.js";
import { recordClusterHealth } from "../../events/messages.js";
import type { ClusterSpec, ClusterStatus } from "../../kinds/cluster/cluster.js";
import type { Registry } from "../../registry/registry.js";
import { systemContext } from "../../registry/request-context.js";
import type { SharedInformers } from "../../registry/shared-informers.js";
import { type ControllerLog, silentLog } from "../controller-log.js";
import { ControllerWiring } from "../controller-wiring.js";
import { WiredController } from "../wired-controller.js";

export interface ClusterHealthOptions {
  /**
   * Where the platform may connect (`--allow-local-endpoints`, clusters/endpoint-policy.ts): a
   * cluster whose server it forbids is `EndpointNotAllowed` and never called, as the gateway
   * refuses it.
   */
  endpoints: EndpointPolicy;
  /** How often every cluster is checked again (default one minute). */
  intervalMs?: number;
  /** How long one check may take before the cluster counts as unreachable (default 10 s). */
  timeoutMs?: number;
  /** Checks running at once at most (default 16); the others wait their turn in order. */
  concurrency?: number;
  /** Reports Ready ↔ NotReady changes (src/events). */
  events?: EventRecorder;
}

/** What a check found, as written to Cluster.status. */
export interface ClusterHealth {
  phase: "Initialized" | "Failed";
  online: boolean;
  reason: string;
  message: string;
}

/** Namespace listed to prove the credentials can read what the platform needs, when spec.managementNamespace is empty. */
const DEFAULT_PROBE_NAMESPACE = DEFAULT_SECRET_NAMESPACE;

/**
 * Keeps Cluster.status current: connects to every Cluster with the kubeconfig in its
 * config secret, on start, whenever its spec (generation) or its config secret changes,
 * and every `intervalMs`. Status goes through the status subresource, so a check never
 * bumps generation and never triggers itself. start()/stop() let leader election run it
 * on one replica at a time.
 *
 * Each of those asks queues the cluster's name (controller-wiring.ts, work-queue.ts): one check per cluster at a
 * time, a request during a check runs it once more after, from the back of the line (checks
 * slower than the interval cannot keep their slots while other clusters wait), and at most
 * `concurrency` checks at once: with thousands of clusters, every interval must not open
 * thousands of connections at the same moment. A failed status write is retried with backoff.
 */
export class ClusterHealthController extends WiredController {
  private readonly timeoutMs: number;
  protected readonly wiring: ControllerWiring;
  private readonly events?: EventRecorder;
  private readonly endpoints: EndpointPolicy;

  constructor(
    private readonly registry: Registry,
    informers: SharedInformers,
    options: ClusterHealthOptions,
    log: ControllerLog = silentLog,
  ) {
    super();
    this.events = options.events;
    this.endpoints = options.endpoints;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    const clusters = informers.for("clusters");
    const secrets = informers.for("sharedsecrets");
    this.wiring = new ControllerWiring({
      controller: "cluster-health",
      concurrency: Math.max(1, options.concurrency ?? 16),
      resyncMs: options.intervalMs ?? 60_000,
      log,
      process: (name) => this.reconcile(name),
      informers: [clusters, secrets],
      keys: () => clusters.names(),
      subscribe: (queue) => [
        clusters.onChange((e) => {
          if (e.type !== "upsert") return;
          // Spec changes bump generation; status writes (ours) do not.
          if (!e.old || e.old.metadata.generation !== e.object.metadata.generation) queue.add(e.object.metadata.name!);
        }),
        secrets.onChange((e) => {
          for (const c of clusters.list()) {
            const cfg = specOf<ClusterSpec>(c).config ?? {};
            if (
              cfg.secretName === e.object.metadata.name &&
              (cfg.secretNamespace || DEFAULT_SECRET_NAMESPACE) === e.object.metadata.namespace
            ) {
              queue.add(c.metadata.name!);
            }
          }
        }),
      ],
    });
  }

  private async reconcile(name: string): Promise<void> {
    const store = this.registry.store("clusters");
    const cluster = await store.read(undefined, name);
    if (!cluster || cluster.metadata.deletionTimestamp) return;
    const health = await checkCluster(this.registry, cluster, this.endpoints, this.timeoutMs);
    if (!this.wiring.running) return;
    recordClusterHealth(this.events, cluster, health);
    try {
      await store.guaranteedUpdate(
        systemContext(),
        undefined,
        name,
        (obj) => {
          const next: ClusterStatus = { ...statusOf<ClusterStatus>(obj), ...health };
          if (isDeepStrictEqual(next, obj.status)) return undefined; // unchanged: no write, no event
          obj.status = next;
          return obj;
        },
        "status",
        "platform-cluster-health",
      );
    } catch (err) {
      // Deleted during the check: nothing to write. Any other failure is retried by the queue.
      if (err instanceof ApiError && err.code === 404) return;
      throw err;
    }
  }
}

/** Connects to a cluster once, where the endpoint policy allows it, and reports what happened. Never throws. */
export async function checkCluster(
  registry: Registry,
  cluster: KubeObject,
  endpoints: EndpointPolicy,
  timeoutMs: number,
): Promise<ClusterHealth> {
  let server = "";
  try {
    const client = await clusterClient(registry, cluster, endpoints);
    server = client.server;
    const version = await withDeadline(client.version.getCode(), timeoutMs, server);
    // /version is open to everyone on a real API server; listing services proves the
    // credentials may read what the platform needs to find virtual clusters.
    const namespace = specOf<ClusterSpec>(cluster).managementNamespace || DEFAULT_PROBE_NAMESPACE;
    await withDeadline(
      client.core.listNamespacedService({ namespace, labelSelector: "app=vcluster", limit: 1 }),
      timeoutMs,
      server,
    );
    return {
      phase: "Initialized",
      online: true,
      reason: "Connected",
      message: `connected to Kubernetes ${version.gitVersion} at ${server}`,
    };
  } catch (err) {
    const e = err instanceof ClusterConnectionError ? err : classifyError(err, server);
    return { phase: "Failed", online: false, reason: e.reason, message: e.message };
  }
}
