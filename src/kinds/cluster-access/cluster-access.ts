import { type Static, Type } from "@sinclair/typebox";
import { type FieldError, fieldError } from "../../api/errors.js";
import { type KubeObject, specOf } from "../../api/object.js";
import { objectSchema } from "../../api/schema/meta.js";
import { ClusterSelectionSchema, validateClusterSelection } from "../cluster-selection.js";
import { ageColumn, defineKind, displayNameColumn, displayNameFields, nameColumn } from "../define.js";

const ClusterAccessSpec = Type.Object(
  {
    displayName: Type.Optional(Type.String({ description: "Shown in the UI instead of the metadata name." })),
    description: Type.Optional(Type.String({ description: "Why these users and teams have this access." })),
    clusters: ClusterSelectionSchema,
    users: Type.Optional(Type.Array(Type.String(), { description: "Platform users granted the roles." })),
    teams: Type.Optional(
      Type.Array(Type.String(), {
        description: "Platform teams granted the roles (bound to the group platform:team:<team>).",
      }),
    ),
    clusterRoleTemplates: Type.Array(Type.String(), {
      description: "Names of the ClusterRoleTemplates granted; each must reach the cluster.",
    }),
    namespaces: Type.Optional(
      Type.Array(Type.String(), {
        description: "Grant in these namespaces only (RoleBindings); absent: cluster-wide (ClusterRoleBindings).",
      }),
    ),
  },
  { description: "ClusterAccessSpec grants users and teams ClusterRoleTemplates inside connected clusters." },
);

export type ClusterAccessSpec = Static<typeof ClusterAccessSpec>;

/** DNS-1123 label: a Kubernetes namespace name. */
const NAMESPACE_NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

export const clusterAccessResource = defineKind({
  kind: "ClusterAccess",
  plural: "clusteraccesses",
  singular: "clusteraccess",
  shortNames: ["ca"],
  namespaced: false,
  hasStatus: false,
  // The name is part of the binding names on every cluster and the value of their owner label.
  names: { format: "label" },
  description:
    "A ClusterAccess grants users and teams ClusterRoleTemplates inside connected clusters, cluster-wide or in named namespaces (docs/cluster-access.md).",
  schema: objectSchema(
    "ClusterAccess",
    "A ClusterAccess grants users and teams ClusterRoleTemplates inside connected clusters.",
    ClusterAccessSpec,
    undefined,
  ),
  strategy: {
    validate(obj) {
      return validateAccess(specOf<ClusterAccessSpec>(obj));
    },
  },
  console: {
    title: "Cluster access",
    fields: [
      ...displayNameFields(),
      { path: "spec.clusters", label: "Clusters (* for all)", type: "list" },
      { path: "spec.clusterRoleTemplates", label: "Cluster role templates", type: "list" },
      { path: "spec.namespaces", label: "Namespaces", type: "list", help: "empty: cluster-wide" },
      { path: "spec.users", label: "Users", type: "list" },
      { path: "spec.teams", label: "Teams", type: "list" },
    ],
    columns: ["Clusters", "Templates", "Namespaces"],
  },
  columns: [
    nameColumn(),
    displayNameColumn(1),
    listColumn("Clusters", "The clusters it grants on.", (s) => s.clusters),
    listColumn("Templates", "The ClusterRoleTemplates it grants.", (s) => s.clusterRoleTemplates),
    listColumn("Namespaces", "Where it grants; empty: cluster-wide.", (s) => s.namespaces),
    listColumn("Users", "Users granted.", (s) => s.users, 1),
    listColumn("Teams", "Teams granted.", (s) => s.teams, 1),
    ageColumn(),
  ],
});

function listColumn(
  name: string,
  description: string,
  field: (s: Partial<ClusterAccessSpec>) => string[] | undefined,
  priority: 0 | 1 = 0,
) {
  return {
    name,
    type: "string" as const,
    description,
    priority,
    cell: (o: KubeObject) => (field(specOf<ClusterAccessSpec>(o)) ?? []).join(","),
  };
}

function validateAccess(spec: Partial<ClusterAccessSpec>): FieldError[] {
  const errs = validateClusterSelection(spec.clusters, "spec.clusters");
  if ((spec.users ?? []).length + (spec.teams ?? []).length === 0) {
    errs.push(fieldError("FieldValueRequired", "spec.users", "name at least one user or team"));
  }
  for (const [field, names] of [
    ["spec.users", spec.users],
    ["spec.teams", spec.teams],
  ] as const) {
    (names ?? []).forEach((n, i) => {
      if (n === "" || n === "*") errs.push(fieldError("FieldValueInvalid", `${field}[${i}]`, "a name", n));
    });
  }
  const templates = spec.clusterRoleTemplates ?? [];
  if (templates.length === 0) {
    errs.push(fieldError("FieldValueRequired", "spec.clusterRoleTemplates", "at least one ClusterRoleTemplate"));
  }
  templates.forEach((t, i) => {
    if (!NAMESPACE_NAME.test(t))
      errs.push(fieldError("FieldValueInvalid", `spec.clusterRoleTemplates[${i}]`, "a ClusterRoleTemplate name", t));
  });
  if (spec.namespaces && spec.namespaces.length === 0) {
    errs.push(
      fieldError("FieldValueRequired", "spec.namespaces", "at least one namespace, or leave it out for cluster-wide"),
    );
  }
  (spec.namespaces ?? []).forEach((n, i) => {
    if (!NAMESPACE_NAME.test(n))
      errs.push(fieldError("FieldValueInvalid", `spec.namespaces[${i}]`, "a namespace name (DNS-1123 label)", n));
  });
  for (const [field, names] of [
    ["spec.clusters", spec.clusters],
    ["spec.users", spec.users],
    ["spec.teams", spec.teams],
    ["spec.clusterRoleTemplates", templates],
    ["spec.namespaces", spec.namespaces],
  ] as const) {
    errs.push(...duplicatesIn(names, field));
  }
  return errs;
}

/** A name twice would be one binding written twice and listed twice on the cluster's status. */
function duplicatesIn(names: readonly string[] | undefined, path: string): FieldError[] {
  return (names ?? []).flatMap((n, i) =>
    names!.indexOf(n) < i ? [fieldError("FieldValueDuplicate", `${path}[${i}]`, "listed twice", n)] : [],
  );
}
