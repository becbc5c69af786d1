import { isDeepStrictEqual } from "node:util";
import { errors, type FieldError, fieldError } from "../api/errors.js";
import { GROUP, type KubeObject, specOf } from "../api/object.js";
import { type Authorizer, platformAttributes } from "../authz/contract.js";
import { type ProjectSpec, projectOfNamespace } from "../kinds/project/project.js";
import type { VirtualClusterInstanceSpec } from "../kinds/virtual-cluster-instance/virtual-cluster-instance.js";
import { renderTemplate, type TemplateContent } from "../kinds/virtual-cluster-template/render.js";
import { findVersion, LATEST } from "../kinds/virtual-cluster-template/versions.js";
import type { VirtualClusterTemplateSpec } from "../kinds/virtual-cluster-template/virtual-cluster-template.js";
import { type AdmissionAttributes, type AdmissionPlugin, isServerWrite } from "../registry/admission.js";
import type { UserInfo } from "../registry/request-context.js";
import { requireInlineTemplateRight } from "./instance-administration.js";
import type { ProjectLookup } from "./project-instances.js";
import type { ObjectReader } from "./references.js";
import { platformResource, writesTo } from "./resource-match.js";

const INSTANCES = platformResource("virtualclusterinstances");
const TEMPLATE_KIND = "VirtualClusterTemplate";
const KIND = "VirtualClusterInstance";
/** Stands in for the instance's CA when checking that a template renders: no CA is needed to know that. */
const NO_CA = { certPem: "", keyPem: "" };

/**
 * What templates mean for a VirtualClusterInstance (docs/virtual-clusters.md):
 * - a new instance that names no template gets its project's default one (allowedTemplates
 *   entry with isDefault);
 * - a project's allowedTemplates and requireTemplate hold (422 naming the rule);
 * - `spec.templateRef` needs `use` on the template (403), which must exist and have the version
 *   asked for (422), and the parameters must suit that version (422 naming each one);
 * - an inline `spec.template` decides what runs on the cluster: it needs `administer` on it (403).
 * Only a write that changes these fields (or the cluster) is checked, so narrowing a project's
 * rules or retiring a template version does not freeze the instances that use them.
 */
export class VirtualClusterTemplatesAdmission implements AdmissionPlugin {
  readonly name = "VirtualClusterTemplates";

  constructor(
    private readonly authz: Pick<Authorizer, "authorize">,
    private readonly read: ObjectReader,
    private readonly projects: ProjectLookup,
  ) {}

  async admit(attrs: AdmissionAttributes): Promise<FieldError[] | undefined> {
    if (!writesTo(attrs, INSTANCES) || attrs.subresource !== "" || attrs.operation !== "CREATE") return;
    const obj = attrs.object;
    const spec = specOf<VirtualClusterInstanceSpec>(obj);
    if (spec.external === true || spec.templateRef || spec.template) return;
    // A move between projects arrives with its status, and keeps its spec as it was.
    if (Object.keys(obj.status ?? {}).length > 0) return;
    const projectName = projectOfNamespace(obj.metadata.namespace);
    const project = projectName ? await this.projects(projectName) : undefined;
    const chosen = defaultTemplateOf(project);
    if (chosen) obj.spec = { ...obj.spec, templateRef: { name: chosen } };
    return;
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (!writesTo(attrs, INSTANCES) || attrs.subresource !== "" || attrs.operation === "DELETE") return;
    if (isServerWrite(attrs)) return;
    const { object: obj, oldObject: old } = attrs;
    const spec = specOf<VirtualClusterInstanceSpec>(obj);
    if (spec.external === true || (old && !templateFieldsChanged(obj, old))) return;
    const projectName = projectOfNamespace(obj.metadata.namespace) ?? "";
    const project = await this.projects(projectName);
    const ruleErrors = project ? projectRuleErrors(specOf<ProjectSpec>(project), spec, projectName) : [];
    if (ruleErrors.length) throw errors.invalid(KIND, GROUP, obj.metadata.name ?? "", ruleErrors);

    let content: TemplateContent | undefined = spec.template;
    if (spec.template) {
      const instance = { resource: INSTANCES, name: obj.metadata.name ?? "", advice: "it decides what runs there" };
      await requireInlineTemplateRight(
        { authz: this.authz, read: this.read },
        attrs.user,
        instance,
        spec.clusterRef?.cluster,
      );
    }
    if (spec.templateRef) content = await this.templateVersion(attrs.user, spec.templateRef, obj.metadata.name ?? "");
    if (!content) return;
    const rendered = renderTemplate(
      content,
      spec.parameters,
      { name: obj.metadata.name ?? "", project: projectName, namespace: spec.clusterRef?.namespace ?? "" },
      NO_CA,
    );
    if (rendered.errors) throw errors.invalid(KIND, GROUP, obj.metadata.name ?? "", rendered.errors);
  }

