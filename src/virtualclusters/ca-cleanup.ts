import { Informer } from "../registry/informer.js";
import type { Registry } from "../registry/registry.js";
import { systemContext } from "../registry/request-context.js";
import type { VirtualClusterCaStore } from "./ca-store.js";

/**
 * Removes the kept CA of an imported virtual cluster (ca-store.ts) once no instance refers to
 * it any more: a CA key can mint client certificates for anyone in that virtual cluster, so it
 * must not outlive the last instance that needs it. Runs on the elected replica.
 *
 * When an instance goes away, its service UID is looked up among every instance in storage
 * (not the informer: a move deletes the old instance and creates the new one in one
 * transaction, and an informer between those two events would see neither). The CA is then
 * deleted only at the revision it was read at, so an import of the same virtual cluster that
 * wrote the CA meanwhile keeps it. At start, CAs without an instance (an instance deleted while
 * no replica was leading) are removed the same way.
 */
export class VirtualClusterCaCleanup {
  private informer?: Informer;
  private unsubscribe?: () => void;
  private work: Promise<void> = Promise.resolve();

  constructor(
    private readonly registry: Registry,
    private readonly cas: VirtualClusterCaStore,
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  async start(): Promise<void> {
    this.informer = new Informer(this.registry.store("virtualclusterinstances"));
    await this.informer.start();
    this.unsubscribe = this.informer.onChange((e) => {
      const uid = e.type === "delete" ? e.object.status?.serviceUID : undefined;
      if (typeof uid === "string" && uid) this.enqueue([uid]);
    });
    this.enqueue(undefined);
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.informer?.stop();
    await this.work;
  }

  /** Resolves when the removals asked for so far are done (tests). */
  settled(): Promise<void> {
    return this.work;
  }

  /** Looks at these service UIDs' CAs (undefined: at every CA kept). One pass at a time. */
  private enqueue(serviceUIDs: string[] | undefined): void {
    this.work = this.work.then(() => this.removeUnused(serviceUIDs)).catch(this.onError);
  }

  private async removeUnused(serviceUIDs: string[] | undefined): Promise<void> {
    const kept = await this.cas.list(serviceUIDs);
    if (kept.length === 0) return;
    const used = new Set<string>();
    const instances = await this.registry.store("virtualclusterinstances").list(systemContext(), undefined, {});
    for (const instance of instances.items) {
      const uid = instance.status?.serviceUID;
      if (typeof uid === "string") used.add(uid);
    }
    // Written again (a new import) or already gone since it was read: removeAt leaves it.
    for (const { id, revision } of kept) if (!used.has(id)) await this.cas.removeAt(id, revision);
  }
}
