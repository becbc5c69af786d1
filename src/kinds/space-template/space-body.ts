import { type Static, Type } from "@sinclair/typebox";
import { type FieldError, fieldError } from "../../api/errors.js";
import { isQualifiedName } from "../../api/validation/names.js";
import { knownReferences, referenceProblems } from "../template-parameters/substitution.js";
import { BUILT_IN_REFERENCES } from "./render.js";

/**
 * What a space puts on its cluster besides its access: labels and annotations on its namespace,
 * and the namespaced objects created inside it. Shared by SpaceTemplate.spec.template and an
 * instance's inline SpaceInstance.spec.template. Objects are a list of manifests (not one YAML
 * string): the API checks each one's shape and `kubectl explain` shows it.
 */

const Manifest = Type.Object(
  {
    apiVersion: Type.String({ description: "API version of the object, e.g. v1 or networking.k8s.io/v1." }),
    kind: Type.String({ description: "Kind of the object: any namespaced kind the cluster serves." }),
    metadata: Type.Object(
      { name: Type.String({ description: "Name of the object in the space's namespace." }) },
      { additionalProperties: true, description: "Its metadata; the namespace is always the space's." },
    ),
  },
  {
    additionalProperties: true,
    description:
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a template reference, not JavaScript
      "A namespaced Kubernetes object, as kubectl apply takes it; ${params.<name>} and ${space.name} references are filled in.",
  },
);

const StringMap = (description: string) => Type.Optional(Type.Record(Type.String(), Type.String(), { description }));

export const SpaceBodySchema = Type.Object(
  {
    labels: StringMap("Labels put on the space's namespace."),
    annotations: StringMap("Annotations put on the space's namespace."),
    objects: Type.Optional(Type.Array(Manifest, { description: "Objects created and kept inside the namespace." })),
  },
  { description: "The namespace's labels and annotations and the objects inside it." },
);

export type SpaceBody = Static<typeof SpaceBodySchema>;
export type SpaceManifest = Static<typeof Manifest>;

/**
 * Field errors of a space body: each object names a kind and a name, no namespace (it is always
 * the space's), is not a Namespace, and every `${…}` reference parses and names one of `params`
 * or a built-in.
 */
export function validateSpaceBody(
  body: Partial<SpaceBody> | undefined,
  path: string,
  params: readonly { name: string }[],
): FieldError[] {
  if (!body) return [];
  const errs: FieldError[] = [];
  for (const [field, map] of [
    ["labels", body.labels],
    ["annotations", body.annotations],
  ] as const) {
    for (const key of Object.keys(map ?? {})) {
      for (const msg of isQualifiedName(key)) errs.push(fieldError("FieldValueInvalid", `${path}.${field}`, msg, key));
    }
  }
  (body.objects ?? []).forEach((o, i) => {
    const at = `${path}.objects[${i}]`;
    if (!o.apiVersion) errs.push(fieldError("FieldValueRequired", `${at}.apiVersion`, "the object's apiVersion"));
    if (!o.kind) errs.push(fieldError("FieldValueRequired", `${at}.kind`, "the object's kind"));
    if (!o.metadata?.name) errs.push(fieldError("FieldValueRequired", `${at}.metadata.name`, "the object's name"));
    if (o.kind === "Namespace") {
      errs.push(fieldError("FieldValueForbidden", `${at}.kind`, "the space is the namespace; objects go inside it"));
    }
    if ((o.metadata as { namespace?: unknown } | undefined)?.namespace !== undefined) {
      errs.push(
        fieldError("FieldValueForbidden", `${at}.metadata.namespace`, "objects are always in the space's namespace"),
      );
    }
  });
  const known = knownReferences(params, BUILT_IN_REFERENCES);
  for (const p of referenceProblems(body, path, known)) {
    const builtIns = BUILT_IN_REFERENCES.map((b) => `\${${b}}`).join(", ");
    errs.push(
      fieldError("FieldValueInvalid", p.path, `${p.detail}: refer to \${params.<name>} or ${builtIns}`, p.text),
    );
  }
  return errs;
}