  /** The version `ref` names, once the caller may use its template (403 first: who may not use it learns nothing of it). */
  private async templateVersion(
    user: UserInfo,
    ref: NonNullable<VirtualClusterInstanceSpec["templateRef"]>,
    instance: string,
  ): Promise<TemplateContent> {
    const template = await this.read("virtualclustertemplates", undefined, ref.name);
    const decision = await this.authz.authorize(
      user,
      platformAttributes("use", "virtualclustertemplates", { name: ref.name, object: template }),
    );
    if (!decision.allowed) {
      throw errors.forbidden(
        INSTANCES,
        instance,
        `User "${user.name}" cannot use resource "virtualclustertemplates" in API group "${GROUP}", which spec.templateRef.name names (${JSON.stringify(ref.name)})`,
      );
    }
    if (!template) {
      throw errors.invalid(KIND, GROUP, instance, [
        fieldError(
          "FieldValueInvalid",
          "spec.templateRef.name",
          "no VirtualClusterTemplate of this name exists",
          ref.name,
        ),
      ]);
    }
    const versions = specOf<VirtualClusterTemplateSpec>(template).versions ?? [];
    const version = findVersion(versions, ref.version);
    if (!version) {
      const known = versions.map((v) => v.version).join(", ");
      throw errors.invalid(KIND, GROUP, instance, [
        fieldError(
          "FieldValueInvalid",
          "spec.templateRef.version",
          `template "${ref.name}" has no such version (its versions: ${known}; "${LATEST}" follows the newest)`,
          ref.version,
        ),
      ]);
    }
    return version;
  }
}

/** The fields whose change asks the questions again: the template, its parameters, where it goes. */
function templateFieldsChanged(obj: KubeObject, old: KubeObject): boolean {
  const a = specOf<VirtualClusterInstanceSpec>(obj);
  const b = specOf<VirtualClusterInstanceSpec>(old);
  return (
    !isDeepStrictEqual(a.templateRef, b.templateRef) ||
    !isDeepStrictEqual(a.template, b.template) ||
    !isDeepStrictEqual(a.parameters, b.parameters) ||
    !isDeepStrictEqual(a.clusterRef, b.clusterRef)
  );
}

type AllowedTemplate = NonNullable<ProjectSpec["allowedTemplates"]>[number];

function virtualClusterEntries(project: Partial<ProjectSpec>): AllowedTemplate[] {
  return (project.allowedTemplates ?? []).filter((t) => t.kind === TEMPLATE_KIND);
}

/** The project's default virtual cluster template, if it names one. */
export function defaultTemplateOf(project: KubeObject | undefined): string | undefined {
  return virtualClusterEntries(specOf<ProjectSpec>(project)).find((t) => t.isDefault && t.name !== "*")?.name;
}

function projectRuleErrors(
  project: Partial<ProjectSpec>,
  spec: Partial<VirtualClusterInstanceSpec>,
  projectName: string,
): FieldError[] {
  const p = JSON.stringify(projectName);
  if (project.requireTemplate === true) {
    if (spec.template) {
      return [
        fieldError(
          "FieldValueForbidden",
          "spec.template",
          `project ${p} requires one of its allowed templates (spec.templateRef), not an inline one`,
        ),
      ];
    }
    if (!spec.templateRef) {
      return [
        fieldError(
          "FieldValueRequired",
          "spec.templateRef",
          `project ${p} requires a template: name one of its allowedTemplates`,
        ),
      ];
    }
  }
  const entries = virtualClusterEntries(project);
  const ref = spec.templateRef;
  if (!ref || entries.length === 0 || entries.some((t) => t.name === "*" || t.name === ref.name)) return [];
  const allowed = entries.map((t) => t.name).join(", ");
  return [
    fieldError(
      "FieldValueForbidden",
      "spec.templateRef.name",
      `template ${JSON.stringify(ref.name)} is not in the allowedTemplates of project ${p} (allowed: ${allowed})`,
    ),
  ];
}
