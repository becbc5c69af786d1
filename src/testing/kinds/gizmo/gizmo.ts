import { Type } from "@sinclair/typebox";
import { AccessRulesSchema } from "../../../api/schema/common.js";
import { objectSchema } from "../../../api/schema/meta.js";
import {
  ageColumn,
  defineKind,
  displayNameColumn,
  displayNameFields,
  nameColumn,
  specString,
} from "../../../kinds/define.js";
import { validateAccessRules } from "../../../kinds/validation.js";

/**
 * A kind that exists only in tests, `Gizmo` (`gizmos`), declared as a product kind is (a folder
 * of its own, defineKind): access rules, a secret field, a Table column the console shows. It
 * is served by adding it to the registration list (`testKindList`, ../index.ts), nothing else.
 */
export const gizmoResource = defineKind({
  kind: "Gizmo",
  plural: "gizmos",
  singular: "gizmo",
  shortNames: ["gz"],
  namespaced: false,
  hasStatus: false,
  description: "A Gizmo is a test kind.",
  schema: objectSchema(
    "Gizmo",
    "A Gizmo is a test kind.",
    Type.Object(
      {
        displayName: Type.Optional(Type.String({ description: "Name shown in the UI." })),
        description: Type.Optional(Type.String({ description: "Free text." })),
        color: Type.Optional(Type.String({ description: "Its color." })),
        secret: Type.Optional(Type.String({ description: "A value only some readers see." })),
        access: Type.Optional(AccessRulesSchema),
      },
      { description: "GizmoSpec is the desired state of a gizmo." },
    ),
    undefined,
  ),
  strategy: { validate: (obj) => validateAccessRules(obj.spec?.access, "spec.access") },
  secretFields: ["spec.secret"],
  console: {
    title: "Gizmos",
    fields: [...displayNameFields(), { path: "spec.color", label: "Color", type: "text" }],
    columns: ["Color"],
  },
  columns: [
    nameColumn(),
    displayNameColumn(),
    { name: "Color", type: "string", description: "Its color.", priority: 0, cell: (o) => specString(o, "color") },
    ageColumn(),
  ],
});
