import type { InstanceWorkload } from "../../kinds/virtual-cluster-instance/virtual-cluster-instance-status.js";

/**
 * What the status controller found when it looked for an instance's virtual cluster, from the
 * platform's Cluster down to the workload's ready replicas (observe-instance.ts reads it,
 * instance-status.ts turns it into status). One case per place the look can stop.
 */
export type Observation =
  /** spec.clusterRef.cluster is empty: the instance is on no cluster yet. */
  | { readonly found: "NoCluster" }
  /** No Cluster of that name on the platform. */
  | { readonly found: "ClusterNotFound"; readonly cluster: string }
  /** The Cluster exists but cannot be used now: the reason (and details) as the health check words them. */
  | {
      readonly found: "ClusterUnavailable";
      readonly cluster: string;
      readonly reason: string;
      readonly message: string;
    }
  /** No Service of the virtual cluster's name labelled app=vcluster in its namespace. */
  | { readonly found: "ServiceNotFound"; readonly where: VirtualClusterPlace }
  /** A Service of that name, but not the one imported (another UID): the virtual cluster was made again. */
  | {
      readonly found: "ServiceReplaced";
      readonly where: VirtualClusterPlace;
      readonly uid: string;
      readonly imported: string;
    }
  /** The Service, and neither a StatefulSet nor a Deployment of that name. */
  | { readonly found: "WorkloadNotFound"; readonly where: VirtualClusterPlace }
  /**
   * The workload; `current` is false while its controller has not yet seen its latest spec;
   * `sleepingReplicas`, the replicas it had when the platform put it to sleep (its annotation).
   */
  | {
      readonly found: "Workload";
      readonly where: VirtualClusterPlace;
      readonly workload: InstanceWorkload;
      readonly current: boolean;
      readonly sleepingReplicas?: number;
    };

/** Where a virtual cluster is: its cluster, and its namespace and name there. */
export interface VirtualClusterPlace {
  readonly cluster: string;
  readonly namespace: string;
  readonly name: string;
}
