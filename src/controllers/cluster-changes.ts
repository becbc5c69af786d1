import { statusOf } from "../api/object.js";
import type { ClusterStatus } from "../kinds/cluster/cluster.js";
import type { InformerEvent } from "../registry/informer.js";

/**
 * Whether a Cluster's change may change what a controller finds on it: the Cluster created or
 * deleted, its spec changed (generation), or back online. Its status writes otherwise (the
 * health check's, cluster access's grants) change nothing there.
 */
export function clusterChangeMatters(e: InformerEvent): boolean {
  if (e.type === "delete" || !e.old) return true;
  if (e.old.metadata.generation !== e.object.metadata.generation) return true;
  return statusOf<ClusterStatus>(e.object).online === true && statusOf<ClusterStatus>(e.old).online !== true;
}
