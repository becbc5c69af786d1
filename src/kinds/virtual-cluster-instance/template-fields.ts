import { type FieldError, fieldError } from "../../api/errors.js";
import { type KubeObject, specOf } from "../../api/object.js";
import { projectOfNamespace } from "../project/project.js";
import type { TemplateContent } from "../virtual-cluster-template/render.js";
import { validateTemplateContent } from "../virtual-cluster-template/template-content.js";
import { isVersion, LATEST } from "../virtual-cluster-template/versions.js";

/** The fields of an instance's spec these rules read (virtual-cluster-instance.ts has the schema). */
interface TemplateFields {
  external?: boolean;
  templateRef?: { name: string; version?: string };
  template?: TemplateContent;
  parameters?: Record<string, string>;
  clusterRef?: { cluster?: string; namespace?: string; virtualCluster?: string };
}

/** A namespace on the connected cluster: a DNS-1123 label. */
const NAMESPACE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const MAX_NAMESPACE_LENGTH = 63;

/**
 * The shape rules of an instance's template fields: a template by reference or inline (not
 * both), parameters only with one, none for an imported instance, and where a deployed virtual
 * cluster goes (a cluster, a namespace on it, named like the instance). Whether the template
 * exists, may be used and takes these parameters is admission's (src/admission/virtual-cluster-templates.ts).
 */
export function validateTemplateFields(obj: KubeObject): FieldError[] {
  const spec = specOf<TemplateFields>(obj);
  const errs: FieldError[] = [];
  const deployed = spec.templateRef !== undefined || spec.template !== undefined;
  if (spec.templateRef !== undefined && spec.template !== undefined) {
    errs.push(
      fieldError("FieldValueForbidden", "spec.template", "give either spec.templateRef or an inline spec.template"),
    );
  }
  if (spec.external === true) {
    for (const field of ["templateRef", "template", "parameters"] as const) {
      if (spec[field] !== undefined) {
        errs.push(
          fieldError(
            "FieldValueForbidden",
            `spec.${field}`,
            "an imported virtual cluster is not deployed from a template",
          ),
        );
      }
    }
    return errs;
  }
  if (spec.parameters !== undefined && !deployed) {
    errs.push(
      fieldError("FieldValueForbidden", "spec.parameters", "parameters need spec.templateRef or spec.template"),
    );
  }
  const ref = spec.templateRef;
  if (ref) {
    if (!ref.name) errs.push(fieldError("FieldValueRequired", "spec.templateRef.name", "the VirtualClusterTemplate"));
    if (ref.version !== undefined && ref.version !== LATEST && !isVersion(ref.version)) {
      errs.push(
        fieldError(
          "FieldValueInvalid",
          "spec.templateRef.version",
          `a version such as 1.2.0, or "${LATEST}"`,
          ref.version,
        ),
      );
    }
  }
  if (spec.template) errs.push(...validateTemplateContent(spec.template, "spec.template"));
  if (deployed) errs.push(...placementErrors(obj, spec));
  return errs;
}

function placementErrors(obj: KubeObject, spec: Partial<TemplateFields>): FieldError[] {
  const errs: FieldError[] = [];
  const ref = spec.clusterRef ?? {};
  if (!ref.cluster) {
    errs.push(
      fieldError(
        "FieldValueRequired",
        "spec.clusterRef.cluster",
        "the connected cluster to deploy the virtual cluster on",
      ),
    );
  }
  const ns = ref.namespace ?? "";
  if (!NAMESPACE.test(ns) || ns.length > MAX_NAMESPACE_LENGTH) {
    errs.push(
      fieldError(
        "FieldValueInvalid",
        "spec.clusterRef.namespace",
        `the namespace on the cluster: a lowercase RFC 1123 label of at most ${MAX_NAMESPACE_LENGTH} characters`,
        ns,
      ),
    );
  }
  if (ref.virtualCluster !== undefined && ref.virtualCluster !== obj.metadata.name) {
    errs.push(
      fieldError(
        "FieldValueInvalid",
        "spec.clusterRef.virtualCluster",
        "a virtual cluster deployed from a template is named like its instance",
        ref.virtualCluster,
      ),
    );
  }
  return errs;
}

/** Whether the instance is deployed from a template (by reference or inline). */
export function isDeployed(obj: KubeObject): boolean {
  const spec = specOf<TemplateFields>(obj);
  return spec.external !== true && (spec.templateRef !== undefined || spec.template !== undefined);
}

/** Held by a deployed instance until what the platform deployed for it is gone from its cluster. */
export const VIRTUAL_CLUSTER_FINALIZER = "management.platform/virtual-cluster-cleanup";

/** Set at create on deployed instances only: an imported one's objects are not the platform's to remove. */
export function addCleanupFinalizer(obj: KubeObject): void {
  if (!isDeployed(obj)) return;
  const finalizers = obj.metadata.finalizers ?? [];
  if (!finalizers.includes(VIRTUAL_CLUSTER_FINALIZER))
    obj.metadata.finalizers = [...finalizers, VIRTUAL_CLUSTER_FINALIZER];
}

/**
 * Where a deployed virtual cluster goes when the instance does not say: named like the instance,
 * in namespace `p-<project>-v-<name>` on its cluster (one namespace per virtual cluster, which
 * says whose it is).
 */
export function defaultPlacement(obj: KubeObject): void {
  if (!isDeployed(obj)) return;
  const spec = obj.spec as TemplateFields;
  const project = projectOfNamespace(obj.metadata.namespace);
  const name = obj.metadata.name;
  if (!project || !name) return;
  const ref = { ...(spec.clusterRef ?? {}) };
  ref.namespace ??= `p-${project}-v-${name}`;
  ref.virtualCluster ??= name;
  spec.clusterRef = ref;
}

/**
 * Whether an instance is deployed from a template is decided when it is created: its CA is made
 * then (instance-ca.ts), and what was deployed must be removed by deleting the instance, not
 * forgotten by dropping the template. Switching templates, or to an inline one, stays possible.
 */
export function deployedChangeErrors(obj: KubeObject, old: KubeObject): FieldError[] {
  if (isDeployed(obj) === isDeployed(old)) return [];
  const detail = isDeployed(old)
    ? "an instance deployed from a template keeps one (spec.templateRef or spec.template); delete the instance to remove what was deployed"
    : "an instance created without a template cannot be given one; create a new instance from the template";
  return [fieldError("FieldValueForbidden", "spec.templateRef", detail)];
}
