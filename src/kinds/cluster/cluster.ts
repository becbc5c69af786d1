import { type Static, Type } from "@sinclair/typebox";
import { fieldError } from "../../api/errors.js";
import { specOf } from "../../api/object.js";
import { AccessRulesSchema, OwnerSchema } from "../../api/schema/common.js";
import { objectSchema } from "../../api/schema/meta.js";
import { ageColumn, defineKind, displayNameColumn, nameColumn, statusField } from "../define.js";
import { validateAccessRules } from "../validation.js";

const ClusterSpec = Type.Object(
  {
    displayName: Type.Optional(Type.String({ description: "Shown in the UI instead of the metadata name." })),
    description: Type.Optional(Type.String({ description: "Describes the cluster access object." })),
    owner: Type.Optional(OwnerSchema),
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

const ClusterStatus = Type.Object(
  {
    phase: Type.Optional(Type.String({ description: "Empty while initializing, then Initialized or Failed." })),
    reason: Type.Optional(Type.String({ description: "Machine-readable reason of the phase." })),
    message: Type.Optional(Type.String({ description: "Human-readable detail of the phase." })),
    online: Type.Optional(Type.Boolean({ description: "Whether the last check reached the cluster." })),
  },
  { description: "ClusterStatus is the observed state of a connected cluster." },
);

/** The spec and status of a Cluster, as its schema admits them. */
export type ClusterSpec = Static<typeof ClusterSpec>;
export type ClusterStatus = Static<typeof ClusterStatus>;

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
      name: "Reason",
      type: "string",
      description: "Reason of the phase.",
      priority: 1,
      cell: (o) => statusField(o, "reason") ?? "",
    },
    ageColumn(),
  ],
});
