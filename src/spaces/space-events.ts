import { type KubeObject, specOf } from "../api/object.js";
import type { EventRecorder } from "../events/event-recorder.js";
import { projectOfNamespace } from "../kinds/project/project.js";
import { type SpaceInstanceSpec, spaceNamespaceOf } from "../kinds/space-instance/space-instance.js";

/**
 * The Events of the space actions (docs/events.md). An Event is seen by whoever may get the
 * space it is about, so a move's two Events each name their own project only: a reader of one
 * side may not see the other project.
 */

/** A namespace on a cluster became the space `space` (importspace). */
export function recordSpaceImported(
  events: EventRecorder | undefined,
  space: KubeObject,
  source: { cluster: string; name: string },
): void {
  events?.record(
    space,
    "Normal",
    "Imported",
    `imported from the existing namespace "${source.name}" on cluster "${source.cluster}"`,
  );
}

/**
 * A space moved to another project (migratespaceinstance): one Event on the instance that left,
 * one on the instance that arrived; the namespace on the cluster is the same.
 */
export function recordSpaceMoved(events: EventRecorder | undefined, left: KubeObject, arrived: KubeObject): void {
  const where = `its namespace "${spaceNamespaceOf(arrived)}" on cluster "${specOf<SpaceInstanceSpec>(arrived).clusterRef?.cluster ?? ""}" goes with it, as it is`;
  const from = projectOfNamespace(left.metadata.namespace) ?? "";
  const to = projectOfNamespace(arrived.metadata.namespace) ?? "";
  events?.record(left, "Normal", "Moved", `moved out of project "${from}" into another project; ${where}`);
  events?.record(arrived, "Normal", "Moved", `moved into project "${to}" from another project; ${where}`);
}
