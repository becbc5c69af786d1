import { errors } from "../api/errors.js";
import { GROUP, type KubeObject } from "../api/object.js";
import { type Authorizer, platformAttributes } from "../authz/contract.js";
import {
  claimId,
  type HeldNamespace,
  HOLDING_RESOURCES,
  type Holder,
  heldNamespace,
} from "../kinds/held-namespaces.js";
import type { AdmissionAttributes, AdmissionPlugin } from "../registry/admission.js";
import type { KeptKeys } from "../registry/kept-keys.js";
import type { UserInfo } from "../registry/request-context.js";
import { platformPlural } from "./resource-match.js";

/** What the check reads: the spaces and instances as stored, and the guard key of each namespace. */
export interface ClaimSource {
  /** Every space and virtual cluster instance on `cluster`, as stored (held-namespaces.ts listHolders). */
  listHolders(cluster: string): Promise<{ items: Holder[]; revision: number }>;
  /** The key space of the guards, one entry per cluster and namespace (its revision is the lock). */
  guards(): Pick<KeptKeys, "get" | "createOp" | "updateOp">;
}

/**
 * How often the holders are read again when a claim of the same namespace committed between the
 * list and the guard's read (each retry follows someone else's progress; the bound keeps a
 * request from chasing a long burst forever).
 */
const READ_ATTEMPTS = 20;

/**
 * One namespace on one connected cluster belongs to one SpaceInstance or VirtualClusterInstance
 * (docs/spaces.md, "One namespace, one holder"): a write that would make a second holder of a
 * namespace (held-namespaces.ts: a create, an import or a move, which create through the same
 * pipeline, or an update that changes the cluster or the namespace) is refused with 409. The
 * message names the holder only to a caller who may `get` it.
 *
 * Who holds what is read from the stored objects each time, never kept: a delete frees the
 * namespace as soon as the holder is gone from storage, and objects stored before this rule, two
 * of them holding one namespace among them, count as they are. Racing claims are ordered by the
 * namespace's guard key, as project quotas are (project-quotas.ts): the check reads the guard
 * after the list (and reads again if a claim committed in between), then adds a write of the
 * guard at the revision it read to the write's own transaction (registry/write-guards.ts). Of two
 * writes that found the namespace free, only the first commits; the second is admitted again and
 * finds the first. This holds across replicas: the guard is a compare-and-swap in storage.
 *
 * A move (AdmissionAttributes.replacing) keeps what the moved object held: the copy it replaces,
 * deleted in the same transaction, is no other holder.
 */
export class NamespaceClaimsAdmission implements AdmissionPlugin {
  readonly name = "NamespaceClaims";

  constructor(
    private readonly authz: Pick<Authorizer, "authorize">,
    private readonly source: ClaimSource,
  ) {}

  async validate(attrs: AdmissionAttributes): Promise<void> {
    const resource = claimingResource(attrs);
    if (!resource) return;
    const held = newlyHeld(attrs, resource);
    if (!held) return;
    const id = claimId(held);
    const guards = this.source.guards();
    for (let attempt = 0; attempt < READ_ATTEMPTS; attempt++) {
      const listed = await this.source.listHolders(held.cluster);
      const guard = await guards.get(id);
      // A claim committed after the list was read: its holder may be missing from it.
      if (guard && guard.revision > listed.revision) continue;
      const holder = listed.items.find((h) => isAnotherHolder(h, held, attrs, resource));
      if (holder) throw await this.refusal(attrs, resource, held, holder);
      const note = `${resource}/${attrs.object.metadata.namespace}/${attrs.object.metadata.name}`;
      attrs.guards.push({ op: guard ? guards.updateOp(id, note, guard.revision) : guards.createOp(id, note) });
      return;
    }
    throw errors.conflict(
      { group: GROUP, resource },
      attrs.object.metadata.name ?? "",
      `other writes kept claiming namespace "${held.namespace}" on cluster "${held.cluster}"; try again`,
    );
  }

  /** 409 naming the holder when the caller may `get` it; otherwise saying only that another holds the namespace. */
  private async refusal(attrs: AdmissionAttributes, resource: string, held: HeldNamespace, holder: Holder) {
    const where = `namespace "${held.namespace}" on cluster "${held.cluster}"`;
    const who = (await this.mayGet(attrs.user, holder))
      ? describeHolder(holder)
      : "another space or virtual cluster instance";
    return errors.conflict(
      { group: GROUP, resource },
      attrs.object.metadata.name ?? "",
      `${where} already belongs to ${who}; give this one another spec.clusterRef.namespace`,
    );
  }

  private async mayGet(user: UserInfo, holder: Holder): Promise<boolean> {
    const m = holder.object.metadata;
    const decision = await this.authz.authorize(
      user,
      platformAttributes("get", holder.resource, { namespace: m.namespace, name: m.name, object: holder.object }),
    );
    return decision.allowed;
  }
}

/** `SpaceInstance p-web/dev`, and that it is being deleted (then the namespace is free once it is gone). */
function describeHolder(holder: Holder): string {
  const m = holder.object.metadata;
  const kind = holder.resource === "spaceinstances" ? "SpaceInstance" : "VirtualClusterInstance";
  const deleting = m.deletionTimestamp ? " (being deleted: the namespace is free once it is gone)" : "";
  return `${kind} ${m.namespace}/${m.name}${deleting}`;
}

/** The resource a write is checked as; undefined for a write that cannot make a holder. */
function claimingResource(attrs: AdmissionAttributes): string | undefined {
  if (attrs.subresource !== "" || (attrs.operation !== "CREATE" && attrs.operation !== "UPDATE")) return undefined;
  const resource = platformPlural(attrs);
  return resource && (HOLDING_RESOURCES as readonly string[]).includes(resource) ? resource : undefined;
}

/**
 * The namespace the write makes its object hold that it did not hold before: every create's; an
 * update's only when it changes the cluster or the namespace (any other update claims nothing,
 * and costs no read, so that objects stored before this rule stay writable as they are).
 */
function newlyHeld(attrs: AdmissionAttributes, resource: string): HeldNamespace | undefined {
  const after = heldNamespace(resource, attrs.object);
  if (!after || attrs.operation === "CREATE" || !attrs.oldObject) return after;
  const before = heldNamespace(resource, attrs.oldObject);
  return before && claimId(before) === claimId(after) ? undefined : after;
}

/**
 * Whether a stored object holds `held` besides the one written: not the object itself (an update's
 * stored copy; on create, one of the same name, which makes the create an AlreadyExists), nor
 * the copy a move deletes in the same transaction.
 */
function isAnotherHolder(h: Holder, held: HeldNamespace, attrs: AdmissionAttributes, resource: string): boolean {
  const theirs = heldNamespace(h.resource, h.object);
  if (!theirs || claimId(theirs) !== claimId(held)) return false;
  if (isSameObject(h, resource, attrs.object)) return false;
  return !(attrs.replacing && isSameObject(h, resource, attrs.replacing));
}

function isSameObject(h: Holder, resource: string, obj: KubeObject): boolean {
  return (
    h.resource === resource &&
    h.object.metadata.namespace === obj.metadata.namespace &&
    h.object.metadata.name === obj.metadata.name
  );
}
