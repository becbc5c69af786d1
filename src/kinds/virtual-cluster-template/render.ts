import { type FieldError, fieldError } from "../../api/errors.js";
import { isPlainObject, type KubeObject } from "../../api/object.js";
import { resolveParameters, type TemplateParameter } from "../template-parameters/parameters.js";
import { substitute, UnrenderableTemplate, variablesOf } from "../template-parameters/substitution.js";

/** What a virtual cluster template refers to besides its parameters: the instance and its CA. */
export const BUILT_IN_REFERENCES = [
  "instance.name",
  "instance.project",
  "instance.namespace",
  "ca.crt",
  "ca.key",
] as const;

/** What a template version holds (a VirtualClusterTemplate's `spec.versions[]`, or an instance's inline `spec.template`). */
export interface TemplateContent {
  parameters?: TemplateParameter[];
  objects: unknown[];
}

/** The instance a template is rendered for: its own values, as the template's `${instance.*}` read them. */
export interface RenderedInstance {
  /** The instance's name, which is also the virtual cluster's name on the cluster. */
  name: string;
  project: string;
  /** The namespace on the connected cluster every object goes into. */
  namespace: string;
}

/** The virtual cluster's certificate authority, as PEM (the platform makes it when the instance is created). */
export interface RenderedCa {
  certPem: string;
  keyPem: string;
}

export type RenderResult =
  | { objects: KubeObject[]; errors?: undefined }
  | { objects?: undefined; errors: FieldError[] };

/** A Kubernetes object name: a DNS-1123 subdomain, what every kind a template writes accepts. */
const OBJECT_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const MAX_NAME_LENGTH = 253;

/**
 * The Kubernetes objects one virtual cluster is made of: the template's objects with the
 * instance's parameter values (`given`, reported under `spec.parameters`), its name, project
 * and namespace, and its CA substituted, each placed in the instance's namespace. Pure: it
 * reads nothing and changes nothing it is given. Every problem is a field error an admission
 * check can answer with (422); none is thrown.
 *
 * The objects carry the CA key: they are for the connected cluster only, never for a log line,
 * an event or the instance's status.
 */
export function renderTemplate(
  content: TemplateContent,
  given: Readonly<Record<string, string>> | undefined,
  instance: RenderedInstance,
  ca: RenderedCa,
): RenderResult {
  const { values, errors } = resolveParameters(content.parameters ?? [], given, "spec.parameters");
  if (errors.length) return { errors };
  const builtIns: Record<(typeof BUILT_IN_REFERENCES)[number], string> = {
    "instance.name": instance.name,
    "instance.project": instance.project,
    "instance.namespace": instance.namespace,
    "ca.crt": ca.certPem,
    "ca.key": ca.keyPem,
  };
  const variables = variablesOf(values, builtIns);

  const objects: KubeObject[] = [];
  const seen = new Set<string>();
  for (const [i, template] of content.objects.entries()) {
    let rendered: unknown;
    try {
      rendered = substitute(template, variables);
    } catch (err) {
      if (!(err instanceof UnrenderableTemplate)) throw err;
      return {
        errors: [
          fieldError("FieldValueInvalid", "spec", `object ${i} of the template does not render: ${err.message}`),
        ],
      };
    }
    const problem = renderedObjectProblem(rendered);
    if (problem)
      return { errors: [fieldError("FieldValueInvalid", "spec.parameters", `object ${i} of the template ${problem}`)] };
    const obj = rendered as KubeObject;
    obj.metadata.namespace = instance.namespace;
    const identity = `${obj.apiVersion}/${obj.kind}/${obj.metadata.name}`;
    if (seen.has(identity)) {
      return {
        errors: [
          fieldError(
            "FieldValueInvalid",
            "spec.parameters",
            `the template renders ${obj.kind} "${obj.metadata.name}" twice`,
          ),
        ],
      };
    }
    seen.add(identity);
    objects.push(obj);
  }
  return { objects };
}

/** Why a rendered object cannot be sent to a cluster (its values come from parameters), or undefined. */
function renderedObjectProblem(obj: unknown): string | undefined {
  if (!isPlainObject(obj)) return "is not an object";
  if (typeof obj.apiVersion !== "string" || !obj.apiVersion) return "has no apiVersion";
  if (typeof obj.kind !== "string" || !obj.kind) return "has no kind";
  const name = isPlainObject(obj.metadata) ? obj.metadata.name : undefined;
  if (typeof name !== "string" || name.length > MAX_NAME_LENGTH || !OBJECT_NAME.test(name)) {
    return `(${obj.kind}) renders the name ${JSON.stringify(name)}, which is no lowercase RFC 1123 subdomain`;
  }
  return undefined;
}
