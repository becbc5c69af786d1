import { isDeepStrictEqual } from "node:util";
import { INGRESS_SUFFIX_ANNOTATION, VIRTUAL_CLUSTER_ENDPOINT_ANNOTATION } from "../../api/endpoint-annotations.js";
import { ApiError } from "../../api/errors.js";
import { type KubeObject, specOf, statusOf } from "../../api/object.js";
import { ClusterConnectionError, classifyError } from "../../clusters/cluster-connection.js";
import { applyClusterObjects, isUnreachable, keyOf, refOf } from "../../clusters/cluster-objects.js";
import type { EndpointPolicy } from "../../clusters/endpoint-policy.js";
import { type ControllerLog, silentLog } from "../../controllers/controller-log.js";
import { ControllerWiring } from "../../controllers/controller-wiring.js";
import { WiredController } from "../../controllers/wired-controller.js";
import type { VirtualClusterInstanceSpec } from "../../kinds/virtual-cluster-instance/virtual-cluster-instance.js";
import type {
  InsideBinding,
  VirtualClusterInstanceStatus,
} from "../../kinds/virtual-cluster-instance/virtual-cluster-instance-status.js";
import type { InformerEvent } from "../../registry/informer.js";
import type { Registry } from "../../registry/registry.js";
import { systemContext } from "../../registry/request-context.js";
import type { SharedInformers } from "../../registry/shared-informers.js";
import type { VirtualClusterCaStore } from "../ca-store.js";
import { findVirtualClusterEndpoint } from "../reach.js";
import {
  desiredBindings,
  INSIDE_ACCESS_LABEL,
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
  RBAC_API_VERSION,
} from "./desired-bindings.js";
import { insideClient } from "./inside-client.js";

/** The field manager of the bindings inside virtual clusters, and of the status field it writes. */
export const FIELD_MANAGER = "platform-virtual-cluster-access";

export interface VirtualClusterAccessOptions {
  /** How often every instance's bindings are applied again, repairing drift (default one minute). */
  resyncMs?: number;
  /** Longest wait before an instance whose pass failed is tried again (default one minute; the first is a quarter second, doubling). */
  retryMaxMs?: number;
  /** How long one call to a virtual cluster may take (default 10 s). */
  timeoutMs?: number;
  /** Instances synced at once at most (default 4). */
  concurrency?: number;
}

/**
 * Keeps the rights inside every Ready virtual cluster (desired-bindings.ts) through its own API
 * server, reached as the gateway reaches it, with server-side apply; prunes the bindings it made
 * that are no longer wanted, and never touches others. An instance is synced when its spec,
 * annotations or phase change, and every `resyncMs` (which puts back a binding deleted by hand).
 * A pass that failed for what may heal with no change to the instance (its API server does not
 * answer, its CA cannot be read yet) is tried again with the queue's backoff; an instance without
 * an endpoint waits for one to be set.
 * An instance that is not Ready (deploying, asleep, failed) is left alone until it is. The
 * outcome goes to `status.access`, the one status field this controller writes. Runs on the
 * elected replica only (start()/stop()).
 */
export class VirtualClusterAccessController extends WiredController {
  private readonly timeoutMs: number;
  protected readonly wiring: ControllerWiring;

  constructor(
    private readonly registry: Registry,
    private readonly informers: SharedInformers,
    private readonly cas: VirtualClusterCaStore,
    private readonly endpoints: EndpointPolicy,
    options: VirtualClusterAccessOptions = {},
    log: ControllerLog = silentLog,
  ) {
    super();
    this.timeoutMs = options.timeoutMs ?? 10_000;
    const instances = informers.for("virtualclusterinstances");
    const clusters = informers.for("clusters");
    this.wiring = new ControllerWiring({
      controller: "virtualcluster-access",
      concurrency: Math.max(1, options.concurrency ?? 4),
      resyncMs: options.resyncMs ?? 60_000,
      retryMaxMs: options.retryMaxMs,
      log,
      process: (key) => this.reconcile(key),
      informers: [instances, clusters],
      keys: () => instances.list().map(instanceKey),
      subscribe: (queue) => [
        instances.onChange((e) => {
          if (e.type === "upsert" && matters(e)) queue.add(instanceKey(e.object));
        }),
        // The cluster's ingress suffix is the endpoint of its instances that have none of their own.
        clusters.onChange((e) => {
          if (e.type !== "upsert" || ingressSuffixOf(e.old) === ingressSuffixOf(e.object)) return;
          for (const instance of instances.list()) {
            const onIt = specOf<VirtualClusterInstanceSpec>(instance).clusterRef?.cluster === e.object.metadata.name;
            if (onIt && !instance.metadata.annotations?.[VIRTUAL_CLUSTER_ENDPOINT_ANNOTATION])
              queue.add(instanceKey(instance));
          }
        }),
      ],
    });
  }

