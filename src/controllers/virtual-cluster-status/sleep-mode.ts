import { ApiError } from "../../api/errors.js";
import { type KubeObject, nowTimestamp, statusOf } from "../../api/object.js";
import type { EndpointPolicy } from "../../clusters/endpoint-policy.js";
import type { EventRecorder } from "../../events/event-recorder.js";
import { idleVerdict } from "../../kinds/virtual-cluster-instance/idle-deadlines.js";
import type { VirtualClusterInstanceStatus } from "../../kinds/virtual-cluster-instance/virtual-cluster-instance-status.js";
import type { Registry } from "../../registry/registry.js";
import { systemContext } from "../../registry/request-context.js";
import type { Observation } from "./observation.js";
import { observeInstance } from "./observe-instance.js";
import { scaleForSleep } from "./sleep-scaling.js";

/** What acting on an instance's idle time and sleep state did, for the status controller. */
export interface IdleOutcome {
  /** spec.deleteAfter passed: the instance was deleted. */
  readonly deleted?: boolean;
  /** The instance as written, when the idle time put it to sleep. */
  readonly instance?: KubeObject;
  /** What the cluster shows after scaling, when the workload was scaled. */
  readonly observation?: Observation;
  /** The workload was scaled back up from sleep. */
  readonly wokeUp?: boolean;
  /** When the next idle deadline falls. */
  readonly recheckInMs?: number;
}

export interface SleepModeDeps {
  readonly registry: Registry;
  readonly events?: EventRecorder;
  readonly timeoutMs: number;
  /** Where the platform may connect: a cluster the policy forbids is never called. */
  readonly endpoints: EndpointPolicy;
}

/**
 * Sleep mode's part of a reconcile (docs/virtual-clusters.md, "Sleep mode"): deletes an instance
 * idle for spec.deleteAfter, marks one idle for spec.sleepAfter asleep (status.sleep), and makes
 * the workload match: scaled to zero while status.sleep is set, back to its replicas once it is
 * cleared (the wakeup action, a request through the gateway). Scaling needs the workload found;
 * a cluster that cannot be used now is left for the next look.
 */
export async function actOnIdleTime(
  deps: SleepModeDeps,
  instance: KubeObject,
  observation: Observation,
): Promise<IdleOutcome> {
  const verdict = idleVerdict(instance, Date.now());
  if (verdict.action === "delete") {
    await deleteIdle(deps, instance, verdict.idleSeconds);
    return { deleted: true };
  }
  const recheckInMs = verdict.action === "none" ? verdict.recheckInMs : undefined;
  if (observation.found !== "Workload") return { recheckInMs };
  let current = instance;
  if (verdict.action === "sleep") {
    const marked = await markAsleep(deps.registry, instance);
    if (!marked) return {};
    current = marked;
  }
  const asleep = statusOf<VirtualClusterInstanceStatus>(current).sleep !== undefined;
  const { workload, where, sleepingReplicas } = observation;
  let change: Parameters<typeof scaleForSleep>[5] | undefined;
  if (asleep && workload.replicas > 0) change = { asleep: true };
  else if (!asleep && sleepingReplicas !== undefined) change = { asleep: false, replicas: sleepingReplicas };
  if (!change) return { instance: current, recheckInMs };
  const cluster = await deps.registry.store("clusters").read(undefined, where.cluster);
  if (!cluster) return { instance: current, recheckInMs };
  await scaleForSleep(deps.registry, cluster, deps.endpoints, where, workload, change, deps.timeoutMs);
  return {
    instance: current,
    observation: await observeInstance(deps.registry, current, deps.endpoints, deps.timeoutMs),
    wokeUp: !change.asleep,
    recheckInMs,
  };
}

/** status.sleep set (reason Idle) unless it is set already; undefined when the instance is gone. */
async function markAsleep(registry: Registry, instance: KubeObject): Promise<KubeObject | undefined> {
  try {
    return await registry.store("virtualclusterinstances").guaranteedUpdate(
      systemContext(),
      instance.metadata.namespace,
      instance.metadata.name!,
      (obj) => {
        const status = statusOf<VirtualClusterInstanceStatus>(obj);
        if (status.sleep) return undefined;
        obj.status = { ...status, sleep: { since: nowTimestamp(), reason: "Idle" } };
        return obj;
      },
      "status",
      "platform-virtual-cluster-status",
    );
  } catch (err) {
    if (err instanceof ApiError && err.code === 404) return undefined;
    throw err;
  }
}

async function deleteIdle(deps: SleepModeDeps, instance: KubeObject, idleSeconds: number): Promise<void> {
  try {
    await deps.registry
      .store("virtualclusterinstances")
      .delete(systemContext(), instance.metadata.namespace, instance.metadata.name!, {
        dryRun: false,
        // Only the instance that was judged idle, never one made again under its name meanwhile.
        preconditions: { uid: instance.metadata.uid },
      });
  } catch (err) {
    if (err instanceof ApiError && (err.code === 404 || err.code === 409)) return;
    throw err;
  }
  deps.events?.record(
    instance,
    "Normal",
    "IdleDeleted",
    `deleted after ${idleSeconds} s without a request through the gateway (spec.deleteAfter)`,
  );
}
