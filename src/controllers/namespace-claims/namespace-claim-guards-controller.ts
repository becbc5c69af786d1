import {
  claimId,
  HOLDING_RESOURCES,
  heldNamespace,
  heldNamespaceOfId,
  listHolders,
  NAMESPACE_CLAIM_GUARDS,
} from "../../kinds/held-namespaces.js";
import type { InformerEvent } from "../../registry/informer.js";
import type { Registry } from "../../registry/registry.js";
import type { SharedInformers } from "../../registry/shared-informers.js";
import { type ControllerLog, silentLog } from "../controller-log.js";
import { ControllerWiring } from "../controller-wiring.js";
import { WiredController } from "../wired-controller.js";

/**
 * Removes the guard key of a namespace no space or virtual cluster instance holds any longer
 * (src/admission/namespace-claims.ts writes one per cluster and namespace with each claim; no API
 * serves them). Admission never needs them gone, as it decides from the stored objects and uses
 * a guard only as a lock; this keeps their number that of the namespaces held. The queue's keys
 * are guard ids (`<cluster>/<namespace>`): a holder's delete, or an update that moves it to
 * another namespace, queues the one it held; at start, every guard is looked at (holders deleted
 * while no replica ran this controller).
 */
export class NamespaceClaimGuardsController extends WiredController {
  protected readonly wiring: ControllerWiring;

  constructor(
    private readonly registry: Registry,
    informers: SharedInformers,
    log: ControllerLog = silentLog,
  ) {
    super();
    this.wiring = new ControllerWiring({
      controller: "namespace-claims",
      log,
      process: (id) => this.reconcile(id),
      informers: HOLDING_RESOURCES.map((r) => informers.for(r)),
      subscribe: (queue) =>
        HOLDING_RESOURCES.map((resource) =>
          informers.for(resource).onChange((e) => {
            const released = releasedClaim(resource, e);
            if (released) queue.add(released);
          }),
        ),
      keys: async () => (await this.guards.list()).map(({ id }) => id),
    });
  }

  private get guards() {
    return this.registry.keptKeys(NAMESPACE_CLAIM_GUARDS);
  }

  /**
   * Removes the guard when no stored object holds its namespace, at the revision read before the
   * holders were listed: a claim committed since changed it, and then it stays.
   */
  private async reconcile(id: string): Promise<void> {
    const guard = await this.guards.get(id);
    if (!guard) return;
    const held = heldNamespaceOfId(id);
    if (held) {
      const { items } = await listHolders(this.registry, held.cluster);
      const holds = items.some((h) => {
        const theirs = heldNamespace(h.resource, h.object);
        return theirs !== undefined && claimId(theirs) === id;
      });
      if (holds) return;
    }
    await this.guards.removeAt(id, guard.revision);
  }
}

/** The guard id of the namespace an event shows its object leaving: deleted, or moved to another. */
function releasedClaim(resource: string, e: InformerEvent): string | undefined {
  const before = e.type === "delete" ? e.object : e.old;
  const held = before && heldNamespace(resource, before);
  if (!held) return undefined;
  const after = e.type === "delete" ? undefined : heldNamespace(resource, e.object);
  const id = claimId(held);
  return after && claimId(after) === id ? undefined : id;
}
