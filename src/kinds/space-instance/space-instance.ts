import { type Static, Type } from "@sinclair/typebox";
import { type FieldError, fieldError } from "../../api/errors.js";
import { type KubeObject, specOf } from "../../api/object.js";
import { AccessRuleSchema, ConditionsSchema, ownedObjectFields } from "../../api/schema/common.js";
import { objectSchema } from "../../api/schema/meta.js";
import { isDns1123Label } from "../../api/validation/names.js";
import { ageColumn, defineKind, displayNameColumn, displayNameFields, nameColumn, statusField } from "../define.js";
import { keepPlatformStatusFields } from "../platform-status.js";
import { PROJECT_NAMESPACE_PREFIX } from "../project/project.js";
import { SpaceBodySchema, validateSpaceBody } from "../space-template/space-body.js";
import { ParameterValuesSchema } from "../template-parameters/parameters.js";
import { validateAccessRules } from "../validation.js";

/**
 * Held by every SpaceInstance from its creation: its delete waits until the controller has
 * removed its namespace from the cluster (docs/spaces.md). Removing it by hand drops the record
 * alone and leaves the namespace.
 */
export const SPACE_FINALIZER = "management.platform/space-cleanup";

/**
 * The Kubernetes roles an access rule of a space may bind in its namespace, weakest first: the
 * user-facing ClusterRoles every cluster has. The owner is bound to `admin`.
 */
export const SPACE_ROLES = ["view", "edit", "admin"] as const;
export type SpaceRole = (typeof SPACE_ROLES)[number];

const SpaceAccessRule = Type.Object(
  {
    ...AccessRuleSchema.properties,
    clusterRole: Type.Optional(
      Type.String({
        description:
          "The role the rule's users and teams get inside the space's namespace: view, edit or admin (a RoleBinding to that ClusterRole). Absent: none, only the verbs on this object.",
      }),
    ),
  },
  { description: "An access rule on the space, and optionally the role it gives inside the namespace." },
);

const SpaceInstanceSpec = Type.Object(
  {
    ...ownedObjectFields("Describes the space."),
    clusterRef: Type.Optional(
      Type.Object(
        {
          cluster: Type.Optional(Type.String({ description: "The connected cluster the space's namespace is on." })),
          namespace: Type.Optional(
            Type.String({ description: "The namespace on that cluster; defaults to the instance's name." }),
          ),
        },
        { description: "Where the space lives. Cannot be changed." },
      ),
    ),
    templateRef: Type.Optional(
      Type.Object(
        { name: Type.String({ description: "Name of a SpaceTemplate (needs `use` on it)." }) },
        { description: "The SpaceTemplate the space is made from." },
      ),
    ),
    parameters: Type.Optional(ParameterValuesSchema),
    template: Type.Optional(
      Type.Object(SpaceBodySchema.properties, {
        description:
          "Inline instead of templateRef: labels, annotations and objects (needs `administer` on the cluster).",
      }),
    ),
    access: Type.Optional(Type.Array(SpaceAccessRule, { description: "Access rules for users and teams." })),
  },
  { description: "SpaceInstanceSpec is the desired state of a space." },
);

const ObjectOutcome = Type.Object(
  {
    apiVersion: Type.String(),
    kind: Type.String(),
    name: Type.String(),
    applied: Type.Boolean({ description: "Whether the object is on the cluster as desired." }),
    reason: Type.Optional(Type.String({ description: "Why not, in one word." })),
    message: Type.Optional(Type.String({ description: "Why not, as the cluster said it." })),
  },
  { description: "One object the platform keeps in the space's namespace." },
);

const SpaceInstanceStatus = Type.Object(
  {
    phase: Type.Optional(Type.String({ description: "Pending, Ready, Failed or Deleting." })),
    reason: Type.Optional(Type.String()),
    message: Type.Optional(Type.String()),
    conditions: Type.Optional(ConditionsSchema),
    namespaceUID: Type.Optional(Type.String({ description: "UID of the namespace on its cluster." })),
    movedFromProjectUID: Type.Optional(
      Type.String({
        description:
          "Set by a move before the namespace's UID was recorded: the UID of the project the namespace's labels still name, by which the space knows it as its own until the UID is recorded.",
      }),
    ),
    movedFromProject: Type.Optional(
      Type.String({
        description:
          "What an earlier version of the platform recorded instead of movedFromProjectUID: the name of that project. Dropped once the UID is recorded.",
      }),
    ),
    imported: Type.Optional(
      Type.Boolean({
        description:
          "The namespace existed before the space (the importspace action): deleting the space leaves it on the cluster.",
      }),
    ),
    objects: Type.Optional(Type.Array(ObjectOutcome, { description: "The objects applied in the namespace." })),
  },
  { description: "Observed state of the space." },
);

/**
 * The status fields the space controller decides with, which only the platform's own writes set
 * (a client's status write keeps them as stored): the namespace it holds (by UID, or by the
 * labels of the project a move left), whether a delete leaves that namespace (imported), and the
 * objects it prunes.
 */
export const PLATFORM_STATUS_FIELDS = [
  "namespaceUID",
  "movedFromProjectUID",
  "movedFromProject",
  "imported",
  "objects",
] as const;

export type SpaceInstanceSpec = Static<typeof SpaceInstanceSpec>;
export type SpaceInstanceStatus = Static<typeof SpaceInstanceStatus>;
export type SpaceAccessRule = Static<typeof SpaceAccessRule>;
export type SpaceObjectOutcome = Static<typeof ObjectOutcome>;

