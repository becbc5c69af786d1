import type { AppsV1Api } from "@kubernetes/client-node";
import type { KubeObject } from "../../api/object.js";
import { clusterClient, withDeadline } from "../../clusters/cluster-connection.js";
import type { EndpointPolicy } from "../../clusters/endpoint-policy.js";
import type { InstanceWorkload } from "../../kinds/virtual-cluster-instance/virtual-cluster-instance-status.js";
import type { Registry } from "../../registry/registry.js";
import type { VirtualClusterPlace } from "./observation.js";

/**
 * Putting a virtual cluster's workload to sleep and waking it (docs/virtual-clusters.md, "Sleep
 * mode"). The replicas it had are kept in an annotation on the workload itself, written in the
 * same patch that scales it to zero: the cluster holds the number it will get back, so no crash
 * between two writes can lose it, and a workload scaled to zero by someone else (no annotation)
 * is never "woken" by the platform.
 */
export const SLEEPING_REPLICAS_ANNOTATION = "management.platform/sleeping-replicas";

/** The replicas recorded when the platform put the workload to sleep, if it did. */
export function sleepingReplicasOf(annotations: Record<string, string> | undefined): number | undefined {
  const value = annotations?.[SLEEPING_REPLICAS_ANNOTATION];
  if (value === undefined || !/^\d+$/.test(value)) return undefined;
  return Number(value);
}

/**
 * Scales the workload to zero, remembering its replicas (`asleep`), or back to the replicas it
 * had, forgetting them. One merge patch of the workload (`patch` on statefulsets or deployments).
 */
export async function scaleForSleep(
  registry: Registry,
  cluster: KubeObject,
  endpoints: EndpointPolicy,
  where: VirtualClusterPlace,
  workload: InstanceWorkload,
  change: { readonly asleep: true } | { readonly asleep: false; readonly replicas: number },
  timeoutMs: number,
): Promise<void> {
  const client = await clusterClient(registry, cluster, endpoints);
  const body = change.asleep
    ? {
        metadata: { annotations: { [SLEEPING_REPLICAS_ANNOTATION]: String(workload.replicas) } },
        spec: { replicas: 0 },
      }
    : { metadata: { annotations: { [SLEEPING_REPLICAS_ANNOTATION]: null } }, spec: { replicas: change.replicas } };
  const { AppsV1Api, PatchStrategy, setHeaderOptions } = await import("@kubernetes/client-node");
  const apps: AppsV1Api = client.kubeConfig.makeApiClient(AppsV1Api);
  const request = { name: where.name, namespace: where.namespace, body };
  const asMergePatch = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);
  const patched =
    workload.kind === "StatefulSet"
      ? apps.patchNamespacedStatefulSet(request, asMergePatch)
      : apps.patchNamespacedDeployment(request, asMergePatch);
  await withDeadline(patched, timeoutMs, client.server);
}
