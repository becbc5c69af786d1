import { ApiError } from "../api/errors.js";
import type { KubeObject } from "../api/object.js";
import { systemContext } from "../registry/request-context.js";
import type { Store } from "../registry/store.js";
import { PeriodicTask } from "../support/periodic-task.js";

/** kube-apiserver keeps Events one hour (--event-ttl); so does the platform. */
export const DEFAULT_EVENT_TTL_MS = 60 * 60_000;

export interface EventCleanupOptions {
  /** How long an Event lives after it last happened (default one hour). */
  ttlMs?: number;
  /** How often expired Events are looked for (default one minute). */
  intervalMs?: number;
  now?: () => Date;
  onError?: (err: unknown) => void;
}

/**
 * Deletes Events that last happened more than the TTL ago. A controller (one replica runs it):
 * a sweep per interval over every Event, which the recorder keeps few (one per object and happening).
 */
export class EventCleanup {
  private readonly task: PeriodicTask<number>;
  private readonly ttlMs: number;
  private readonly now: () => Date;

  constructor(
    private readonly store: Store,
    options: EventCleanupOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? DEFAULT_EVENT_TTL_MS;
    this.now = options.now ?? (() => new Date());
    this.task = new PeriodicTask(() => this.deleteExpired(), {
      intervalMs: options.intervalMs ?? 60_000,
      onError: options.onError ?? (() => {}),
    });
  }

  async start(): Promise<void> {
    this.task.start();
  }

  async stop(): Promise<void> {
    await this.task.stop();
  }

  /** Deletes the expired Events now (or joins the sweep under way); returns how many went. */
  sweep(): Promise<number> {
    return this.task.run();
  }

  private async deleteExpired(): Promise<number> {
    const cutoff = this.now().getTime() - this.ttlMs;
    let removed = 0;
    let continueToken: string | undefined;
    do {
      const page = await this.store.list(systemContext(), undefined, { limit: 500, continue: continueToken });
      for (const event of page.items) {
        if (lastHappened(event) >= cutoff) continue;
        try {
          await this.store.delete(systemContext(), event.metadata.namespace, event.metadata.name!, {
            dryRun: false,
            preconditions: { resourceVersion: event.metadata.resourceVersion },
          });
          removed++;
        } catch (err) {
          // Gone already, or it happened again meanwhile (a newer version): keep it.
          if (!(err instanceof ApiError && (err.code === 404 || err.code === 409))) throw err;
        }
      }
      continueToken = page.metadata.continue || undefined;
    } while (continueToken);
    return removed;
  }
}

function lastHappened(event: KubeObject): number {
  const t = Date.parse(String(event.lastTimestamp ?? event.eventTime ?? event.metadata.creationTimestamp ?? ""));
  return Number.isNaN(t) ? 0 : t;
}
