import { type KubeObject, statusOf } from "../api/object.js";
import type { ClusterStatus } from "../kinds/cluster/cluster.js";
import type { EventRecorder } from "./event-recorder.js";

/** A cluster's health check changed its readiness: `Ready` or `NotReady` with the reason. */
export function recordClusterHealth(
  events: EventRecorder | undefined,
  cluster: KubeObject,
  health: { online: boolean; reason: string; message: string },
): void {
  if (!events || statusOf<ClusterStatus>(cluster).online === health.online) return;
  const why = [health.reason, health.message].filter(Boolean).join(": ");
  if (health.online)
    events.record(
      cluster,
      "Normal",
      "Ready",
      `cluster ${cluster.metadata.name} is reachable again${why ? ` (${why})` : ""}`,
    );
  else
    events.record(
      cluster,
      "Warning",
      "NotReady",
      `cluster ${cluster.metadata.name} is not reachable: ${why || "unknown reason"}`,
    );
}

/** The garbage collector deleted an object whose owners are gone. */
export function recordGarbageCollected(events: EventRecorder | undefined, obj: KubeObject): void {
  const owners = (obj.metadata.ownerReferences ?? []).map((r) => `${r.kind} ${r.name}`).join(", ");
  events?.record(
    obj,
    "Normal",
    "GarbageCollected",
    `deleted by the garbage collector: its owner ${owners || "(none)"} is gone or being deleted`,
  );
}
