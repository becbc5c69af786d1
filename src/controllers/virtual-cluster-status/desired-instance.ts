import { fieldErrorMessage } from "../../api/errors.js";
import { type KubeObject, specOf, statusOf } from "../../api/object.js";
import type { ClusterObject } from "../../clusters/cluster-objects.js";
import { projectOfNamespace } from "../../kinds/project/project.js";
import type { VirtualClusterInstanceSpec } from "../../kinds/virtual-cluster-instance/virtual-cluster-instance.js";
import type { VirtualClusterInstanceStatus } from "../../kinds/virtual-cluster-instance/virtual-cluster-instance-status.js";
import { type RenderedCa, renderTemplate, type TemplateContent } from "../../kinds/virtual-cluster-template/render.js";
import { findVersion } from "../../kinds/virtual-cluster-template/versions.js";
import type { VirtualClusterTemplateSpec } from "../../kinds/virtual-cluster-template/virtual-cluster-template.js";
import { MANAGED_BY_LABEL, MANAGED_BY_VALUE, PROJECT_LABEL } from "../spaces/desired-space.js";

/**
 * What one deployed instance is on its cluster (docs/virtual-clusters.md, "Lifecycle"): its
 * Namespace, then its template version's objects rendered with its parameters and CA, each
 * labelled with the instance's name and project, which is how the controller finds what it
 * made and knows a namespace is its own (or by the namespace's UID its status recorded, after a
 * move: namespace-claim.ts). Pure: deploy-instance.ts applies what this returns.
 */

/** Names the instance on everything deployed for it. */
export const INSTANCE_LABEL = "management.platform/virtual-cluster";

/** What was deployed, as the status says it: never the rendered objects (they hold the CA key). */
export interface DeployedSummary {
  template: string;
  version: string;
  parameters: Record<string, string>;
}

export interface DesiredInstance {
  namespace: string;
  ownerLabels: Record<string, string>;
  /** The Namespace first, then the template's objects. */
  objects: ClusterObject[];
  deployed: DeployedSummary;
}

export type DeployProblem = { reason: string; message: string };

export function instanceLabels(instance: KubeObject): Record<string, string> {
  return {
    [MANAGED_BY_LABEL]: MANAGED_BY_VALUE,
    [PROJECT_LABEL]: projectOfNamespace(instance.metadata.namespace) ?? "",
    [INSTANCE_LABEL]: instance.metadata.name ?? "",
  };
}

/**
 * The label selector of the instance's objects inside its namespace, once the namespace is known
 * to be the instance's (namespace-claim.ts): the platform's label and the instance's name, not
 * its project. A moved instance's objects carry the old project's label until it is deployed
 * again; they are its own all the same, to prune or to remove. No other instance's objects are in
 * its namespace.
 */
export function instanceObjectsSelector(instance: KubeObject): string {
  return `${MANAGED_BY_LABEL}=${MANAGED_BY_VALUE},${INSTANCE_LABEL}=${instance.metadata.name ?? ""}`;
}

/** The instance's namespace on its cluster (defaulted at create to `p-<project>-v-<name>`). */
export function instanceNamespaceOf(instance: KubeObject): string {
  return specOf<VirtualClusterInstanceSpec>(instance).clusterRef?.namespace || (instance.metadata.namespace ?? "");
}

/** The template content the instance names (its templateRef's version, or inline), or why there is none. */
export function templateContentOf(
  instance: KubeObject,
  template: KubeObject | undefined,
): { content: TemplateContent; template: string; version: string } | DeployProblem {
  const spec = specOf<VirtualClusterInstanceSpec>(instance) as VirtualClusterInstanceSpec & {
    templateRef?: { name: string; version?: string };
    template?: TemplateContent;
  };
  if (spec.template) return { content: spec.template, template: "", version: "" };
  const ref = spec.templateRef;
  if (!ref) return { reason: "NoTemplate", message: "the instance names no template" };
  if (!template) {
    return { reason: "TemplateNotFound", message: `template "${ref.name}" does not exist` };
  }
  const version = findVersion(specOf<VirtualClusterTemplateSpec>(template).versions ?? [], ref.version);
  if (!version) {
    return {
      reason: "TemplateVersionNotFound",
      message: `template "${ref.name}" has no version ${JSON.stringify(ref.version ?? "latest")}`,
    };
  }
  return { content: version, template: ref.name, version: version.version };
}

/**
 * The objects to apply. While the instance sleeps, the workloads' `spec.replicas` is left out:
 * sleep mode owns it then (sleep-scaling.ts), and applying the template's count would wake it.
 */
export function desiredInstance(
  instance: KubeObject,
  template: KubeObject | undefined,
  ca: RenderedCa,
): DesiredInstance | DeployProblem {
  const found = templateContentOf(instance, template);
  if ("reason" in found) return found;
  const namespace = instanceNamespaceOf(instance);
  const parameters = (specOf<{ parameters?: Record<string, string> }>(instance).parameters ?? {}) as Record<
    string,
    string
  >;
  const rendered = renderTemplate(
    found.content,
    parameters,
    { name: instance.metadata.name ?? "", project: projectOfNamespace(instance.metadata.namespace) ?? "", namespace },
    ca,
  );
  if (rendered.errors) {
    return { reason: "TemplateNotRendered", message: rendered.errors.map(fieldErrorMessage).join("; ") };
  }
  const ownerLabels = instanceLabels(instance);
  const asleep = statusOf<VirtualClusterInstanceStatus>(instance).sleep !== undefined;
  const objects: ClusterObject[] = [
    { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace, labels: ownerLabels } },
  ];
  for (const obj of rendered.objects) {
    const labels = { ...(obj.metadata.labels ?? {}), ...ownerLabels };
    const out = { ...obj, metadata: { ...obj.metadata, labels } } as ClusterObject;
    if (asleep && (obj.kind === "StatefulSet" || obj.kind === "Deployment") && out.spec) {
      const { replicas: _owned, ...spec } = out.spec as Record<string, unknown>;
      out.spec = spec;
    }
    objects.push(out);
  }
  return {
    namespace,
    ownerLabels,
    objects,
    deployed: { template: found.template, version: found.version, parameters: { ...parameters } },
  };
}
