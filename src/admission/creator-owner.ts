import type { Owner } from "../api/schema/common.js";
import { type AdmissionAttributes, type AdmissionPlugin, isServerWrite } from "../registry/admission.js";
import type { UserInfo } from "../registry/request-context.js";
import { platformResource, writesTo } from "./resource-match.js";

/** The project instances that name an owner: spaces and virtual cluster instances. */
const OWNED_INSTANCES = [platformResource("spaceinstances"), platformResource("virtualclusterinstances")];

/**
 * An instance in a project created without `spec.owner` is owned by its creator, as in the
 * system this platform replaces (docs/spaces.md, docs/virtual-clusters.md, "Owner"). The owner
 * given, when there is one, is kept and checked as any (ReferenceAdmission: `get` on the user or
 * team it names); the creator as owner passes that check, as everyone may read themselves. The
 * server's own creates are left alone; an import and a move create as their caller, so an
 * instance moved without an owner is owned by whoever moved it.
 */
export class CreatorOwnerAdmission implements AdmissionPlugin {
  readonly name = "CreatorOwner";

  admit(attrs: AdmissionAttributes): undefined {
    if (attrs.operation !== "CREATE" || isServerWrite(attrs)) return;
    if (!OWNED_INSTANCES.some((gr) => writesTo(attrs, gr))) return;
    const spec = (attrs.object.spec ?? {}) as { owner?: Owner };
    if (spec.owner?.user || spec.owner?.team) return;
    const owner = creatorAsOwner(attrs.user);
    if (!owner) return;
    attrs.object.spec = { ...spec, owner };
  }
}

/**
 * Who owns what `user` creates: a user themselves, a team's key its team. Any other caller (an
 * access key for a free subject, a direct endpoint token) is neither a user nor a team, which an
 * owner names, so what it creates has no owner (the project's members and access rules decide
 * who may use it).
 */
export function creatorAsOwner(user: UserInfo): Owner | undefined {
  if (user.subjectKind === "User") return { user: user.name };
  if (user.subjectKind === "Team") return { team: user.name };
  return undefined;
}