  private async reconcile(key: string): Promise<void> {
    const slash = key.indexOf("/");
    const [namespace, name] = [key.slice(0, slash), key.slice(slash + 1)];
    const instance = await this.registry.store("virtualclusterinstances").read(namespace, name);
    if (!instance || instance.metadata.deletionTimestamp) return;
    // Deploying, asleep or failed: its API server may not answer; the phase change queues it again.
    if (statusOf<VirtualClusterInstanceStatus>(instance).phase !== "Ready") return;
    const desired = desiredBindings(instance);
    const entries: InsideBinding[] = desired.map((b) => ({
      name: b.metadata.name,
      clusterRole: (b.roleRef as { name: string }).name,
      subjects: (b.subjects as Array<{ kind: string; name: string }>).map((s) => `${s.kind}/${s.name}`),
      applied: false,
    }));
    // A failure that may heal with no change to the instance: retried with the queue's backoff.
    let retried: ClusterConnectionError | undefined;
    // The virtual cluster's endpoint once known, for the messages of what fails after: its
    // answers, and the platform's own steps before a call (its CA, its client certificate).
    let called = "";
    try {
      const cluster = (n: string) => this.informers.for("clusters").get(undefined, n);
      const endpoint = findVirtualClusterEndpoint(instance, cluster);
      // Not retried: setting the annotation queues the instance again, the suffix its cluster's instances.
      if ("missing" in endpoint) throw new ClusterConnectionError("EndpointNotSet", endpoint.missing);
      called = endpoint.endpoint;
      const api = await insideClient(this.registry, this.cas, instance, called, cluster, this.endpoints);
      const result = await applyClusterObjects(api, called, {
        fieldManager: FIELD_MANAGER,
        desired,
        owned: [
          {
            apiVersion: RBAC_API_VERSION,
            kind: "ClusterRoleBinding",
            labelSelector: `${MANAGED_BY_LABEL}=${MANAGED_BY_VALUE},${INSIDE_ACCESS_LABEL}`,
          },
        ],
        timeoutMs: this.timeoutMs,
      });
      const outcomes = new Map(result.outcomes.filter((o) => o.action === "apply").map((o) => [keyOf(o), o]));
      for (const [i, entry] of entries.entries()) {
        const outcome = outcomes.get(keyOf(refOf(desired[i]!)));
        if (outcome?.ok) entry.applied = true;
        else Object.assign(entry, { reason: outcome?.reason, message: outcome?.message });
      }
      for (const o of result.outcomes) {
        if (o.action === "apply" || o.ok) continue;
        entries.push({
          name: o.name,
          clusterRole: "",
          subjects: [],
          applied: false,
          reason: o.reason,
          message: o.message,
        });
      }
      retried = result.unreachable;
    } catch (err) {
      const e = classifyError(err, called);
      for (const entry of entries) Object.assign(entry, { reason: e.reason, message: e.message });
      retried = isUnreachable(e) || e.reason === "CertificateAuthorityUnavailable" ? e : undefined;
    }
    if (!this.wiring.running) return;
    await this.writeStatus(namespace, name, entries);
    // Thrown after the status shows it: the queue retries with backoff.
    if (retried) throw retried;
  }

  /** Writes `status.access` alone: the status controller's fields are read fresh and kept. */
  private async writeStatus(namespace: string, name: string, access: InsideBinding[]): Promise<void> {
    try {
      await this.registry.store("virtualclusterinstances").guaranteedUpdate(
        systemContext(),
        namespace,
        name,
        (obj) => {
          const next: VirtualClusterInstanceStatus = { ...statusOf<VirtualClusterInstanceStatus>(obj), access };
          if (access.length === 0) delete next.access;
          if (isDeepStrictEqual(next, obj.status ?? {})) return undefined;
          obj.status = next;
          return obj;
        },
        "status",
        FIELD_MANAGER,
      );
    } catch (err) {
      if (err instanceof ApiError && err.code === 404) return; // deleted meanwhile
      throw err;
    }
  }
}

/** A change that can change the bindings or whether they can be applied: spec, annotations (the endpoint), phase. */
function matters(e: InformerEvent): boolean {
  if (!e.old) return true;
  const phase = (o: KubeObject) => statusOf<VirtualClusterInstanceStatus>(o).phase;
  return (
    e.old.metadata.generation !== e.object.metadata.generation ||
    !isDeepStrictEqual(e.old.metadata.annotations, e.object.metadata.annotations) ||
    phase(e.old) !== phase(e.object)
  );
}

function ingressSuffixOf(cluster: KubeObject | undefined): string | undefined {
  return cluster?.metadata.annotations?.[INGRESS_SUFFIX_ANNOTATION];
}

function instanceKey(instance: KubeObject): string {
  return `${instance.metadata.namespace}/${instance.metadata.name}`;
}
