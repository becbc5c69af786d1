import { API_VERSION, type KubeObject } from "../api/object.js";
import { accessKeySubject } from "../kinds/owned-access-key/owned-access-key.js";
import type { AdmissionAttributes, AdmissionPlugin } from "../registry/admission.js";
import type { UserInfo } from "../registry/request-context.js";
import { platformResource, writesTo } from "./resource-match.js";

const KEYS = platformResource("ownedaccesskeys");

/** Finds the uid of an object of this group by kind and name (undefined when there is none). */
export type UidLookup = (kind: string, namespace: string | undefined, name: string) => Promise<string | undefined>;

/**
 * An access key made for a user or team belongs to it: it is created with an ownerReference
 * to its owner (controller, blocking owner deletion), so the garbage collector removes it with
 * the owner. The owner is the subject the key will have (the caller's own when the body names
 * none: the same default the kind's strategy fills in). An owner that does not exist is not
 * invented: the key is created without the reference. (Instances in a project get their owner
 * from ProjectInstancesAdmission.)
 */
export class OwnerLinksAdmission implements AdmissionPlugin {
  readonly name = "OwnerLinks";

  constructor(private readonly uidOf: UidLookup) {}

  async admit(attrs: AdmissionAttributes): Promise<undefined> {
    if (attrs.operation !== "CREATE" || !writesTo(attrs, KEYS)) return;
    const obj = attrs.object;
    const owner = accessKeyOwner(obj, attrs.user);
    if (!owner) return;
    const uid = await this.uidOf(owner.kind, undefined, owner.name);
    if (!uid) return;
    const refs = obj.metadata.ownerReferences ?? [];
    if (refs.some((r) => r.uid === uid)) return;
    const hasController = refs.some((r) => r.controller === true);
    obj.metadata.ownerReferences = [
      ...refs,
      {
        apiVersion: API_VERSION,
        kind: owner.kind,
        name: owner.name,
        uid,
        ...(hasController ? {} : { controller: true }),
        blockOwnerDeletion: true,
      },
    ];
  }
}

/** The User or Team a key will belong to, if any. */
function accessKeyOwner(obj: KubeObject, caller: UserInfo): { kind: string; name: string } | undefined {
  const s = accessKeySubject(obj.spec ?? {}, caller);
  if (s.user) return { kind: "User", name: s.user };
  if (s.team) return { kind: "Team", name: s.team };
  return undefined;
}
