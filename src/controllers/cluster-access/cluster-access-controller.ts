import { isDeepStrictEqual } from "node:util";
import { ApiError } from "../../api/errors.js";
import { type KubeObject, specOf, statusOf } from "../../api/object.js";
import { classifyError, clusterClient } from "../../clusters/cluster-connection.js";
import { isUnreachable } from "../../clusters/cluster-objects.js";
import type { EndpointPolicy } from "../../clusters/endpoint-policy.js";
import { ClusterObjectClient } from "../../clusters/object-client.js";
import type { ClusterGrantStatus, ClusterStatus } from "../../kinds/cluster/cluster.js";
import { ALL_CLUSTERS } from "../../kinds/cluster-selection.js";
import type { InformerEvent } from "../../registry/informer.js";
import type { Registry } from "../../registry/registry.js";
import { systemContext } from "../../registry/request-context.js";
import type { SharedInformers } from "../../registry/shared-informers.js";
import { clusterChangeMatters } from "../cluster-changes.js";
import { type ControllerLog, silentLog } from "../controller-log.js";
import { ControllerWiring } from "../controller-wiring.js";
import { WiredController } from "../wired-controller.js";
import { grantEntry, syncClusterRbac } from "./cluster-rbac-sync.js";
import { desiredRbac } from "./desired-rbac.js";

export interface ClusterAccessOptions {
  /**
   * Where the platform may connect (`--allow-local-endpoints`, clusters/endpoint-policy.ts): a
   * cluster whose server it forbids is never called, as the gateway and the health check refuse it.
   */
  endpoints: EndpointPolicy;
  /** How often every cluster's grants are applied again, repairing drift (default one minute). */
  resyncMs?: number;
  /** How long one call to a cluster may take (default 10 s). */
  timeoutMs?: number;
  /** Clusters synced at once at most (default 4). */
  concurrency?: number;
}

/**
 * Keeps the RBAC that ClusterRoleTemplates and ClusterAccesses describe on every connected
 * cluster (docs/cluster-access.md), one cluster per queue key: on start, when a template or a
 * grant reaching the cluster changes, when the cluster's spec changes or it comes back online,
 * and every `resyncMs`, which repairs what was changed or deleted by hand on the cluster. What
 * was applied and what failed goes to Cluster.status.grants; an unreachable cluster is retried
 * with the work queue's backoff. Runs on the elected replica only (start()/stop()).
 */
export class ClusterAccessController extends WiredController {
  private readonly timeoutMs: number;
  protected readonly wiring: ControllerWiring;
  private readonly endpoints: EndpointPolicy;

  constructor(
    private readonly registry: Registry,
    private readonly informers: SharedInformers,
    options: ClusterAccessOptions,
    log: ControllerLog = silentLog,
  ) {
    super();
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.endpoints = options.endpoints;
    const clusters = informers.for("clusters");
    const templates = informers.for("clusterroletemplates");
    const accesses = informers.for("clusteraccesses");
    this.wiring = new ControllerWiring({
      controller: "cluster-access",
      concurrency: Math.max(1, options.concurrency ?? 4),
      resyncMs: options.resyncMs ?? 60_000,
      log,
      process: (name) => this.reconcile(name),
      informers: [clusters, templates, accesses],
      keys: () => clusters.names(),
      subscribe: (queue) => {
        const syncReached = (e: InformerEvent) => {
          const reached = new Set([...clustersOf(e.old), ...clustersOf(e.object)]);
          const names = reached.has(ALL_CLUSTERS) ? clusters.names() : reached;
          for (const name of names) queue.add(name);
        };
        return [
          clusters.onChange((e) => {
            // A deleted cluster has nothing left to grant on.
            if (e.type === "upsert" && clusterChangeMatters(e)) queue.add(e.object.metadata.name ?? "");
          }),
          templates.onChange(syncReached),
          accesses.onChange(syncReached),
        ];
      },
    });
  }

  private async reconcile(name: string): Promise<void> {
    const cluster = await this.registry.store("clusters").read(undefined, name);
    if (!cluster || cluster.metadata.deletionTimestamp) return;
    const desired = desiredRbac(
      name,
      this.informers.for("clusterroletemplates").list(),
      this.informers.for("clusteraccesses").list(),
    );
    // A cluster that never held a grant has nothing to remove: it is not connected to.
    if (desired.length === 0 && (statusOf<ClusterStatus>(cluster).grants ?? []).length === 0) return;
    let result: Awaited<ReturnType<typeof syncClusterRbac>>;
    // The cluster's server once its client is made, for the messages of what it answers (the
    // Cluster's status, which its readers see with the address, as the health check's).
    let called = "";
    try {
      const client = await clusterClient(this.registry, cluster, this.endpoints);
      called = client.server;
      const api = ClusterObjectClient.for(client.kubeConfig);
      result = await syncClusterRbac(api, client.server, desired, this.timeoutMs);
    } catch (err) {
      // Before a client, the error is clusterClient's, which says what it could not read.
      const e = classifyError(err, called);
      const grants = desired.map((d) => ({ ...grantEntry(d), applied: false, reason: e.reason, message: e.message }));
      // A config secret missing or invalid waits for its fix (a spec change) or the next resync;
      // an unreachable cluster is retried with backoff.
      result = { grants, unreachable: isUnreachable(e) ? e : undefined, failedCalls: 0 };
    }
    if (!this.wiring.running) return;
    await this.writeStatus(name, result.grants);
    // Thrown after the status shows it: the queue retries the cluster with backoff. So too when
    // the cluster refused a call (a right the platform lacks, a namespace not there yet): it may
    // be granted or created at any moment, and the status says what failed until then.
    if (result.unreachable) throw result.unreachable;
    if (result.failedCalls > 0) throw new CallsFailed(name, result.failedCalls);
  }

  private async writeStatus(name: string, grants: ClusterGrantStatus[]): Promise<void> {
    try {
      await this.registry.store("clusters").guaranteedUpdate(
        systemContext(),
        undefined,
        name,
        (obj) => {
          const next: ClusterStatus = { ...statusOf<ClusterStatus>(obj), grants };
          if (grants.length === 0) delete next.grants;
          if (isDeepStrictEqual(next, obj.status ?? {})) return undefined;
          obj.status = next;
          return obj;
        },
        "status",
        "platform-cluster-access",
      );
    } catch (err) {
      if (err instanceof ApiError && err.code === 404) return; // the cluster went meanwhile
      throw err;
    }
  }
}

/** A pass whose status shows failed calls: retried (the log line says only how many; the status says which). */
class CallsFailed extends Error {
  constructor(cluster: string, count: number) {
    super(`${count} call(s) to cluster "${cluster}" failed; its status.grants says which`);
  }
}

function clustersOf(obj: KubeObject | undefined): string[] {
  return obj ? (specOf<{ clusters: string[] }>(obj).clusters ?? []) : [];
}
