import { Informer, type InformerOptions } from "./informer.js";
import type { Registry } from "./registry.js";
import type { OnUndecodable } from "./undecodable.js";

/**
 * One informer per kind for the whole replica (client-go's SharedInformerFactory): the
 * composition root makes one and passes it through constructors, and every consumer (identity
 * index, authorizer, gateway, controllers) asks it for the kind it needs. Each kind is listed
 * and watched once, however many consumers it has.
 *
 * An informer starts when its first consumer awaits `synced()`, and runs until the factory
 * stops: the gateway's and the authorizer's start with the server on every replica; the
 * controllers' start when this replica is first elected, and stay current after it loses the
 * lease (the next election finds them synced). Consumers remove their own handlers on stop;
 * they never stop a shared informer.
 */
export class SharedInformers {
  private readonly informers = new Map<string, Informer>();
  private stopped = false;

  /**
   * `onUndecodable` hears of every stored value an informer skipped (informer.ts): the server logs
   * and counts them. `options.onOutage` hears once when an informer cannot list again after its
   * watch ended, and once when it could (informer-relist.ts): the server logs both.
   */
  constructor(
    private readonly registry: Pick<Registry, "store">,
    private readonly onUndecodable?: OnUndecodable,
    private readonly options?: InformerOptions,
  ) {}

  /** The informer of a resource (its plural, as `registry.store` takes it). */
  for(resource: string): Informer {
    if (this.stopped) throw new Error(`informer for ${resource} asked for after the informers stopped`);
    let informer = this.informers.get(resource);
    if (!informer) {
      informer = new Informer(this.registry.store(resource), this.onUndecodable, this.options);
      this.informers.set(resource, informer);
    }
    return informer;
  }

  /**
   * The resources with an informer, whether each has synced, and whether it has a live watch
   * (false during a relist outage; for metrics, tests and diagnostics).
   */
  resources(): Array<{ resource: string; synced: boolean; watching: boolean }> {
    return [...this.informers].map(([resource, i]) => ({ resource, synced: i.hasSynced, watching: i.watching }));
  }

  /** Stops every watch; the last step of a server's close. */
  stop(): void {
    this.stopped = true;
    for (const informer of this.informers.values()) informer.stop();
  }
}
