import { storedKeyHash } from "../kinds/owned-access-key/owned-access-key.js";
import type { Informer, InformerEvent } from "../registry/informer.js";
import type { SharedInformers } from "../registry/shared-informers.js";
import { PeriodicTask } from "../support/periodic-task.js";
import type { ConsoleSessions } from "./sessions.js";

/**
 * Removes the console sessions of an access key as soon as the key is deleted. They are refused
 * from that moment anyway (every request authenticates the key again); this keeps them from
 * sitting in the store until they end. A controller: the elected replica does it while it leads.
 * Like a Kubernetes controller it does not rely on seeing every deletion: each time it starts (on
 * election) it reconciles, ending every session whose key no longer exists, so that deletions made
 * while no replica led are caught up at once.
 *
 * Deletions that come while a removal runs wait for it and then go together: one pass over the
 * sessions for a burst of deletions (a user's keys, removed with the user).
 */
export class KeySessionCleanup {
  readonly #waiting = new Set<string>();
  #reconcile = false;
  #informer?: Informer;
  #unsubscribe?: () => void;
  /** On demand only (no interval): a pass runs when there is something to do. */
  readonly #drainer: PeriodicTask;

  constructor(
    private readonly informers: Pick<SharedInformers, "for">,
    private readonly sessions: Pick<ConsoleSessions, "endSessionsOfKeys" | "accessKeyHashesInUse">,
    private readonly onError: (err: unknown) => void,
  ) {
    this.#drainer = new PeriodicTask(() => this.#drain(), { onError });
  }

  async start(): Promise<void> {
    // The replica's shared informer of access keys (the identity index's): never stopped here.
    const informer = this.informers.for("ownedaccesskeys");
    await informer.synced();
    this.#informer = informer;
    this.#unsubscribe = informer.onChange((e) => this.#changed(e));
    // In the background: a store with many sessions must not hold up the other controllers' start.
    this.#reconcile = true;
    this.#drainer.trigger();
  }

  async stop(): Promise<void> {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    this.#waiting.clear();
    this.#reconcile = false;
    await this.#drainer.stop();
  }

  /** Resolves when the removals asked for so far are done (for tests). */
  idle(): Promise<void> {
    return this.#drainer.idle();
  }

  #changed(e: InformerEvent): void {
    if (e.type !== "delete") return;
    const hash = storedKeyHash(e.object);
    if (!hash) return;
    this.#waiting.add(hash);
    this.#drainer.trigger();
  }

  async #drain(): Promise<void> {
    while ((this.#reconcile || this.#waiting.size > 0) && this.#unsubscribe) {
      try {
        if (this.#reconcile) {
          this.#reconcile = false;
          await this.#endSessionsOfMissingKeys();
          continue;
        }
        const hashes = new Set(this.#waiting);
        this.#waiting.clear();
        await this.sessions.endSessionsOfKeys(hashes);
      } catch (err) {
        // The store failed: the sessions stay refused, and the sweep removes them when they end.
        this.onError(err);
      }
    }
  }

  /** Ends the sessions of every key that no longer exists, whenever it was deleted. */
  async #endSessionsOfMissingKeys(): Promise<void> {
    const informer = this.#informer;
    if (!informer) return;
    // Sessions first, keys after: every key a session read here acts with was made before that
    // read, so once the informer has caught up with the store it holds the key unless it was
    // deleted. (Keys first would let a key made meanwhile, on another replica, look deleted.)
    const inUse = await this.sessions.accessKeyHashesInUse();
    if (inUse.size === 0) return;
    await informer.sync();
    const live = new Set(informer.list().map(storedKeyHash));
    const missing = new Set([...inUse].filter((hash) => !live.has(hash)));
    await this.sessions.endSessionsOfKeys(missing);
  }
}
