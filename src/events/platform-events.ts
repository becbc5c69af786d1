import type { SharedInformers } from "../registry/shared-informers.js";
import type { Store } from "../registry/store.js";
import { AccessKeyEvents } from "./access-key-events.js";
import { EventCleanup, type EventCleanupOptions } from "./event-cleanup.js";
import { StoreEventRecorder } from "./event-recorder.js";

/** The parts of the platform's Events the composition root wires in (docs/events.md). */
export interface PlatformEvents {
  store: Store;
  recorder: StoreEventRecorder;
  /** Controllers: expired Events go, access keys that stop working are reported. */
  cleanup: EventCleanup;
  accessKeys: AccessKeyEvents;
}

/**
 * What writes and expires Events, over the `events` store of the core group's registry (the
 * composition root builds it; the generic handler serves it under `/api/v1`).
 */
export function createPlatformEvents(
  store: Store,
  /** The platform's informers (access keys, for AccessKeyEvents). */
  informers: Pick<SharedInformers, "for">,
  onError: (err: unknown) => void,
  cleanup: Pick<EventCleanupOptions, "ttlMs" | "intervalMs"> = {},
): PlatformEvents {
  const recorder = new StoreEventRecorder(store, onError);
  return {
    store,
    recorder,
    cleanup: new EventCleanup(store, { ...cleanup, onError }),
    accessKeys: new AccessKeyEvents(informers, recorder),
  };
}
