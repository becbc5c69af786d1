import { GROUP } from "../api/object.js";
import type { AdmissionAttributes } from "../registry/admission.js";

/**
 * Which resource a write is to, as the admission plugins match it: the API group and the plural
 * together, as Kubernetes' admission plugins match a GroupResource. One chain serves every
 * group the server has (this group, the core group's Events, the review kinds), and a plural is
 * unique only within its group: a plugin for this group's `teams` must never act on a `teams` of
 * another group.
 */
export interface GroupResource {
  readonly group: string;
  readonly resource: string;
}

/** One of this group's (management.platform) resources. */
export function platformResource(resource: string): GroupResource {
  return { group: GROUP, resource };
}

/** Whether the write is to `gr` (group and plural both). */
export function writesTo(attrs: Pick<AdmissionAttributes, "resourceType">, gr: GroupResource): boolean {
  return attrs.resourceType.plural === gr.resource && attrs.resourceType.group === gr.group;
}

/**
 * The plural of a write to one of this group's resources, undefined for any other group: for the
 * plugins that compare it with several of this group's plurals.
 */
export function platformPlural(attrs: Pick<AdmissionAttributes, "resourceType">): string | undefined {
  return attrs.resourceType.group === GROUP ? attrs.resourceType.plural : undefined;
}
