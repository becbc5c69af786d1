import { Type } from "@sinclair/typebox";
import { type FieldError, fieldError } from "../../api/errors.js";
import { isPlainObject } from "../../api/object.js";
import { TemplateParameterSchema, validateParameterDeclarations } from "../template-parameters/parameters.js";
import { knownReferences, referenceProblems } from "../template-parameters/substitution.js";
import { BUILT_IN_REFERENCES, type TemplateContent } from "./render.js";

/** The fields a template version and an instance's inline template share: parameters and objects. */
export const TemplateContentFields = {
  parameters: Type.Optional(
    Type.Array(TemplateParameterSchema, { description: "Parameters the instance gives values for." }),
  ),
  objects: Type.Array(
    Type.Object(
      {},
      {
        additionalProperties: true,
        description:
          "A namespaced Kubernetes object (apiVersion, kind, metadata.name, ...) whose strings may refer to parameters, the instance and its CA.",
      },
    ),
    {
      description:
        "The Kubernetes objects that make one virtual cluster, put into the instance's namespace on its cluster.",
    },
  ),
};

/**
 * Kinds a template may not write: they are not namespaced, so they would reach past the
 * instance's namespace into the whole cluster. The cluster would refuse most of them in a
 * namespace anyway; refusing them when the template is written says so at once.
 */
const CLUSTER_WIDE_KINDS = new Set([
  "APIService",
  "CertificateSigningRequest",
  "ClusterRole",
  "ClusterRoleBinding",
  "CustomResourceDefinition",
  "IngressClass",
  "MutatingWebhookConfiguration",
  "Namespace",
  "Node",
  "PersistentVolume",
  "PriorityClass",
  "RuntimeClass",
  "StorageClass",
  "ValidatingAdmissionPolicy",
  "ValidatingAdmissionPolicyBinding",
  "ValidatingWebhookConfiguration",
  "VolumeAttachment",
]);

/** Field errors of a template's parameters and objects (`path` is where they are: `spec.versions[0]`, `spec.template`). */
export function validateTemplateContent(content: Partial<TemplateContent>, path: string): FieldError[] {
  const params = content.parameters ?? [];
  const errs = validateParameterDeclarations(params, `${path}.parameters`);
  const known = knownReferences(params, BUILT_IN_REFERENCES);
  const objects = content.objects ?? [];
  if (objects.length === 0) errs.push(fieldError("FieldValueRequired", `${path}.objects`, "at least one object"));
  objects.forEach((obj, i) => {
    const at = `${path}.objects[${i}]`;
    errs.push(...objectShapeErrors(obj, at));
    for (const p of referenceProblems(obj, at, known))
      errs.push(fieldError("FieldValueInvalid", p.path, p.detail, p.text));
  });
  return errs;
}

function objectShapeErrors(obj: unknown, at: string): FieldError[] {
  if (!isPlainObject(obj)) return [fieldError("FieldValueTypeInvalid", at, "must be an object")];
  const errs: FieldError[] = [];
  for (const field of ["apiVersion", "kind"] as const) {
    if (typeof obj[field] !== "string" || obj[field] === "") {
      errs.push(fieldError("FieldValueRequired", `${at}.${field}`, "a Kubernetes object needs one"));
    }
  }
  if (typeof obj.kind === "string" && CLUSTER_WIDE_KINDS.has(obj.kind)) {
    errs.push(
      fieldError(
        "FieldValueForbidden",
        `${at}.kind`,
        "a template writes namespaced objects into the instance's namespace only; this kind is cluster-wide",
      ),
    );
  }
  const meta = obj.metadata;
  if (!isPlainObject(meta) || typeof meta.name !== "string" || meta.name === "") {
    errs.push(fieldError("FieldValueRequired", `${at}.metadata.name`, "every object needs a name"));
  } else if (meta.namespace !== undefined) {
    errs.push(
      fieldError(
        "FieldValueForbidden",
        `${at}.metadata.namespace`,
        "objects go into the instance's namespace on its cluster; leave the namespace out",
      ),
    );
  }
  return errs;
}
