import { isDeepStrictEqual } from "node:util";
import { errors } from "../api/errors.js";
import { GROUP, type KubeObject, specOf } from "../api/object.js";
import { ADMINISTER_VERB } from "../authz/authorizer.js";
import { type Authorizer, platformAttributes } from "../authz/contract.js";
import type { SpaceTemplateSpec } from "../kinds/space-template/space-template.js";
import type { VirtualClusterTemplateSpec } from "../kinds/virtual-cluster-template/virtual-cluster-template.js";
import { type AdmissionAttributes, type AdmissionPlugin, isServerWrite } from "../registry/admission.js";
import { type GroupResource, platformResource, writesTo } from "./resource-match.js";

/** A template kind, the part of it that is written onto clusters, and what that part does there. */
interface AuthoredTemplate {
  resource: GroupResource;
  deployed: (obj: KubeObject | undefined) => unknown;
  what: string;
}

const AUTHORED: AuthoredTemplate[] = [
  {
    resource: platformResource("spacetemplates"),
    deployed: (o) => specOf<SpaceTemplateSpec>(o).template,
    what: "writing a template's objects into every space made from it needs",
  },
  {
    resource: platformResource("virtualclustertemplates"),
    deployed: (o) => specOf<VirtualClusterTemplateSpec>(o).versions,
    what: "writing a template's versions needs: they decide what is deployed wherever the template is used",
  },
];

/**
 * A template's deployed part (a SpaceTemplate's `spec.template`, a VirtualClusterTemplate's
 * `spec.versions`) is written onto every cluster an instance made from it runs on, now and later,
 * with the platform's rights there: setting or changing it needs `administer` on clusters as a
 * whole, which only the admin role holds (no access rule on one cluster grants it). Its display
 * name, description and access rules stay editable by who may update it; granting `use` on it is
 * how others deploy from it (docs/spaces.md, docs/virtual-clusters.md).
 */
export class TemplateAuthoringAdmission implements AdmissionPlugin {
  readonly name = "TemplateAuthoring";

  constructor(private readonly authz: Pick<Authorizer, "authorize">) {}

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (attrs.operation === "DELETE" || isServerWrite(attrs)) return;
    const template = AUTHORED.find((t) => writesTo(attrs, t.resource));
    if (!template) return;
    const now = template.deployed(attrs.object);
    if (attrs.oldObject ? isDeepStrictEqual(now, template.deployed(attrs.oldObject)) : now === undefined) return;
    const decision = await this.authz.authorize(attrs.user, platformAttributes(ADMINISTER_VERB, "clusters", {}));
    if (decision.allowed) return;
    throw errors.forbidden(
      template.resource,
      attrs.object.metadata.name ?? "",
      `User "${attrs.user.name}" cannot ${ADMINISTER_VERB} resource "clusters" in API group "${GROUP}" (every cluster), which ${template.what}`,
    );
  }
}
