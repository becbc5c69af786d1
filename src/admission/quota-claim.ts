import type { Owner } from "../api/schema/common.js";
import { ownerOf, type QuotaName, quotasCounting } from "../kinds/project/project-quotas.js";
import type { AdmissionAttributes } from "../registry/admission.js";

/**
 * The quotas a write makes an instance count against that it did not count against before:
 * project-wide, and for the instance's owner (docs/spaces.md#quotas). A create claims every quota
 * the instance counts against; an update claims what it adds: waking a sleeping virtual cluster
 * (clearing status.sleep) adds the running quota, and a new spec.owner counts the instance
 * against the new owner's quotas in full. Undefined when the write claims nothing, which is most
 * updates (the status controller's among them), so that they cost no read.
 */
export interface QuotaClaim {
  project: QuotaName[];
  owner: QuotaName[];
}

export function quotaClaim(attrs: AdmissionAttributes, resource: string): QuotaClaim | undefined {
  const after = quotasCounting(resource, attrs.object);
  if (attrs.operation === "CREATE") return after.length ? { project: after, owner: after } : undefined;
  if (attrs.operation !== "UPDATE" || !attrs.oldObject) return undefined;
  const before = quotasCounting(resource, attrs.oldObject);
  const added = after.filter((name) => !before.includes(name));
  const newOwner = ownerKey(ownerOf(attrs.object)) !== ownerKey(ownerOf(attrs.oldObject));
  const claim = { project: added, owner: newOwner ? after : added };
  return claim.project.length || claim.owner.length ? claim : undefined;
}

/** Whether an update takes away the instance's owner (which would take it out of every owner quota). */
export function removesOwner(attrs: AdmissionAttributes): boolean {
  if (attrs.operation !== "UPDATE" || !attrs.oldObject) return false;
  return ownerKey(ownerOf(attrs.oldObject)) !== "" && ownerKey(ownerOf(attrs.object)) === "";
}

/** Whom an instance counts against for owner quotas: its user, else its team (as refuseOverQuota reads it). */
function ownerKey(owner: Owner | undefined): string {
  if (owner?.user) return `user:${owner.user}`;
  if (owner?.team) return `team:${owner.team}`;
  return "";
}
