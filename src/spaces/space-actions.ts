import type { EndpointPolicy } from "../clusters/endpoint-policy.js";
import type { EventRecorder } from "../events/event-recorder.js";
import { type MovableKind, moveToProjectAction } from "../instance-actions/move-to-project.js";
import { SPACE_FINALIZER } from "../kinds/space-instance/space-instance.js";
import type { Registry } from "../registry/registry.js";
import type { SubresourceHandler } from "../server/resource-handler.js";
import { importSpaceAction } from "./import-action.js";
import { recordSpaceMoved } from "./space-events.js";

/** The kept key space of the import locks, one per imported namespace UID (import-action.ts). */
const IMPORT_LOCKS = "space-import";

/**
 * POST .../projects/{target}/migratespaceinstance (docs/spaces.md, "Move"): the namespace stays
 * on the cluster with everything in it; the moved space keeps its status (the namespace's UID),
 * which is how the controller knows the namespace is its own and re-labels it.
 */
const MOVABLE_SPACES: MovableKind = {
  resource: "spaceinstances",
  kind: "SpaceInstance",
  requestKind: "ProjectMigrateSpaceInstance",
  sourceField: "sourceSpaceInstance",
  noun: "space instance",
  cleanupFinalizer: SPACE_FINALIZER,
};

/**
 * Registers the import and move actions of spaces (docs/spaces.md) in the server's subresource
 * map; `endpoints` is where an import may connect (the gateway's policy), `events` reports each
 * import and move (space-events.ts).
 */
export function registerSpaceActions(
  subresources: Map<string, SubresourceHandler>,
  registry: Registry,
  endpoints: EndpointPolicy,
  events?: EventRecorder,
): void {
  subresources.set(
    "projects/importspace",
    importSpaceAction(registry, registry.keptKeys(IMPORT_LOCKS), endpoints, events),
  );
  subresources.set(
    "projects/migratespaceinstance",
    moveToProjectAction(registry, MOVABLE_SPACES, (left, arrived) => recordSpaceMoved(events, left, arrived)),
  );
}
