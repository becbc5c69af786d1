import { storedKeyHash } from "../kinds/owned-access-key/owned-access-key.js";
import type { InformerEvent } from "../registry/informer.js";
import type { SharedInformers } from "../registry/shared-informers.js";
import type { ConsoleSessions } from "./sessions.js";

/**
 * Removes the console sessions of an access key as soon as the key is deleted. They are refused
 * from that moment anyway (every request authenticates the key again); this keeps them from
 * sitting in the store until they end. A controller: the elected replica does it, from the moment
 * it starts. A deletion made while no replica leads is not seen here: those sessions stay refused
 * and the sweep removes them when they end (an hour unused at most).
 *
 * Deletions that come while a removal runs wait for it and then go together: one pass over the
 * sessions for a burst of deletions (a user's keys, removed with the user).
 */
export class KeySessionCleanup {
  readonly #waiting = new Set<string>();
  #running?: Promise<void>;
  #unsubscribe?: () => void;

  constructor(
    private readonly informers: Pick<SharedInformers, "for">,
    private readonly sessions: Pick<ConsoleSessions, "endSessionsOfKeys">,
    private readonly onError: (err: unknown) => void,
  ) {}

  async start(): Promise<void> {
    // The replica's shared informer of access keys (the identity index's): never stopped here.
    const informer = this.informers.for("ownedaccesskeys");
    await informer.synced();
    this.#unsubscribe = informer.onChange((e) => this.#changed(e));
  }

  async stop(): Promise<void> {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    this.#waiting.clear();
    await this.#running;
  }

  /** Resolves when the removals asked for so far are done (for tests). */
  async idle(): Promise<void> {
    while (this.#running) await this.#running;
  }

  #changed(e: InformerEvent): void {
    if (e.type !== "delete") return;
    const hash = storedKeyHash(e.object);
    if (!hash) return;
    this.#waiting.add(hash);
    this.#running ??= this.#drain().finally(() => {
      this.#running = undefined;
    });
  }

  async #drain(): Promise<void> {
    while (this.#waiting.size > 0 && this.#unsubscribe) {
      const hashes = new Set(this.#waiting);
      this.#waiting.clear();
      try {
        await this.sessions.endSessionsOfKeys(hashes);
      } catch (err) {
        // The store failed: the sessions stay refused, and the sweep removes them when they end.
        this.onError(err);
      }
    }
  }
}
