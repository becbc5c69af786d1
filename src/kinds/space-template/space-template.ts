import { type Static, Type } from "@sinclair/typebox";
import type { FieldError } from "../../api/errors.js";
import { type KubeObject, specOf } from "../../api/object.js";
import { AccessRulesSchema } from "../../api/schema/common.js";
import { objectSchema } from "../../api/schema/meta.js";
import { ageColumn, defineKind, displayNameColumn, displayNameFields, nameColumn } from "../define.js";
import { TemplateParameterSchema, validateParameterDeclarations } from "../template-parameters/parameters.js";
import { validateAccessRules } from "../validation.js";
import { SpaceBodySchema, validateSpaceBody } from "./space-body.js";

const SpaceTemplateSpec = Type.Object(
  {
    displayName: Type.Optional(Type.String({ description: "Name shown in the UI." })),
    description: Type.Optional(Type.String({ description: "What a space made from this template is for." })),
    parameters: Type.Optional(
      Type.Array(TemplateParameterSchema, {
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a template reference, not JavaScript
        description: "Values each space fills in, used as ${params.<name>} in the template.",
      }),
    ),
    template: Type.Optional(SpaceBodySchema),
    access: Type.Optional(AccessRulesSchema),
  },
  { description: "SpaceTemplateSpec is what every space made from the template gets on its cluster." },
);

export type SpaceTemplateSpec = Static<typeof SpaceTemplateSpec>;

const DESCRIPTION =
  "A SpaceTemplate is the labels, annotations and objects (quotas, limit ranges, network policies…) a space gets in its namespace, with parameters (docs/spaces.md).";

export const spaceTemplateResource = defineKind({
  kind: "SpaceTemplate",
  plural: "spacetemplates",
  singular: "spacetemplate",
  shortNames: ["spt"],
  namespaced: false,
  hasStatus: false,
  description: DESCRIPTION,
  schema: objectSchema("SpaceTemplate", DESCRIPTION, SpaceTemplateSpec, undefined),
  strategy: {
    validate(obj) {
      return validateSpaceTemplate(specOf<SpaceTemplateSpec>(obj));
    },
  },
  console: { title: "Space templates", fields: displayNameFields(), columns: [] },
  columns: [
    nameColumn(),
    displayNameColumn(),
    {
      name: "Objects",
      type: "string",
      description: "Kinds of the objects a space gets.",
      priority: 1,
      cell: (o: KubeObject) =>
        (specOf<SpaceTemplateSpec>(o).template?.objects ?? []).map((m) => `${m.kind}/${m.metadata?.name}`).join(","),
    },
    ageColumn(),
  ],
});

function validateSpaceTemplate(spec: Partial<SpaceTemplateSpec>): FieldError[] {
  const params = spec.parameters ?? [];
  return [
    ...validateAccessRules(spec.access, "spec.access"),
    ...validateParameterDeclarations(params, "spec.parameters"),
    ...validateSpaceBody(spec.template, "spec.template", params),
  ];
}
