import { type Static, Type } from "@sinclair/typebox";
import { fieldError } from "../../api/errors.js";
import { specOf } from "../../api/object.js";
import { AccessRulesSchema, ownedObjectFields } from "../../api/schema/common.js";
import { objectSchema } from "../../api/schema/meta.js";
import { ageColumn, defineKind, displayNameColumn, displayNameFields, nameColumn, statusField } from "../define.js";
import { validateAccessRules } from "../validation.js";
import { grantsCell } from "./grants-cell.js";

const ClusterSpec = Type.Object(
  {
    ...ownedObjectFields("Describes the cluster access object.", "Shown in the UI instead of the metadata name."),
    config: Type.Optional(
      Type.Object(
        {
          secretName: Type.Optional(Type.String({ description: "Name of the shared secret holding the kube config." })),
          secretNamespace: Type.Optional(
            Type.String({ description: "Namespace of that shared secret (default platform)." }),
          ),
        },
        { description: "The shared secret whose data key `config` holds the kube config used to reach the cluster." },
      ),
    ),
    local: Type.Optional(Type.Boolean({ description: "True selects the cluster the platform itself runs in." })),
    managementNamespace: Type.Optional(
      Type.String({ description: "Namespace where the cluster components are installed." }),
    ),
    access: Type.Optional(AccessRulesSchema),
  },
  { description: "ClusterSpec is the desired state of a connected cluster." },
);

const ClusterGrantStatus = Type.Object(
  {
    kind: Type.String({ description: "ClusterRole, ClusterRoleBinding or RoleBinding." }),
    name: Type.String({ description: "Its name on the cluster." }),
    namespace: Type.Optional(Type.String({ description: "Its namespace (RoleBindings)." })),
    clusterRoleTemplate: Type.String({ description: "The ClusterRoleTemplate it comes from or binds." }),
    clusterAccess: Type.Optional(Type.String({ description: "The ClusterAccess it grants (bindings)." })),
    applied: Type.Boolean({ description: "Whether the cluster holds it as written." }),
    reason: Type.Optional(Type.String({ description: "Why it is not applied." })),
    message: Type.Optional(Type.String({ description: "Detail of the failure." })),
    check: Type.Optional(
      Type.String({
        description:
          "Set when the entry is no object but a check of the platform's that failed: List, the list of its objects of this kind, which finds those no grant wants any more (the entry has no template).",
      }),
    ),
  },
  {
    description:
      "One object the platform keeps on the cluster for access inside it, or a check of its own that failed (check).",
  },
);

const ClusterStatus = Type.Object(
  {
    phase: Type.Optional(Type.String({ description: "Empty while initializing, then Initialized or Failed." })),
    reason: Type.Optional(Type.String({ description: "Machine-readable reason of the phase." })),
    message: Type.Optional(Type.String({ description: "Human-readable detail of the phase." })),
    online: Type.Optional(Type.Boolean({ description: "Whether the last check reached the cluster." })),
    grants: Type.Optional(
      Type.Array(ClusterGrantStatus, {
        description: "The ClusterRoles and bindings ClusterRoleTemplates and ClusterAccesses keep on this cluster.",
      }),
    ),
  },
  { description: "ClusterStatus is the observed state of a connected cluster." },
);

/** The spec and status of a Cluster, as its schema admits them. */
export type ClusterSpec = Static<typeof ClusterSpec>;
export type ClusterStatus = Static<typeof ClusterStatus>;
export type ClusterGrantStatus = Static<typeof ClusterGrantStatus>;
export { LIST_CHECK } from "./grants-cell.js";

export const clusterResource = defineKind({
  kind: "Cluster",
  plural: "clusters",
  singular: "cluster",
  shortNames: ["cl"],
  namespaced: false,
  hasStatus: true,
  description: "A Cluster is a connected Kubernetes cluster users and teams can be given access to.",
  schema: objectSchema(
    "Cluster",
    "A Cluster is a connected Kubernetes cluster users and teams can be given access to.",
    ClusterSpec,
    ClusterStatus,
  ),
  strategy: {
    validate(obj) {
      const spec = specOf<ClusterSpec>(obj);
      const errs = validateAccessRules(spec.access, "spec.access");
      if (spec.local !== true && !spec.config?.secretName) {
        errs.push(
          fieldError(
            "FieldValueRequired",
            "spec.config.secretName",
            "a config secret is required unless spec.local is true",
          ),
        );
      }
      return errs;
    },
  },
  console: {
    title: "Clusters",
    fields: [
      ...displayNameFields(),
      { path: "spec.config.secretName", label: "Kube config shared secret", type: "text" },
      { path: "spec.config.secretNamespace", label: "Its namespace", type: "text", help: "default: platform" },
      {
        path: "metadata.annotations",
        annotation: "management.platform/ingress-suffix",
        label: "Ingress suffix for virtual clusters",
        type: "text",
        help: "kube config downloads of its virtual clusters point at https://INSTANCE.PROJECT.SUFFIX (needed for them)",
      },
      {
        path: "metadata.annotations",
        annotation: "management.platform/direct-cluster-endpoint",
        label: "Agent URL (optional)",
        type: "text",
        help: "where `platform agent` beside the cluster listens, for direct connections",
      },
    ],
    columns: ["Phase", "Reason"],
  },
  columns: [
    nameColumn(),
    displayNameColumn(),
    {
      name: "Phase",
      type: "string",
      description: "Connection phase.",
      priority: 0,
      cell: (o) => statusField(o, "phase") ?? "",
    },
    {
      name: "Online",
      type: "boolean",
      description: "Whether the cluster answered.",
      priority: 0,
      cell: (o) => statusField(o, "online") === true,
    },
    {
      name: "Grants",
      type: "string",
      description:
        "Access objects applied on the cluster, of those it should hold; then the platform's own checks that failed (a list it could not make).",
      priority: 1,
      cell: (o) => grantsCell(statusField(o, "grants") as ClusterGrantStatus[] | undefined),
    },
    {
      name: "Reason",
      type: "string",
      description: "Reason of the phase.",
      priority: 1,
      cell: (o) => statusField(o, "reason") ?? "",
    },
    ageColumn(),
  ],
});
