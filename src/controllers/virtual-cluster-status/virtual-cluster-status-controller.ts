import { type KubeObject, nowTimestamp, statusOf } from "../../api/object.js";
import type { EndpointPolicy } from "../../clusters/endpoint-policy.js";
import type { EventRecorder } from "../../events/event-recorder.js";
import { isDeployed, VIRTUAL_CLUSTER_FINALIZER } from "../../kinds/virtual-cluster-instance/template-fields.js";
import type { VirtualClusterInstanceStatus } from "../../kinds/virtual-cluster-instance/virtual-cluster-instance-status.js";
import type { Registry } from "../../registry/registry.js";
import type { SharedInformers } from "../../registry/shared-informers.js";
import { type ControllerLog, silentLog } from "../controller-log.js";
import { ControllerWiring } from "../controller-wiring.js";
import { type ObjectChange, removeFinalizer, updateUnlessGone } from "../kept-object-writes.js";
import { namespaceClaim } from "../spaces/namespace-claim.js";
import { WiredController } from "../wired-controller.js";
import { FIELD_MANAGER } from "./deploy-instance.js";
import { instanceLabels } from "./desired-instance.js";
import { deleteStep, deployStep, type InstanceCas, type LifecycleDeps } from "./instance-lifecycle.js";
import { type DeployOutcome, deletingStatus, nextStatus } from "./instance-status.js";
import { subscribeInstanceTriggers } from "./instance-triggers.js";
import type { Observation } from "./observation.js";
import { observeInstance } from "./observe-instance.js";
import { actOnIdleTime } from "./sleep-mode.js";

export interface VirtualClusterStatusOptions {
  /**
   * Where the platform may connect (`--allow-local-endpoints`, clusters/endpoint-policy.ts): a
   * cluster whose server it forbids is never called, as the gateway and the health check refuse it.
   */
  endpoints: EndpointPolicy;
  /** How often every instance is looked at again on its cluster (default one minute). */
  resyncMs?: number;
  /** How long one call to a cluster may take before it counts as unreachable (default 10 s). */
  timeoutMs?: number;
  /** Instances looked at once at most (default 8). */
  concurrency?: number;
  /** Reports changes of phase or reason on the instance (src/events). */
  events?: EventRecorder;
  /** While an instance wakes up, how often it is looked at again until it is Ready (default 2 s). */
  wakePollMs?: number;
  /**
   * The kept CAs: with them, instances made from a template are deployed and, on delete, removed
   * (instance-lifecycle.ts); without, only observed.
   */
  cas?: InstanceCas;
  /** How soon a namespace being deleted on its cluster is looked at again (default 1 s). */
  namespacePollMs?: number;
}

/**
 * Keeps every VirtualClusterInstance's status current with what runs on its cluster
 * (docs/clusters.md, "Instance status"): its Service and its workload's ready replicas
 * (observe-instance.ts), turned into phase, reason, conditions and the workload's counts by
 * instance-status.ts. Imported instances and created ones alike.
 *
 * An instance is looked at when it is created or its spec changes, when its Cluster is created,
 * deleted, changes its spec or comes back online, when a change of its template changes the
 * version it deploys (instance-triggers.ts), and every `resyncMs` (controller-wiring.ts). A cluster
 * that cannot be used is written to the status and not retried at once: thousands of instances
 * on a cluster that is down would otherwise each be retried; the resync and the cluster coming
 * back (the health check writes `online`) look again. A status write that fails is retried with backoff.
 * Writes go through the status subresource and only when something changed, so a write never
 * queues the instance again. Runs on the elected replica only (start()/stop()).
 */
export class VirtualClusterStatusController extends WiredController {
  private readonly timeoutMs: number;
  private readonly events?: EventRecorder;
  private readonly wakePollMs: number;
  private readonly namespacePollMs: number;
  private readonly cas?: InstanceCas;
  private readonly endpoints: EndpointPolicy;
  /** Instances this replica scaled back up from sleep that are not Ready yet. */
  private readonly waking = new Set<string>();
  protected readonly wiring: ControllerWiring;

  constructor(
    private readonly registry: Registry,
    private readonly informers: SharedInformers,
    options: VirtualClusterStatusOptions,
    log: ControllerLog = silentLog,
  ) {
    super();
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.events = options.events;
    this.wakePollMs = options.wakePollMs ?? 2_000;
    this.namespacePollMs = options.namespacePollMs ?? 1_000;
    this.cas = options.cas;
    this.endpoints = options.endpoints;
    const watched = {
      instances: informers.for("virtualclusterinstances"),
      clusters: informers.for("clusters"),
      templates: informers.for("virtualclustertemplates"),
    };
    this.wiring = new ControllerWiring({
      controller: "virtualcluster-status",
      concurrency: Math.max(1, options.concurrency ?? 8),
      resyncMs: options.resyncMs ?? 60_000,
      log,
      process: (key) => this.reconcile(key),
      // The templates too: a deploy must not find an instance's template missing only because
      // their informer has not synced yet; the projects, by which a moved instance knows its
      // namespace (namespace-claim.ts), likewise.
      informers: [...Object.values(watched), informers.for("projects")],
      keys: () => watched.instances.names(),
      subscribe: (queue) => subscribeInstanceTriggers(watched, queue),
    });
  }

