import { errors } from "../api/errors.js";
import { GROUP, type KubeObject, specOf } from "../api/object.js";
import type { Owner } from "../api/schema/common.js";
import { ADMINISTER_VERB } from "../authz/authorizer.js";
import type { Authorizer } from "../authz/contract.js";
import { type AdmissionAttributes, type AdmissionPlugin, isServerWrite } from "../registry/admission.js";
import { creatorAsOwner } from "./creator-owner.js";
import { administersInstance } from "./instance-administration.js";
import { platformPlural } from "./resource-match.js";

type InstanceResource = "spaceinstances" | "virtualclusterinstances";

const isInstanceResource = (resource: string | undefined): resource is InstanceResource =>
  resource === "spaceinstances" || resource === "virtualclusterinstances";

/** What an instance's owner gets inside, named in the refusal so the caller sees why it is asked. */
const OWNER_GETS: Record<InstanceResource, string> = {
  spaceinstances: `"admin" in the space's namespace and every verb but ${ADMINISTER_VERB} on the space`,
  virtualclusterinstances: `"cluster-admin" inside the virtual cluster`,
};

/**
 * `spec.owner` of a space or virtual cluster instance gives its owner the top role inside (admin
 * in the space's namespace, cluster-admin in the virtual cluster), so naming an owner is a grant:
 * nobody gives it unless they hold it (docs/permissions.md, "Who may name an instance's owner").
 * The authorizer and the inside-role checks (space-instances.ts, instance-inside-roles.ts) say
 * who holds it: the instance's owner and who holds `administer` on it. So:
 * - a create naming the caller itself as owner (or none: creator-owner.ts) passes;
 * - a create naming anyone else needs `administer` on the instance as it will be, without the
 *   owner and the access rules it brings (they must not count for their writer);
 * - an update changing the owner at all needs the caller to own, or administer, the instance as
 *   stored: an owner may hand it over, a writer with only `update` may not take it.
 * An import or a move creates through the same pipeline as its caller, so the same rule holds.
 * The server's own writes hold every right.
 */
export class OwnerRightsAdmission implements AdmissionPlugin {
  readonly name = "OwnerRights";

  constructor(private readonly authz: Pick<Authorizer, "authorize">) {}

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (isServerWrite(attrs) || attrs.subresource !== "" || attrs.operation === "DELETE") return;
    const resource = platformPlural(attrs);
    if (!isInstanceResource(resource)) return;
    const { user, object: obj, oldObject: old } = attrs;
    const owner = ownerOf(obj);
    if (old === undefined) {
      if (owner === undefined || sameOwner(owner, creatorAsOwner(user))) return;
      const withoutOwner = { ...obj, spec: { ...obj.spec, owner: undefined } };
      if (await administersInstance(this.authz, user, resource, withoutOwner, true)) return;
    } else {
      if (sameOwner(owner, ownerOf(old))) return;
      if (await administersInstance(this.authz, user, resource, old, false)) return;
    }
    throw errors.forbidden(
      { group: GROUP, resource },
      obj.metadata.name ?? "",
      `User "${user.name}" cannot ${old ? "change" : "set"} spec.owner${owner ? ` to ${describe(owner)}` : ""}: the owner gets ${OWNER_GETS[resource]}, so only the instance's owner or who holds ${ADMINISTER_VERB} on it gives it an owner other than themselves`,
    );
  }
}

/**
 * The owner an instance names. A new owner names one (owner-validation.ts); an instance stored
 * with a user and a team both before that rule keeps them, and a change of either is a change.
 */
function ownerOf(obj: KubeObject): Owner | undefined {
  const owner = specOf<{ owner?: Owner }>(obj).owner;
  const named: Owner = {
    ...(owner?.user ? { user: owner.user } : {}),
    ...(owner?.team ? { team: owner.team } : {}),
  };
  return named.user || named.team ? named : undefined;
}

function sameOwner(a: Owner | undefined, b: Owner | undefined): boolean {
  return (a?.user ?? "") === (b?.user ?? "") && (a?.team ?? "") === (b?.team ?? "");
}

function describe(owner: Owner): string {
  const names = [owner.user && `user "${owner.user}"`, owner.team && `team "${owner.team}"`];
  return names.filter(Boolean).join(" and ");
}
