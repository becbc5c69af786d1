import { type KubeObject, nowTimestamp, statusOf } from "../api/object.js";
import type { VirtualClusterInstanceStatus } from "../kinds/virtual-cluster-instance/virtual-cluster-instance.js";
import type { Registry } from "../registry/registry.js";
import { systemContext } from "../registry/request-context.js";

/**
 * The writes that put an instance to sleep, wake it and record its activity
 * (docs/virtual-clusters.md, "Sleep mode"), shared by the sleep and wakeup actions and the
 * gateway. They change status.sleep and status.lastActivity only; the status controller on the
 * elected replica scales the workload to match. Each is a no-op when there is nothing to change,
 * so several replicas doing the same thing write once.
 */

const FIELD_MANAGER = "platform-sleep-mode";

/** status.sleep set (reason Requested) unless it sleeps already; undefined when the instance is gone. */
export function requestSleep(registry: Registry, namespace: string, name: string): Promise<KubeObject | undefined> {
  return updateStatus(registry, namespace, name, (status) =>
    status.sleep ? undefined : { ...status, sleep: { since: nowTimestamp(), reason: "Requested" } },
  );
}

/** status.sleep cleared, and the wake-up counted as activity (the idle time starts again). */
export function wakeUp(registry: Registry, namespace: string, name: string): Promise<KubeObject | undefined> {
  return updateStatus(registry, namespace, name, (status) => {
    if (!status.sleep) return undefined;
    const { sleep: _, ...awake } = status;
    return { ...awake, lastActivity: nowTimestamp() };
  });
}

/** status.lastActivity moved to `atMs`, unless it records a later moment already. */
export function recordActivity(
  registry: Registry,
  namespace: string,
  name: string,
  atMs: number,
): Promise<KubeObject | undefined> {
  return updateStatus(registry, namespace, name, (status) => {
    const recorded = Date.parse(status.lastActivity ?? "");
    if (!Number.isNaN(recorded) && recorded >= atMs) return undefined;
    return { ...status, lastActivity: nowTimestamp(new Date(atMs)) };
  });
}

function updateStatus(
  registry: Registry,
  namespace: string,
  name: string,
  change: (status: VirtualClusterInstanceStatus) => VirtualClusterInstanceStatus | undefined,
): Promise<KubeObject | undefined> {
  return registry.store("virtualclusterinstances").guaranteedUpdate(
    systemContext(),
    namespace,
    name,
    (obj) => {
      const next = change(statusOf<VirtualClusterInstanceStatus>(obj));
      if (!next) return undefined;
      obj.status = next;
      return obj;
    },
    "status",
    FIELD_MANAGER,
  );
}