  private async reconcile(key: string): Promise<void> {
    const [namespace, name] = splitKey(key);
    const store = this.registry.store("virtualclusterinstances");
    let instance = await store.read(namespace, name);
    if (!instance || instance.metadata.deletionTimestamp) {
      this.waking.delete(key);
      if (instance) await this.finalize(key, instance);
      return;
    }
    // Deployed before observed: the observation then sees what this deploy made.
    const lifecycle = this.lifecycle();
    const step = lifecycle && isDeployed(instance) ? await deployStep(lifecycle, instance) : {};
    if (!this.wiring.running) return;
    let observation = await observeInstance(this.registry, instance, this.endpoints, this.timeoutMs);
    if (!this.wiring.running) return;
    const idle = await actOnIdleTime(
      { registry: this.registry, events: this.events, timeoutMs: this.timeoutMs, endpoints: this.endpoints },
      instance,
      observation,
    );
    if (idle.deleted || !this.wiring.running) return;
    if (idle.instance) instance = idle.instance;
    if (idle.observation) observation = idle.observation;
    const written = await this.writeStatus(instance, observation, step.outcome);
    const status = statusOf<VirtualClusterInstanceStatus>(written ?? instance);
    // Waking up: the workload's readiness is not watched, so it is looked at until it is Ready
    // (or no longer Pending), sooner than the resync.
    if (idle.wokeUp) this.waking.add(key);
    if (status.phase !== "Pending") this.waking.delete(key);
    if (this.waking.has(key) || status.phase === "Deploying") {
      // A deploy's workload readiness is not watched either: looked at until it is Ready.
      this.wiring.addAfter(key, this.wakePollMs);
    } else if (step.waiting) {
      this.wiring.addAfter(key, this.namespacePollMs);
    } else if (idle.recheckInMs !== undefined) {
      this.wiring.addAfter(key, idle.recheckInMs);
    }
  }

  private lifecycle(): LifecycleDeps | undefined {
    if (!this.cas) return undefined;
    const templates = this.informers.for("virtualclustertemplates");
    const instances = this.informers.for("virtualclusterinstances");
    const projects = this.informers.for("projects");
    return {
      registry: this.registry,
      cas: this.cas,
      timeoutMs: this.timeoutMs,
      endpoints: this.endpoints,
      templateOf: (name) => templates.get(undefined, name),
      claimOf: (instance) =>
        namespaceClaim(
          instance,
          instanceLabels(instance),
          () => instances.list(),
          (project) => projects.get(undefined, project)?.metadata.uid,
        ),
    };
  }

  /**
   * An instance being deleted: what was deployed for it goes from its cluster first, then its
   * finalizer. A cluster that cannot be used is retried with backoff; one that is gone from the
   * platform is reported and waited for (force removal: drop the finalizer by hand).
   */
  private async finalize(key: string, instance: KubeObject): Promise<void> {
    const lifecycle = this.lifecycle();
    if (!lifecycle || !(instance.metadata.finalizers ?? []).includes(VIRTUAL_CLUSTER_FINALIZER)) return;
    const step = await deleteStep(lifecycle, instance);
    if (!this.wiring.running) return;
    if (step.done) {
      await this.dropFinalizer(instance);
      return;
    }
    await this.update(instance, "status", (obj) => {
      const before = statusOf<VirtualClusterInstanceStatus>(obj);
      const next = deletingStatus(before, step.reason, step.message);
      if (next === before) return undefined;
      obj.status = next;
      return obj;
    });
    if (step.error) throw step.error; // retried with backoff
    if (step.reason === "NamespaceTerminating") this.wiring.addAfter(key, this.namespacePollMs);
  }

  private dropFinalizer(instance: KubeObject): Promise<KubeObject | undefined> {
    return this.update(instance, "", removeFinalizer(VIRTUAL_CLUSTER_FINALIZER));
  }

  private update(instance: KubeObject, subresource: "" | "status", change: ObjectChange) {
    const store = this.registry.store("virtualclusterinstances");
    return updateUnlessGone(store, instance, { subresource, fieldManager: FIELD_MANAGER }, change);
  }

  /** Writes the status the observation means; the instance as written, or undefined when unchanged or gone. */
  private async writeStatus(
    instance: KubeObject,
    observation: Observation,
    deploy?: DeployOutcome,
  ): Promise<KubeObject | undefined> {
    let before: VirtualClusterInstanceStatus = {};
    const store = this.registry.store("virtualclusterinstances");
    const written = await updateUnlessGone(
      store,
      instance,
      { subresource: "status", fieldManager: "platform-virtual-cluster-status" },
      (obj) => {
        before = statusOf<VirtualClusterInstanceStatus>(obj);
        const next = nextStatus(before, observation, nowTimestamp(), deploy);
        if (next === before) return undefined; // unchanged: no write, no event
        obj.status = next;
        return obj;
      },
    );
    const after = written ? statusOf<VirtualClusterInstanceStatus>(written) : before;
    if (written && (after.phase !== before.phase || after.reason !== before.reason)) {
      this.events?.record(
        written,
        after.phase === "Failed" ? "Warning" : "Normal",
        after.reason ?? "",
        after.message ?? "",
      );
    }
    return written;
  }
}

function splitKey(key: string): [string, string] {
  const slash = key.indexOf("/");
  return [key.slice(0, slash), key.slice(slash + 1)];
}
