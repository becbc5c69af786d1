import type { AppsV1Api } from "@kubernetes/client-node";
import { type KubeObject, specOf, statusOf } from "../../api/object.js";
import {
  type ClusterClient,
  ClusterConnectionError,
  classifyError,
  clusterClient,
  withDeadline,
} from "../../clusters/cluster-connection.js";
import type { EndpointPolicy } from "../../clusters/endpoint-policy.js";
import type { VirtualClusterInstanceSpec } from "../../kinds/virtual-cluster-instance/virtual-cluster-instance.js";
import type {
  InstanceWorkload,
  VirtualClusterInstanceStatus,
} from "../../kinds/virtual-cluster-instance/virtual-cluster-instance-status.js";
import type { Registry } from "../../registry/registry.js";
import type { Observation, VirtualClusterPlace } from "./observation.js";
import { sleepingReplicasOf } from "./sleep-scaling.js";

/**
 * Looks for an instance's virtual cluster, as docs/clusters.md describes it: its Cluster on the
 * platform, then on that cluster the Service named like the virtual cluster and labelled
 * app=vcluster in its namespace (for an imported instance, the very Service imported: the same
 * UID), then the StatefulSet or, failing one, the Deployment of that name, whose status its own
 * controller keeps. Never throws: every way it can stop is an Observation.
 */
export async function observeInstance(
  registry: Registry,
  instance: KubeObject,
  endpoints: EndpointPolicy,
  timeoutMs: number,
): Promise<Observation> {
  const ref = specOf<VirtualClusterInstanceSpec>(instance).clusterRef ?? {};
  if (!ref.cluster) return { found: "NoCluster" };
  const cluster = await registry.store("clusters").read(undefined, ref.cluster);
  if (!cluster) return { found: "ClusterNotFound", cluster: ref.cluster };
  const where: VirtualClusterPlace = {
    cluster: ref.cluster,
    // The same defaults as the kube config action's (src/virtualclusters/actions.ts).
    namespace: ref.namespace || instance.metadata.namespace!,
    name: ref.virtualCluster || instance.metadata.name!,
  };
  let server = "";
  try {
    const client = await clusterClient(registry, cluster, endpoints);
    server = client.server;
    const imported = statusOf<VirtualClusterInstanceStatus>(instance).serviceUID;
    return await observeOnCluster(client, where, imported, timeoutMs);
  } catch (err) {
    const e = err instanceof ClusterConnectionError ? err : classifyError(err, server);
    return { found: "ClusterUnavailable", cluster: ref.cluster, reason: e.reason, message: e.message };
  }
}

async function observeOnCluster(
  client: ClusterClient,
  where: VirtualClusterPlace,
  imported: string | undefined,
  timeoutMs: number,
): Promise<Observation> {
  const call = <T>(p: Promise<T>) => withDeadline(p, timeoutMs, client.server);
  const services = await call(
    client.core.listNamespacedService({
      namespace: where.namespace,
      labelSelector: "app=vcluster",
      fieldSelector: `metadata.name=${where.name}`,
    }),
  );
  // Checked by name too, for a server that ignores the field selector.
  const service = services.items.find((s) => s.metadata?.name === where.name);
  if (!service) return { found: "ServiceNotFound", where };
  const uid = service.metadata?.uid ?? "";
  if (imported && uid !== imported) return { found: "ServiceReplaced", where, uid, imported };

  const { AppsV1Api } = await import("@kubernetes/client-node");
  const apps: AppsV1Api = client.kubeConfig.makeApiClient(AppsV1Api);
  const name = where.name;
  const namespace = where.namespace;
  const statefulSet = await absentOn404(call(apps.readNamespacedStatefulSet({ name, namespace })));
  const deployment = statefulSet
    ? undefined
    : await absentOn404(call(apps.readNamespacedDeployment({ name, namespace })));
  const workload = statefulSet ?? deployment;
  if (!workload) return { found: "WorkloadNotFound", where };
  return {
    found: "Workload",
    where,
    workload: {
      kind: statefulSet ? "StatefulSet" : "Deployment",
      name,
      // Absent in the spec means one, as the API server's defaulting has it.
      replicas: workload.spec?.replicas ?? 1,
      readyReplicas: workload.status?.readyReplicas ?? 0,
    } satisfies InstanceWorkload,
    current: (workload.status?.observedGeneration ?? 0) >= (workload.metadata?.generation ?? 0),
    sleepingReplicas: sleepingReplicasOf(workload.metadata?.annotations),
  };
}

async function absentOn404<T>(p: Promise<T>): Promise<T | undefined> {
  try {
    return await p;
  } catch (err) {
    if ((err as { code?: unknown }).code === 404) return undefined;
    throw err;
  }
}