/** The namespace a space's instance names on its cluster (defaulted on create). */
export function spaceNamespaceOf(obj: KubeObject): string {
  return specOf<SpaceInstanceSpec>(obj).clusterRef?.namespace || obj.metadata.name || "";
}

const DESCRIPTION =
  "A SpaceInstance is a namespace on a connected cluster that belongs to a project (namespace p-<project>), with its objects and access (docs/spaces.md).";

export const spaceInstanceResource = defineKind({
  kind: "SpaceInstance",
  plural: "spaceinstances",
  singular: "spaceinstance",
  shortNames: ["space"],
  namespaced: true,
  // In p-<project>, on one of the project's clusters, managed by its members.
  projectInstance: true,
  hasStatus: true,
  // The name is the default namespace name on the cluster, and a label value there.
  names: { format: "label" },
  description: DESCRIPTION,
  schema: objectSchema("SpaceInstance", DESCRIPTION, SpaceInstanceSpec, SpaceInstanceStatus),
  fieldSelectors: {
    "spec.clusterRef.cluster": (o) => specOf<SpaceInstanceSpec>(o).clusterRef?.cluster,
  },
  strategy: {
    prepareForCreate(obj) {
      const spec = (obj.spec ?? {}) as Partial<SpaceInstanceSpec>;
      if (!spec.clusterRef?.namespace && obj.metadata.name) {
        spec.clusterRef = { ...spec.clusterRef, namespace: obj.metadata.name };
      }
      obj.spec = spec;
      const finalizers = obj.metadata.finalizers ?? [];
      if (!finalizers.includes(SPACE_FINALIZER)) obj.metadata.finalizers = [...finalizers, SPACE_FINALIZER];
      return undefined;
    },
    prepareForStatusUpdate: keepPlatformStatusFields(PLATFORM_STATUS_FIELDS),
    validate: (obj) => validateSpaceInstance(obj),
    validateUpdate(obj, old) {
      const errs = validateSpaceInstance(obj);
      const now = specOf<SpaceInstanceSpec>(obj).clusterRef ?? {};
      const before = specOf<SpaceInstanceSpec>(old).clusterRef ?? {};
      for (const field of ["cluster", "namespace"] as const) {
        if (now[field] !== before[field]) {
          errs.push(fieldError("FieldValueInvalid", `spec.clusterRef.${field}`, "field is immutable", now[field]));
        }
      }
      return errs;
    },
  },
  console: {
    title: "Spaces",
    fields: [
      ...displayNameFields(),
      { path: "spec.clusterRef.cluster", label: "Cluster", type: "text" },
      { path: "spec.clusterRef.namespace", label: "Namespace on the cluster", type: "text", help: "default: the name" },
    ],
    columns: ["Cluster", "Namespace", "Phase"],
  },
  columns: [
    nameColumn(),
    {
      name: "Cluster",
      type: "string",
      description: "Connected cluster.",
      priority: 0,
      cell: (o) => specOf<SpaceInstanceSpec>(o).clusterRef?.cluster ?? "",
    },
    {
      name: "Namespace",
      type: "string",
      description: "Namespace on the cluster.",
      priority: 0,
      cell: (o) => spaceNamespaceOf(o),
    },
    {
      name: "Phase",
      type: "string",
      description: "Phase of the space.",
      priority: 0,
      cell: (o) => statusField(o, "phase") ?? "",
    },
    displayNameColumn(1),
    {
      name: "Template",
      type: "string",
      description: "The SpaceTemplate it is made from.",
      priority: 1,
      cell: (o) => specOf<SpaceInstanceSpec>(o).templateRef?.name ?? "",
    },
    ageColumn(),
  ],
});

function validateSpaceInstance(obj: KubeObject): FieldError[] {
  const spec = specOf<SpaceInstanceSpec>(obj);
  const errs = validateAccessRules(spec.access, "spec.access");
  const ns = obj.metadata.namespace ?? "";
  if (!ns.startsWith(PROJECT_NAMESPACE_PREFIX) || ns.length === PROJECT_NAMESPACE_PREFIX.length) {
    errs.push(fieldError("FieldValueInvalid", "metadata.namespace", "must be a project namespace p-<project>", ns));
  }
  if (!spec.clusterRef?.cluster) {
    errs.push(fieldError("FieldValueRequired", "spec.clusterRef.cluster", "the cluster the space is on"));
  }
  const target = spec.clusterRef?.namespace;
  if (target !== undefined && target !== "") {
    for (const msg of isDns1123Label(target)) {
      errs.push(fieldError("FieldValueInvalid", "spec.clusterRef.namespace", msg, target));
    }
  }
  if (spec.templateRef && spec.template) {
    errs.push(fieldError("FieldValueForbidden", "spec.template", "give templateRef or an inline template, not both"));
  }
  if (spec.templateRef && !spec.templateRef.name) {
    errs.push(fieldError("FieldValueRequired", "spec.templateRef.name", "the SpaceTemplate's name"));
  }
  if (!spec.templateRef && Object.keys(spec.parameters ?? {}).length > 0) {
    errs.push(fieldError("FieldValueForbidden", "spec.parameters", "parameters fill in a templateRef's template"));
  }
  errs.push(...validateSpaceBody(spec.template, "spec.template", []));
  (spec.access ?? []).forEach((rule, i) => {
    if (rule.clusterRole !== undefined && !(SPACE_ROLES as readonly string[]).includes(rule.clusterRole)) {
      errs.push(
        fieldError(
          "FieldValueNotSupported",
          `spec.access[${i}].clusterRole`,
          `supported values: ${SPACE_ROLES.map((r) => `"${r}"`).join(", ")}`,
          rule.clusterRole,
        ),
      );
    }
  });
  return errs;
}
