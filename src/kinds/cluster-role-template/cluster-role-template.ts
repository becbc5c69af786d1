import { type Static, Type } from "@sinclair/typebox";
import { type FieldError, fieldError } from "../../api/errors.js";
import { type KubeObject, specOf } from "../../api/object.js";
import { objectSchema } from "../../api/schema/meta.js";
import { ClusterSelectionSchema, validateClusterSelection } from "../cluster-selection.js";
import { ageColumn, defineKind, displayNameColumn, displayNameFields, nameColumn } from "../define.js";

const PolicyRule = Type.Object(
  {
    apiGroups: Type.Optional(Type.Array(Type.String(), { description: 'API groups; "" is the core group, "*" all.' })),
    resources: Type.Optional(Type.Array(Type.String(), { description: 'Resources, "*" for all.' })),
    verbs: Type.Array(Type.String(), { description: 'Verbs, "*" for all.' }),
    resourceNames: Type.Optional(Type.Array(Type.String(), { description: "Only these object names." })),
    nonResourceURLs: Type.Optional(
      Type.Array(Type.String(), { description: "Non-resource paths (cluster-wide only)." }),
    ),
  },
  { description: "A rule of a Kubernetes ClusterRole, written to the cluster as given." },
);

const LabelSelector = Type.Object(
  {
    matchLabels: Type.Optional(Type.Record(Type.String(), Type.String())),
    matchExpressions: Type.Optional(
      Type.Array(
        Type.Object({
          key: Type.String(),
          operator: Type.String({ description: "In, NotIn, Exists or DoesNotExist." }),
          values: Type.Optional(Type.Array(Type.String())),
        }),
      ),
    ),
  },
  { description: "A Kubernetes label selector." },
);

const ClusterRoleTemplateSpec = Type.Object(
  {
    displayName: Type.Optional(Type.String({ description: "Shown in the UI instead of the metadata name." })),
    description: Type.Optional(Type.String({ description: "What the role allows." })),
    clusters: ClusterSelectionSchema,
    rules: Type.Optional(
      Type.Array(PolicyRule, { description: "The rules of the ClusterRole written to each cluster." }),
    ),
    aggregationRule: Type.Optional(
      Type.Object(
        {
          clusterRoleSelectors: Type.Array(LabelSelector, {
            description: "The ClusterRoles on the cluster whose rules this role gathers.",
          }),
        },
        {
          description:
            "Instead of rules: the cluster's own controller fills the role with the rules of the ClusterRoles these selectors match.",
        },
      ),
    ),
  },
  { description: "ClusterRoleTemplateSpec is a ClusterRole the platform keeps on the clusters it names." },
);

export type ClusterRoleTemplateSpec = Static<typeof ClusterRoleTemplateSpec>;

/** The name of the ClusterRole a template is written as on a cluster (prefixed: never one the cluster has already). */
export function clusterRoleNameOf(template: string): string {
  return `platform:${template}`;
}

export const clusterRoleTemplateResource = defineKind({
  kind: "ClusterRoleTemplate",
  plural: "clusterroletemplates",
  singular: "clusterroletemplate",
  shortNames: ["crt"],
  namespaced: false,
  hasStatus: false,
  // The name is part of the ClusterRole's name on every cluster.
  names: { format: "label" },
  description:
    "A ClusterRoleTemplate is a Kubernetes ClusterRole the platform writes to the connected clusters it names (docs/cluster-access.md).",
  schema: objectSchema(
    "ClusterRoleTemplate",
    "A ClusterRoleTemplate is a Kubernetes ClusterRole the platform writes to the connected clusters it names.",
    ClusterRoleTemplateSpec,
    undefined,
  ),
  strategy: {
    validate(obj) {
      return validateTemplate(specOf<ClusterRoleTemplateSpec>(obj));
    },
  },
  console: {
    title: "Cluster role templates",
    fields: [...displayNameFields(), { path: "spec.clusters", label: "Clusters (* for all)", type: "list" }],
    columns: ["Clusters"],
  },
  columns: [
    nameColumn(),
    displayNameColumn(1),
    {
      name: "Clusters",
      type: "string",
      description: "The clusters the role is written to.",
      priority: 0,
      cell: (o: KubeObject) => (specOf<ClusterRoleTemplateSpec>(o).clusters ?? []).join(","),
    },
    ageColumn(),
  ],
});

function validateTemplate(spec: Partial<ClusterRoleTemplateSpec>): FieldError[] {
  const errs = validateClusterSelection(spec.clusters, "spec.clusters");
  const rules = spec.rules ?? [];
  if (spec.aggregationRule) {
    // The cluster's aggregation controller owns the rules of an aggregated role and rewrites them.
    if (rules.length > 0) {
      errs.push(
        fieldError("FieldValueForbidden", "spec.rules", "a role with an aggregationRule gets its rules from it"),
      );
    }
    if (spec.aggregationRule.clusterRoleSelectors.length === 0) {
      errs.push(fieldError("FieldValueRequired", "spec.aggregationRule.clusterRoleSelectors", "at least one selector"));
    }
  } else if (rules.length === 0) {
    errs.push(fieldError("FieldValueRequired", "spec.rules", "rules, or an aggregationRule"));
  }
  rules.forEach((r, i) => {
    if (r.verbs.length === 0)
      errs.push(fieldError("FieldValueRequired", `spec.rules[${i}].verbs`, "at least one verb"));
    const resources = (r.resources ?? []).length > 0;
    const urls = (r.nonResourceURLs ?? []).length > 0;
    if (resources === urls) {
      errs.push(fieldError("FieldValueInvalid", `spec.rules[${i}]`, "name either resources or nonResourceURLs", r));
    }
    if (resources && (r.apiGroups ?? []).length === 0) {
      errs.push(
        fieldError(
          "FieldValueRequired",
          `spec.rules[${i}].apiGroups`,
          'the API groups of the resources ("" is the core group)',
        ),
      );
    }
  });
  return errs;
}
