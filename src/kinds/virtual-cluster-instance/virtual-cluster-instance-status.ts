import { type Static, Type } from "@sinclair/typebox";
import { ConditionsSchema } from "../../api/schema/common.js";

/**
 * The status of a VirtualClusterInstance: what the platform observed of it on its cluster
 * (docs/clusters.md, "Instance status"). Written by the status controller
 * (src/controllers/virtual-cluster-status/) and, once, by import and by create (`caID`). A
 * client's status write may change only the observation (phase, reason, message, conditions,
 * workload), which the controller writes again: virtual-cluster-instance.ts refuses a change of
 * `serviceUID` or `caID` and keeps PLATFORM_STATUS_FIELDS as stored.
 */

/** The phases an instance is in. Deploying, Sleeping and Deleting are written by the lifecycle to come. */
export const INSTANCE_PHASES = ["Pending", "Deploying", "Ready", "Sleeping", "Failed", "Deleting"] as const;
export type InstancePhase = (typeof INSTANCE_PHASES)[number];

/** The condition types the status controller keeps. */
export const CONDITION_CLUSTER_REACHABLE = "ClusterReachable";
export const CONDITION_READY = "Ready";

const InstanceWorkloadSchema = Type.Object(
  {
    kind: Type.String({ description: "StatefulSet or Deployment." }),
    name: Type.String({ description: "Its name, in the virtual cluster's namespace on the cluster." }),
    replicas: Type.Integer({ description: "Replicas its spec asks for." }),
    readyReplicas: Type.Integer({ description: "Replicas its controller counts as ready." }),
  },
  { description: "The workload running the virtual cluster, as last read from the cluster." },
);

const InsideBindingSchema = Type.Object(
  {
    name: Type.String({ description: "The ClusterRoleBinding inside the virtual cluster." }),
    clusterRole: Type.String({ description: "The ClusterRole it binds." }),
    subjects: Type.Array(Type.String(), { description: "Who it binds: User/<name> and Group/<name>." }),
    applied: Type.Boolean({ description: "Whether it is in the virtual cluster as desired." }),
    reason: Type.Optional(Type.String({ description: "Why not, one CamelCase word." })),
    message: Type.Optional(Type.String({ description: "The details, with the virtual cluster's own message." })),
  },
  { description: "One binding the platform keeps inside the virtual cluster." },
);

const InstanceSleepSchema = Type.Object(
  {
    since: Type.String({ description: "When the platform decided to put it to sleep." }),
    reason: Type.String({ description: "Idle (spec.sleepAfter passed) or Requested (the sleep action)." }),
  },
  {
    description:
      "Present while the instance is meant to sleep: its workload is scaled to zero until a wake-up (the wakeup action, or a request through the gateway).",
  },
);

const DeployedSchema = Type.Object(
  {
    template: Type.String({ description: "The VirtualClusterTemplate deployed (empty for an inline template)." }),
    version: Type.String({ description: "Its version deployed (empty for an inline template)." }),
    parameters: Type.Record(Type.String(), Type.String(), { description: "The parameter values deployed." }),
    objects: Type.Array(Type.Object({ apiVersion: Type.String(), kind: Type.String(), name: Type.String() }), {
      description: "The objects deployed in the instance's namespace (the platform removes them with the instance).",
    }),
  },
  { description: "What the platform last deployed successfully for a deployed instance." },
);

export const VirtualClusterInstanceStatusSchema = Type.Object(
  {
    phase: Type.Optional(Type.String({ description: `${INSTANCE_PHASES.join(", ")}.` })),
    reason: Type.Optional(Type.String({ description: "Why the instance is in its phase, one CamelCase word." })),
    message: Type.Optional(Type.String({ description: "The details, with the cluster's own message." })),
    serviceUID: Type.Optional(Type.String({ description: "UID of the virtual cluster's service on its cluster." })),
    caID: Type.Optional(
      Type.String({
        description:
          "Which certificate authority the platform made for this instance when it was created (set once by the platform; docs/virtual-clusters.md).",
      }),
    ),
    conditions: Type.Optional(ConditionsSchema),
    workload: Type.Optional(InstanceWorkloadSchema),
    access: Type.Optional(
      Type.Array(InsideBindingSchema, {
        description:
          "The rights the platform keeps inside the virtual cluster (docs/virtual-clusters.md), as last applied; written by the access controller only.",
      }),
    ),
    lastActivity: Type.Optional(
      Type.String({ description: "The last request through the gateway (recorded in batches), or the last wake-up." }),
    ),
    sleep: Type.Optional(InstanceSleepSchema),
    deployed: Type.Optional(DeployedSchema),
    namespaceUID: Type.Optional(
      Type.String({
        description:
          "UID of the namespace the platform deployed the instance into on its cluster: how the instance knows that namespace is its own after a move to another project.",
      }),
    ),
    movedFromProjectUID: Type.Optional(
      Type.String({
        description:
          "Set by a move before namespaceUID was recorded: the UID of the project the namespace's labels still name, by which the instance knows it as its own until a deploy records its UID.",
      }),
    ),
    movedFromProject: Type.Optional(
      Type.String({
        description:
          "What an earlier version of the platform recorded instead of movedFromProjectUID: the name of that project. Dropped once a deploy records namespaceUID.",
      }),
    ),
  },
  { description: "Observed state of the instance." },
);

/**
 * The fields the platform decides with, which only its own writes set: what it deployed (and so
 * prunes), the namespace it holds (by UID, or by the labels of the project a move left), when the
 * instance sleeps, and the rights it wrote inside.
 */
export const PLATFORM_STATUS_FIELDS = [
  "deployed",
  "namespaceUID",
  "movedFromProjectUID",
  "movedFromProject",
  "sleep",
  "lastActivity",
  "access",
] as const;

export type VirtualClusterInstanceStatus = Static<typeof VirtualClusterInstanceStatusSchema>;
export type InsideBinding = Static<typeof InsideBindingSchema>;
export type InstanceWorkload = Static<typeof InstanceWorkloadSchema>;
export type InstanceDeployed = Static<typeof DeployedSchema>;
export type InstanceSleep = Static<typeof InstanceSleepSchema>;
export type InstanceCondition = NonNullable<VirtualClusterInstanceStatus["conditions"]>[number];
