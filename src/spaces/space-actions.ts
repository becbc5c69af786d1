import type { EventRecorder } from "../events/event-recorder.js";
import type { Registry } from "../registry/registry.js";
import type { SubresourceHandler } from "../server/resource-handler.js";
import { importSpaceAction } from "./import-action.js";
import { migrateSpaceAction } from "./migrate-action.js";

/** The kept key space of the import locks, one per imported namespace UID (import-action.ts). */
const IMPORT_LOCKS = "space-import";

/**
 * Registers the import and move actions of spaces (docs/spaces.md) in the server's subresource
 * map; `events` reports each import and move (space-events.ts).
 */
export function registerSpaceActions(
  subresources: Map<string, SubresourceHandler>,
  registry: Registry,
  events?: EventRecorder,
): void {
  subresources.set("projects/importspace", importSpaceAction(registry, registry.keptKeys(IMPORT_LOCKS), events));
  subresources.set("projects/migratespaceinstance", migrateSpaceAction(registry, events));
}
