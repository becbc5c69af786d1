import { isDeepStrictEqual } from "node:util";
import { errors } from "../api/errors.js";
import { GROUP, specOf } from "../api/object.js";
import { ADMINISTER_VERB } from "../authz/authorizer.js";
import type { Authorizer } from "../authz/contract.js";
import type { SpaceTemplateSpec } from "../kinds/space-template/space-template.js";
import { type AdmissionAttributes, type AdmissionPlugin, isServerWrite } from "../registry/admission.js";
import { platformResource, writesTo } from "./resource-match.js";

const TEMPLATES = platformResource("spacetemplates");

/**
 * A SpaceTemplate's `spec.template` is written into every space made from it, on any cluster,
 * with the platform's rights there: setting or changing it needs `administer` on clusters as a
 * whole, as a ClusterAccess for `*` does (docs/spaces.md). Whoever an access rule lets update a
 * template may still change the rest (description, parameters' texts, access).
 */
export class SpaceTemplatesAdmission implements AdmissionPlugin {
  readonly name = "SpaceTemplates";

  constructor(private readonly authz: Pick<Authorizer, "authorize">) {}

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (!writesTo(attrs, TEMPLATES) || attrs.operation === "DELETE" || isServerWrite(attrs)) return;
    const body = (o: typeof attrs.object | undefined) => specOf<SpaceTemplateSpec>(o).template;
    const now = body(attrs.object);
    if (attrs.oldObject ? isDeepStrictEqual(now, body(attrs.oldObject)) : now === undefined) return;
    const decision = await this.authz.authorize(attrs.user, {
      verb: ADMINISTER_VERB,
      apiGroup: GROUP,
      resource: "clusters",
      subresource: "",
      namespace: "",
      name: "",
      resourceRequest: true,
    });
    if (decision.allowed) return;
    throw errors.forbidden(
      TEMPLATES,
      attrs.object.metadata.name ?? "",
      `User "${attrs.user.name}" cannot ${ADMINISTER_VERB} resource "clusters" in API group "${GROUP}" (every cluster), which writing a template's objects into every space made from it needs`,
    );
  }
}
