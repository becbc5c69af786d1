import { type Static, Type } from "@sinclair/typebox";
import { fieldError } from "../../api/errors.js";
import { specOf } from "../../api/object.js";
import { AccessRulesSchema, OwnerSchema } from "../../api/schema/common.js";
import { objectSchema } from "../../api/schema/meta.js";
import { ageColumn, defineKind, displayNameColumn, displayNameFields, nameColumn, statusField } from "../define.js";
import { PROJECT_NAMESPACE_PREFIX } from "../project/project.js";
import { validateAccessRules } from "../validation.js";
import { VirtualClusterInstanceStatusSchema } from "./virtual-cluster-instance-status.js";

const VirtualClusterInstanceSpec = Type.Object(
  {
    displayName: Type.Optional(Type.String({ description: "Name shown in the UI." })),
    description: Type.Optional(Type.String({ description: "Describes the instance." })),
    owner: Type.Optional(OwnerSchema),
    clusterRef: Type.Optional(
      Type.Object(
        {
          cluster: Type.Optional(Type.String({ description: "The connected cluster the virtual cluster runs on." })),
          namespace: Type.Optional(Type.String({ description: "Its namespace on that cluster." })),
          virtualCluster: Type.Optional(Type.String({ description: "Its name on that cluster." })),
        },
        { description: "Where the virtual cluster runs." },
      ),
    ),
    external: Type.Optional(Type.Boolean({ description: "True when the virtual cluster was imported, not created." })),
    access: Type.Optional(AccessRulesSchema),
  },
  { description: "VirtualClusterInstanceSpec is the desired state of a virtual cluster instance." },
);

/** The spec and status of a VirtualClusterInstance, as its schema admits them (the status: virtual-cluster-instance-status.ts). */
export type VirtualClusterInstanceSpec = Static<typeof VirtualClusterInstanceSpec>;
export type { VirtualClusterInstanceStatus } from "./virtual-cluster-instance-status.js";

export const virtualClusterInstanceResource = defineKind({
  kind: "VirtualClusterInstance",
  plural: "virtualclusterinstances",
  singular: "virtualclusterinstance",
  shortNames: ["vci", "vcluster"],
  namespaced: true,
  // In p-<project>, on one of the project's clusters, managed by its members.
  projectInstance: true,
  hasStatus: true,
  description: "A VirtualClusterInstance is a virtual cluster that belongs to a project (namespace p-<project>).",
  schema: objectSchema(
    "VirtualClusterInstance",
    "A VirtualClusterInstance is a virtual cluster that belongs to a project (namespace p-<project>).",
    VirtualClusterInstanceSpec,
    VirtualClusterInstanceStatusSchema,
  ),
  fieldSelectors: {
    "spec.clusterRef.cluster": (o) => specOf<VirtualClusterInstanceSpec>(o).clusterRef?.cluster,
  },
  strategy: {
    validate(obj) {
      const errs = validateAccessRules(obj.spec?.access, "spec.access");
      const ns = obj.metadata.namespace ?? "";
      if (!ns.startsWith(PROJECT_NAMESPACE_PREFIX) || ns.length === PROJECT_NAMESPACE_PREFIX.length) {
        errs.push(fieldError("FieldValueInvalid", "metadata.namespace", "must be a project namespace p-<project>", ns));
      }
      return errs;
    },
  },
  console: {
    title: "Virtual clusters",
    fields: [
      ...displayNameFields(),
      { path: "spec.clusterRef.cluster", label: "Cluster", type: "text" },
      { path: "spec.clusterRef.namespace", label: "Namespace on the cluster", type: "text" },
    ],
    columns: ["Cluster", "Phase"],
  },
  columns: [
    nameColumn(),
    {
      name: "Cluster",
      type: "string",
      description: "Connected cluster.",
      priority: 0,
      cell: (o) => specOf<VirtualClusterInstanceSpec>(o).clusterRef?.cluster ?? "",
    },
    {
      name: "Phase",
      type: "string",
      description: "Phase of the instance.",
      priority: 0,
      cell: (o) => statusField(o, "phase") ?? "",
    },
    displayNameColumn(1),
    {
      name: "External",
      type: "boolean",
      description: "Imported rather than created.",
      priority: 1,
      cell: (o) => o.spec?.external === true,
    },
    ageColumn(),
  ],
});
