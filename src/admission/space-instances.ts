import { isDeepStrictEqual } from "node:util";
import { errors, fieldError } from "../api/errors.js";
import { GROUP, type KubeObject, specOf } from "../api/object.js";
import { ADMINISTER_VERB, ownsSpace, ruleNamesCaller } from "../authz/authorizer.js";
import type { Authorizer } from "../authz/contract.js";
import {
  SPACE_ROLES,
  type SpaceAccessRule,
  type SpaceInstanceSpec,
  type SpaceRole,
} from "../kinds/space-instance/space-instance.js";
import type { SpaceTemplateSpec } from "../kinds/space-template/space-template.js";
import { resolveParameters } from "../kinds/template-parameters/parameters.js";
import { type AdmissionAttributes, type AdmissionPlugin, isServerWrite } from "../registry/admission.js";
import type { UserInfo } from "../registry/request-context.js";
import type { ObjectReader } from "./references.js";
import { platformResource, writesTo } from "./resource-match.js";

const SPACES = platformResource("spaceinstances");

/**
 * What a SpaceInstance needs beyond its fields' shapes (docs/spaces.md):
 * - no owner given: the creator owns it (creator-owner.ts);
 * - its templateRef names a SpaceTemplate that exists (`use` on it is ReferenceAdmission's,
 *   which runs before), and its parameters are the ones that template declares, typed as it says;
 * - an inline template writes whatever objects it lists with the platform's rights on the
 *   cluster, so it needs `administer` on the cluster, as a ClusterAccess does;
 * - an access rule's clusterRole gives a role inside the namespace: nobody gives a role above
 *   their own there (the owner and who administers the space hold admin).
 * Only what is new or changed is checked, so a space stays writable for its other fields.
 */
export class SpaceInstancesAdmission implements AdmissionPlugin {
  readonly name = "SpaceInstances";

  constructor(
    private readonly authz: Pick<Authorizer, "authorize">,
    private readonly read: ObjectReader,
  ) {}

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (!writesTo(attrs, SPACES) || attrs.subresource !== "" || attrs.operation === "DELETE") return;
    if (isServerWrite(attrs)) return;
    const { object: obj, oldObject: old } = attrs;
    const spec = specOf<SpaceInstanceSpec>(obj);
    const before = specOf<SpaceInstanceSpec>(old);
    const templateChanged =
      !old ||
      !isDeepStrictEqual(spec.templateRef, before.templateRef) ||
      !isDeepStrictEqual(spec.parameters, before.parameters);
    if (spec.templateRef?.name && templateChanged) await this.checkParameters(obj, spec);
    if (spec.template && (!old || !isDeepStrictEqual(spec.template, before.template))) {
      await this.requireAdministerCluster(attrs.user, obj, spec.clusterRef?.cluster ?? "");
    }
    await this.checkRoles(attrs.user, obj, old);
  }

  private async checkParameters(obj: KubeObject, spec: Partial<SpaceInstanceSpec>): Promise<void> {
    const name = spec.templateRef?.name ?? "";
    const template = await this.read("spacetemplates", undefined, name);
    const invalid = (errs: ReturnType<typeof fieldError>[]) =>
      errors.invalid("SpaceInstance", GROUP, obj.metadata.name ?? "", errs);
    if (!template) {
      throw invalid([
        fieldError("FieldValueInvalid", "spec.templateRef.name", "no SpaceTemplate of this name exists", name),
      ]);
    }
    const declared = specOf<SpaceTemplateSpec>(template).parameters;
    const { errors: errs } = resolveParameters(declared ?? [], spec.parameters, "spec.parameters");
    if (errs.length > 0) throw invalid(errs);
  }

  private async requireAdministerCluster(user: UserInfo, obj: KubeObject, cluster: string): Promise<void> {
    const target = await this.read("clusters", undefined, cluster);
    const decision = await this.authz.authorize(user, {
      verb: ADMINISTER_VERB,
      apiGroup: GROUP,
      resource: "clusters",
      subresource: "",
      namespace: "",
      name: cluster,
      resourceRequest: true,
      object: target,
    });
    if (decision.allowed) return;
    throw errors.forbidden(
      SPACES,
      obj.metadata.name ?? "",
      `User "${user.name}" cannot ${ADMINISTER_VERB} resource "clusters" in API group "${GROUP}" (cluster "${cluster}"), which an inline spec.template needs: use a templateRef`,
    );
  }

  /** A new rule's clusterRole is at most the writer's own role in the space, judged on the space as it was. */
  private async checkRoles(user: UserInfo, obj: KubeObject, old: KubeObject | undefined): Promise<void> {
    const rules = (o: KubeObject | undefined) => specOf<SpaceInstanceSpec>(o).access ?? [];
    const added = rules(obj).filter((r) => r.clusterRole && !rules(old).some((o) => isDeepStrictEqual(o, r)));
    if (added.length === 0) return;
    const own = await this.roleOf(user, old ?? obj, old === undefined);
    for (const rule of added) {
      const wanted = rule.clusterRole as SpaceRole;
      if (rank(wanted) <= rank(own)) continue;
      throw errors.forbidden(
        SPACES,
        obj.metadata.name ?? "",
        `User "${user.name}" cannot give clusterRole "${wanted}" in the space's namespace: it holds ${own ? `"${own}"` : "no role"} there`,
      );
    }
  }

  /** The writer's role inside the space: admin for its owner and who administers it, else the best rule naming them. */
  private async roleOf(user: UserInfo, space: KubeObject, creating: boolean): Promise<SpaceRole | undefined> {
    if (ownsSpace(user, space)) return "admin";
    const decision = await this.authz.authorize(user, {
      verb: ADMINISTER_VERB,
      apiGroup: GROUP,
      resource: "spaceinstances",
      subresource: "",
      namespace: space.metadata.namespace ?? "",
      name: space.metadata.name ?? "",
      resourceRequest: true,
      // On create the rules being written must not count for their writer.
      object: creating ? { ...space, spec: { ...space.spec, access: [] } } : space,
    });
    if (decision.allowed) return "admin";
    if (creating) return undefined;
    let best: SpaceRole | undefined;
    for (const rule of (specOf<SpaceInstanceSpec>(space).access ?? []) as SpaceAccessRule[]) {
      const role = rule.clusterRole as SpaceRole | undefined;
      if (role && ruleNamesCaller(rule, user) && rank(role) > rank(best)) best = role;
    }
    return best;
  }
}

function rank(role: SpaceRole | undefined): number {
  return role ? SPACE_ROLES.indexOf(role) : -1;
}
