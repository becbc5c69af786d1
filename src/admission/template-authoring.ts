import { isDeepStrictEqual } from "node:util";
import { errors } from "../api/errors.js";
import { GROUP, specOf } from "../api/object.js";
import { ADMINISTER_VERB } from "../authz/authorizer.js";
import type { Authorizer } from "../authz/contract.js";
import type { VirtualClusterTemplateSpec } from "../kinds/virtual-cluster-template/virtual-cluster-template.js";
import { type AdmissionAttributes, type AdmissionPlugin, isServerWrite } from "../registry/admission.js";
import { platformResource, writesTo } from "./resource-match.js";

const TEMPLATES = platformResource("virtualclustertemplates");

/**
 * A VirtualClusterTemplate's versions decide what is deployed on every cluster an instance made
 * from it runs on, now and later: writing them (creating a template, or changing its versions)
 * needs `administer` on clusters as a whole, which only the admin role holds (no access rule on
 * one cluster grants it). Its display name, description and access rules stay editable by who may
 * update it; granting `use` on it is how others deploy from it.
 */
export class TemplateAuthoringAdmission implements AdmissionPlugin {
  readonly name = "TemplateAuthoring";

  constructor(private readonly authz: Pick<Authorizer, "authorize">) {}

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (!writesTo(attrs, TEMPLATES) || attrs.operation === "DELETE" || isServerWrite(attrs)) return;
    const { object: obj, oldObject: old } = attrs;
    const versions = (o: typeof obj) => specOf<VirtualClusterTemplateSpec>(o).versions;
    if (old && isDeepStrictEqual(versions(obj), versions(old))) return;
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
      obj.metadata.name ?? "",
      `User "${attrs.user.name}" cannot ${ADMINISTER_VERB} resource "clusters" in API group "${GROUP}" (every cluster), which writing a template's versions needs: they decide what is deployed wherever the template is used`,
    );
  }
}
