import { AdmissionChain } from "../registry/admission.js";
import { Registry } from "../registry/registry.js";
import type { SharedInformers } from "../registry/shared-informers.js";
import type { Store } from "../registry/store.js";
import type { Storage } from "../storage/interface.js";
import { AccessKeyEvents } from "./access-key-events.js";
import { EventCleanup, type EventCleanupOptions } from "./event-cleanup.js";
import { StoreEventRecorder } from "./event-recorder.js";
import { eventResource } from "./event-type.js";

/** The parts of the platform's Events the composition root wires in (docs/events.md). */
export interface PlatformEvents {
  store: Store;
  recorder: StoreEventRecorder;
  /** Controllers: expired Events go, access keys that stop working are reported. */
  cleanup: EventCleanup;
  accessKeys: AccessKeyEvents;
}

/**
 * Events are stored like every object (`/registry//events/<namespace>/<name>`, the core group
 * having no name) through a registry of their own: they are not a kind of the management group.
 */
export function createPlatformEvents(
  storage: Storage,
  /** The platform's informers (access keys, for AccessKeyEvents). */
  informers: Pick<SharedInformers, "for">,
  onError: (err: unknown) => void,
  cleanup: Pick<EventCleanupOptions, "ttlMs" | "intervalMs"> = {},
): PlatformEvents {
  const store = new Registry(storage, [eventResource], new AdmissionChain([])).store("events");
  const recorder = new StoreEventRecorder(store, onError);
  return {
    store,
    recorder,
    cleanup: new EventCleanup(store, { ...cleanup, onError }),
    accessKeys: new AccessKeyEvents(informers, recorder),
  };
}
