import { type KubeObject, specOf, statusOf } from "../../api/object.js";
import type { ClusterStatus } from "../../kinds/cluster/cluster.js";
import type { VirtualClusterInstanceSpec } from "../../kinds/virtual-cluster-instance/virtual-cluster-instance.js";
import type { VirtualClusterInstanceStatus } from "../../kinds/virtual-cluster-instance/virtual-cluster-instance-status.js";
import type { Informer, InformerEvent } from "../../registry/informer.js";
import { redeployedByTemplateChange } from "./template-changes.js";

/** The informers the virtual-cluster status controller reads. */
export interface InstanceInformers {
  instances: Informer;
  clusters: Informer;
  templates: Informer;
}

/**
 * The events that queue an instance for the status controller (its `namespace/name`), as
 * handlers on the informers; returns their removals. An instance: created, its spec changed
 * (generation), its delete begun, or put to sleep or woken (status.sleep, written by the sleep
 * and wakeup actions and the gateway); never the controller's own status writes, which would
 * queue it again forever. A Cluster: created, deleted, its spec changed or back online, for the
 * instances on it. A VirtualClusterTemplate: the instances whose version it changes
 * (template-changes.ts).
 */
export function subscribeInstanceTriggers(
  informers: InstanceInformers,
  queue: { add(key: string): void },
): Array<() => void> {
  const { instances, clusters, templates } = informers;
  const queueWhere = (match: (instance: KubeObject) => boolean) => {
    for (const instance of instances.list()) if (match(instance)) queue.add(instanceKey(instance));
  };
  return [
    instances.onChange((e) => {
      if (instanceChangeMatters(e)) queue.add(instanceKey(e.object));
    }),
    clusters.onChange((e) => {
      if (!clusterChangeMatters(e)) return;
      const name = e.object.metadata.name;
      queueWhere((instance) => specOf<VirtualClusterInstanceSpec>(instance).clusterRef?.cluster === name);
    }),
    templates.onChange((e) => {
      const [before, after] = e.type === "delete" ? [e.object, undefined] : [e.old, e.object];
      queueWhere((instance) => redeployedByTemplateChange(instance, before, after));
    }),
  ];
}

function instanceKey(instance: KubeObject): string {
  return `${instance.metadata.namespace}/${instance.metadata.name}`;
}

function instanceChangeMatters(e: InformerEvent): boolean {
  if (e.type !== "upsert") return false;
  const { old, object } = e;
  return (
    !old ||
    old.metadata.generation !== object.metadata.generation ||
    old.metadata.deletionTimestamp !== object.metadata.deletionTimestamp ||
    isAsleep(old) !== isAsleep(object)
  );
}

/** A Cluster created or deleted, its spec changed, or back online: its instances may look different. */
function clusterChangeMatters(e: InformerEvent): boolean {
  if (e.type === "delete" || !e.old) return true;
  if (e.old.metadata.generation !== e.object.metadata.generation) return true;
  return statusOf<ClusterStatus>(e.object).online === true && statusOf<ClusterStatus>(e.old).online !== true;
}

function isAsleep(instance: KubeObject): boolean {
  return statusOf<VirtualClusterInstanceStatus>(instance).sleep !== undefined;
}
