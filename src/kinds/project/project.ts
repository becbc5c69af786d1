import { type Static, Type } from "@sinclair/typebox";
import { type FieldError, fieldError } from "../../api/errors.js";
import { specOf } from "../../api/object.js";
import { AccessRulesSchema, ConditionsSchema, OwnerSchema } from "../../api/schema/common.js";
import { objectSchema } from "../../api/schema/meta.js";
import { ageColumn, defineKind, displayNameColumn, displayNameFields, nameColumn } from "../define.js";
import { BUILT_IN_CLUSTER_ROLES, validateAccessRules } from "../validation.js";

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
    displayName: Type.Optional(Type.String({ description: "Name shown in the UI." })),
    description: Type.Optional(Type.String({ description: "Describes the project." })),
    owner: Type.Optional(OwnerSchema),
    allowedClusters: Type.Optional(
      Type.Array(Type.Object({ name: Type.String({ description: "Cluster name, or * for all." }) }), {
        description: "Clusters virtual cluster instances of this project may run on.",
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
  },
  { description: "ProjectSpec is the desired state of a project." },
);

function validateProject(spec: Partial<ProjectSpec>): FieldError[] {
  const errs = validateAccessRules(spec.access, "spec.access");
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
    Type.Object({ conditions: Type.Optional(ConditionsSchema) }, { description: "Observed state of the project." }),
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
    ageColumn(),
  ],
});
