import { type KubeObject, specOf } from "../api/object.js";
import { keyExpiry, type OwnedAccessKeySpec } from "../kinds/owned-access-key/owned-access-key.js";
import type { Informer } from "../registry/informer.js";
import type { SharedInformers } from "../registry/shared-informers.js";
import type { EventRecorder } from "./event-recorder.js";

export interface AccessKeyEventsOptions {
  /** How often expiries are looked for (default 30 s): an Expired event comes at most this late. */
  intervalMs?: number;
  now?: () => number;
}

/**
 * Events on access keys that stop authenticating: `Disabled` when a key is disabled, `Expired`
 * when its lifetime ends. A controller: one replica reports, from the moment it starts.
 */
export class AccessKeyEvents {
  private informer?: Informer;
  private unsubscribe?: () => void;
  private timer?: NodeJS.Timeout;
  /** Expiries up to here are reported. */
  private checkedUntil = 0;
  private readonly now: () => number;

  constructor(
    private readonly informers: Pick<SharedInformers, "for">,
    private readonly events: EventRecorder,
    private readonly options: AccessKeyEventsOptions = {},
  ) {
    this.now = options.now ?? Date.now;
  }

  async start(): Promise<void> {
    // The replica's shared informer of access keys (the identity index's): never stopped here.
    this.informer = this.informers.for("ownedaccesskeys");
    await this.informer.synced();
    this.checkedUntil = this.now();
    this.unsubscribe = this.informer.onChange((e) => {
      if (e.type === "upsert" && e.old && isDisabled(e.object) && !isDisabled(e.old)) {
        this.events.record(
          e.object,
          "Warning",
          "Disabled",
          `access key ${describe(e.object)} was disabled: it no longer authenticates`,
        );
      }
    });
    this.timer = setInterval(() => this.checkExpiries(), this.options.intervalMs ?? 30_000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.unsubscribe?.();
  }

  /** Reports the keys that expired since the last look. */
  checkExpiries(): void {
    const now = this.now();
    for (const key of this.informer?.list() ?? []) {
      const expiry = keyExpiry(key);
      const at = expiry ? Date.parse(expiry) : Number.NaN;
      if (at > this.checkedUntil && at <= now) {
        this.events.record(
          key,
          "Warning",
          "Expired",
          `access key ${describe(key)} expired at ${expiry}: it no longer authenticates`,
        );
      }
    }
    this.checkedUntil = now;
  }
}

const isDisabled = (key: KubeObject) => specOf<OwnedAccessKeySpec>(key).disabled === true;

function describe(key: KubeObject): string {
  const s = specOf<OwnedAccessKeySpec>(key);
  const owner = s.user ? `user ${s.user}` : s.team ? `team ${s.team}` : `subject ${s.subject ?? ""}`;
  return `${key.metadata.name} of ${owner}`;
}
