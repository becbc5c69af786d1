import { createHash } from "node:crypto";
import { hostname } from "node:os";
import { ApiError } from "../api/errors.js";
import type { KubeObject } from "../api/object.js";
import { systemContext } from "../registry/request-context.js";
import type { Store } from "../registry/store.js";

export type EventType = "Normal" | "Warning";

/**
 * What controllers and actions hold to report a notable happening on one of the platform's
 * objects (docs/events.md lists them). Never throws and never waits: an event that cannot be
 * written is reported to `onError` and dropped.
 */
export interface EventRecorder {
  record(obj: KubeObject, type: EventType, reason: string, message: string): void;
}

/** Cluster-scoped objects' events live here, as kube-apiserver keeps them. */
export const CLUSTER_SCOPED_EVENT_NAMESPACE = "default";
const MAX_MESSAGE = 1024;
const FIELD_MANAGER = "platform-events";

/**
 * Writes core v1 Events. The same happening again on the same object (same reason and message)
 * updates one Event, counting (`count`, `lastTimestamp`), as client-go's recorder does, so a
 * flapping cluster makes one Event, not one per check.
 */
export class StoreEventRecorder implements EventRecorder {
  /** Writes per event name run one after the other: a count is never lost to a race. */
  private readonly pending = new Map<string, Promise<void>>();
  private readonly instance = hostname();

  constructor(
    private readonly store: Store,
    private readonly onError: (err: unknown) => void,
    private readonly now: () => Date = () => new Date(),
  ) {}

  record(obj: KubeObject, type: EventType, reason: string, message: string): void {
    const event = this.eventOf(obj, type, reason, message.slice(0, MAX_MESSAGE));
    const name = event.metadata.name!;
    const previous = this.pending.get(name) ?? Promise.resolve();
    const next = previous.then(() => this.write(event)).catch(this.onError);
    this.pending.set(name, next);
    void next.finally(() => {
      if (this.pending.get(name) === next) this.pending.delete(name);
    });
  }

  /** Resolves once every event recorded so far is written (tests, shutdown). */
  async flush(): Promise<void> {
    await Promise.all([...this.pending.values()]);
  }

  private async write(event: KubeObject): Promise<void> {
    const { namespace, name } = event.metadata;
    const now = String(event.lastTimestamp);
    const bump = (old: KubeObject): KubeObject => ({
      ...old,
      count: Number(old.count ?? 1) + 1,
      lastTimestamp: now,
      reportingInstance: this.instance,
    });
    if (await this.store.guaranteedUpdate(systemContext(), namespace, name!, bump, "", FIELD_MANAGER)) return;
    try {
      await this.store.create(systemContext(), namespace, event, {
        dryRun: false,
        fieldManager: FIELD_MANAGER,
        fieldValidation: "Strict",
      });
    } catch (err) {
      // Written meanwhile by another replica: count this one on it.
      if (!(err instanceof ApiError && err.code === 409)) throw err;
      await this.store.guaranteedUpdate(systemContext(), namespace, name!, bump, "", FIELD_MANAGER);
    }
  }

  private eventOf(obj: KubeObject, type: EventType, reason: string, message: string): KubeObject {
    const { name = "", namespace, uid } = obj.metadata;
    const id = createHash("sha256")
      .update(`${uid ?? name}\n${type}\n${reason}\n${message}`)
      .digest("hex")
      .slice(0, 16);
    const now = this.now().toISOString();
    return {
      apiVersion: "v1",
      kind: "Event",
      // `<object>.<hash>`: one Event per object and happening; names stay within 253 characters.
      metadata: { name: `${name.slice(0, 200)}.${id}`, namespace: namespace || CLUSTER_SCOPED_EVENT_NAMESPACE },
      involvedObject: {
        apiVersion: obj.apiVersion,
        kind: obj.kind,
        name,
        ...(namespace ? { namespace } : {}),
        ...(uid ? { uid } : {}),
        ...(obj.metadata.resourceVersion ? { resourceVersion: obj.metadata.resourceVersion } : {}),
      },
      reason,
      message,
      type,
      count: 1,
      firstTimestamp: now.replace(/\.\d+Z$/, "Z"),
      lastTimestamp: now.replace(/\.\d+Z$/, "Z"),
      source: { component: "platform", host: this.instance },
      reportingComponent: "platform",
      reportingInstance: this.instance,
    };
  }
}
