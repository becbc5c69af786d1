import { type Static, Type } from "@sinclair/typebox";
import { type FieldError, fieldError } from "../../api/errors.js";
import { specOf } from "../../api/object.js";
import { AccessRulesSchema, ConditionsSchema, ownedObjectFields } from "../../api/schema/common.js";
import { objectSchema } from "../../api/schema/meta.js";
import { ageColumn, defineKind, displayNameColumn, displayNameFields, nameColumn } from "../define.js";
import { BUILT_IN_CLUSTER_ROLES, validateAccessRules } from "../validation.js";
import { ProjectQuotasSchema, ProjectQuotasStatusSchema, projectQuotasCell, validateQuotas } from "./project-quotas.js";

/** Every project owns one namespace, named after it. */
export const PROJECT_NAMESPACE_PREFIX = "p-";
export function projectNamespace(project: string): string {
  return `${PROJECT_NAMESPACE_PREFIX}${project}`;
}
export function projectOfNamespace(namespace: string | undefined): string | undefined {
  return namespace?.startsWith(PROJECT_NAMESPACE_PREFIX) ? namespace.slice(PROJECT_NAMESPACE_PREFIX.length) : undefined;
}

const ProjectSpec = Type.Object(
  {
    ...ownedObjectFields("Describes the project."),
    allowedClusters: Type.Optional(
      Type.Array(Type.Object({ name: Type.String({ description: "Cluster name, or * for all." }) }), {
        description: "Clusters the virtual cluster instances and spaces of this project may run on.",
      }),
    ),
    allowedTemplates: Type.Optional(
      Type.Array(
        Type.Object({
          kind: Type.String({ description: "The kind of template: VirtualClusterTemplate." }),
          name: Type.String({ description: "Template name, or * for every template of that kind." }),
          isDefault: Type.Optional(
            Type.Boolean({ description: "Used for a new instance that names no template (one per kind)." }),
          ),
        }),
        {
          description:
            "Templates instances of this project may use; no entry of a kind: every template of that kind (docs/virtual-clusters.md).",
        },
      ),
    ),
    requireTemplate: Type.Optional(
      Type.Boolean({
        description:
          "Every new virtual cluster instance of the project is deployed from one of its allowed templates (no inline template, none without).",
      }),
    ),
    members: Type.Optional(
      Type.Array(
        Type.Object({
          kind: Type.String({ description: "User or Team." }),
          name: Type.String({ description: "Name of the user or team." }),
          clusterRole: Type.Optional(Type.String({ description: "Role of the member in the project." })),
        }),
        { description: "Users and teams who are members of the project." },
      ),
    ),
    access: Type.Optional(AccessRulesSchema),
    quotas: Type.Optional(ProjectQuotasSchema),
  },
  { description: "ProjectSpec is the desired state of a project." },
);

/** The kinds of template a project's allowedTemplates can name. */
export const TEMPLATE_KINDS = ["VirtualClusterTemplate"] as const;

function validateProject(spec: Partial<ProjectSpec>): FieldError[] {
  const errs = [...validateAccessRules(spec.access, "spec.access"), ...validateQuotas(spec.quotas)];
  errs.push(...validateAllowedTemplates(spec.allowedTemplates ?? []));
  const members = spec.members ?? [];
  members.forEach((m, i) => {
    if (m.kind !== "User" && m.kind !== "Team") {
      errs.push(
        fieldError("FieldValueNotSupported", `spec.members[${i}].kind`, `supported values: "User", "Team"`, m.kind),
      );
    }
    if (m.clusterRole && !(BUILT_IN_CLUSTER_ROLES as readonly string[]).includes(m.clusterRole)) {
      errs.push(
        fieldError(
          "FieldValueNotSupported",
          `spec.members[${i}].clusterRole`,
          `supported values: ${BUILT_IN_CLUSTER_ROLES.map((r) => `"${r}"`).join(", ")}`,
          m.clusterRole,
        ),
      );
    }
  });
  return errs;
}

function validateAllowedTemplates(allowed: NonNullable<ProjectSpec["allowedTemplates"]>): FieldError[] {
  const errs: FieldError[] = [];
  const defaults = new Set<string>();
  allowed.forEach((t, i) => {
    const at = `spec.allowedTemplates[${i}]`;
    if (!(TEMPLATE_KINDS as readonly string[]).includes(t.kind)) {
      const supported = TEMPLATE_KINDS.map((k) => `"${k}"`).join(", ");
      errs.push(fieldError("FieldValueNotSupported", `${at}.kind`, `supported values: ${supported}`, t.kind));
    }
    if (!t.name) errs.push(fieldError("FieldValueRequired", `${at}.name`, "a template name, or * for all"));
    if (!t.isDefault) return;
    if (t.name === "*") {
      errs.push(fieldError("FieldValueInvalid", `${at}.isDefault`, "the default is one named template, not *", true));
    } else if (defaults.has(t.kind)) {
      errs.push(fieldError("FieldValueDuplicate", `${at}.isDefault`, `another ${t.kind} is the default already`, true));
    }
    defaults.add(t.kind);
  });
  return errs;
}

/** The spec of a Project, as its schema admits it. */
export type ProjectSpec = Static<typeof ProjectSpec>;
/** One member of a project. */
export type ProjectMember = NonNullable<ProjectSpec["members"]>[number];

export const projectResource = defineKind({
  kind: "Project",
  plural: "projects",
  singular: "project",
  shortNames: ["proj"],
  namespaced: false,
  hasStatus: true,
  // A project's name is part of its namespace `p-<name>`, a DNS-1123 label of at most 63 characters.
  names: { format: "label", maxLength: 61 },
  description: "A Project groups virtual cluster instances in its namespace p-<name> and decides who may use them.",
  schema: objectSchema(
    "Project",
    "A Project groups virtual cluster instances in its namespace p-<name> and decides who may use them.",
    ProjectSpec,
    Type.Object(
      { conditions: Type.Optional(ConditionsSchema), quotas: Type.Optional(ProjectQuotasStatusSchema) },
      { description: "Observed state of the project." },
    ),
  ),
  strategy: { validate: (obj) => validateProject(specOf<ProjectSpec>(obj)) },
  console: {
    title: "Projects",
    fields: [...displayNameFields(), { path: "spec.members", label: "Members", type: "members" }],
    columns: [],
  },
  columns: [
    nameColumn(),
    displayNameColumn(),
    {
      name: "Namespace",
      type: "string",
      description: "The project's namespace.",
      priority: 0,
      cell: (o) => projectNamespace(o.metadata.name ?? ""),
    },
    {
      name: "Members",
      type: "string",
      description: "Members of the project.",
      priority: 1,
      cell: (o) => (specOf<ProjectSpec>(o).members ?? []).map((m) => m.name).join(","),
    },
    {
      name: "Quotas",
      type: "string",
      description: "Project-wide quotas, used/limit (status.quotas).",
      priority: 1,
      cell: (o) => projectQuotasCell(o),
    },
    ageColumn(),
  ],
});
