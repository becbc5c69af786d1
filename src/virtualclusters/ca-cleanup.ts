import { type KubeObject, statusOf } from "../api/object.js";
import { type ControllerLog, silentLog } from "../controllers/controller-log.js";
import { ControllerWiring } from "../controllers/controller-wiring.js";
import { WiredController } from "../controllers/wired-controller.js";
import type { VirtualClusterInstanceStatus } from "../kinds/virtual-cluster-instance/virtual-cluster-instance.js";
import type { Registry } from "../registry/registry.js";
import { systemContext } from "../registry/request-context.js";
import type { SharedInformers } from "../registry/shared-informers.js";
import type { VirtualClusterCaStore } from "./ca-store.js";

/** The queue key that stands for every kept CA (a service UID is never `*`). */
const EVERY_CA = "*";

/**
 * Removes a kept CA (ca-store.ts: imported, or made for an instance the platform created) once
 * no instance refers to it any more: a CA key can mint client certificates for anyone in that virtual cluster, so it
 * must not outlive the last instance that needs it. Runs on the elected replica.
 *
 * When an instance goes away, its service UID is queued and looked up among every instance in
 * storage (not the informer: a move deletes the old instance and creates the new one in one
 * transaction, and an informer between those two events would see neither). The CA is then
 * deleted only at the revision it was read at, so an import of the same virtual cluster that
 * wrote the CA meanwhile keeps it. At start, CAs without an instance (an instance deleted while
 * no replica was leading) are removed the same way. One key at a time; a failure is retried
 * with backoff (work-queue.ts).
 */
export class VirtualClusterCaCleanup extends WiredController {
  protected readonly wiring: ControllerWiring;

  constructor(
    private readonly registry: Registry,
    informers: SharedInformers,
    private readonly cas: VirtualClusterCaStore,
    log: ControllerLog = silentLog,
  ) {
    super();
    const instances = informers.for("virtualclusterinstances");
    this.wiring = new ControllerWiring({
      controller: "virtualcluster-ca-cleanup",
      log,
      process: (uid) => this.removeUnused(uid === EVERY_CA ? undefined : [uid]),
      informers: [instances],
      subscribe: (queue) => [
        instances.onChange((e) => {
          if (e.type !== "delete") return;
          for (const id of keptIdsOf(e.object)) if (id !== EVERY_CA) queue.add(id);
        }),
      ],
      keys: () => [EVERY_CA],
    });
  }

  /** Looks at these service UIDs' CAs (undefined: at every CA kept). */
  private async removeUnused(serviceUIDs: string[] | undefined): Promise<void> {
    const kept = await this.cas.list(serviceUIDs);
    if (kept.length === 0) return;
    const used = new Set<string>();
    const instances = await this.registry.store("virtualclusterinstances").list(systemContext(), undefined, {});
    for (const instance of instances.items) for (const id of keptIdsOf(instance)) used.add(id);
    // Written again (a new import) or already gone since it was read: removeAt leaves it.
    for (const { id, revision } of kept) if (!used.has(id)) await this.cas.removeAt(id, revision);
  }
}

/** The kept CA ids an instance refers to: the CA made for it, and the service UID an import keyed its CA by. */
function keptIdsOf(instance: KubeObject): string[] {
  const { caID, serviceUID } = statusOf<VirtualClusterInstanceStatus>(instance);
  return [caID, serviceUID].filter((id): id is string => typeof id === "string" && id !== "");
}
