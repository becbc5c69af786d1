import { INGRESS_SUFFIX_ANNOTATION, VIRTUAL_CLUSTER_ENDPOINT_ANNOTATION } from "../api/endpoint-annotations.js";
import { errors } from "../api/errors.js";
import { type KubeObject, specOf } from "../api/object.js";
import type { CertificateAndKey } from "../crypto/certificates.js";
import { connect } from "../instance-actions/cluster-calls.js";
import { projectOfNamespace } from "../kinds/project/project.js";
import type { VirtualClusterInstanceSpec } from "../kinds/virtual-cluster-instance/virtual-cluster-instance.js";
import type { Registry } from "../registry/registry.js";
import type { VirtualClusterCaStore } from "./ca-store.js";
import { ingressEndpoint } from "./ingress-host.js";
import { readVirtualClusterCa } from "./remote.js";

/**
 * How the platform reaches a virtual cluster's API server (the gateway for its users, the access
 * controller for itself): at its endpoint, trusting and signing with its CA.
 */

/**
 * Why a virtual cluster could not be reached, as the gateway tells its users: its name and the
 * reason only. Its endpoint (the instance's annotation, or its cluster's ingress suffix) and the
 * server's own words are for those who may read the instance and its cluster, not for every
 * caller who may `use` it.
 */
export function virtualClusterCannotBeUsed(namespace: string, name: string, reason: string): string {
  return `virtual cluster ${namespace}/${name} cannot be used (${reason})`;
}

/** The instance's API endpoint: its annotation, else `https://<name>.<project>.<cluster's ingress suffix>`; 503 if neither. */
export function virtualClusterEndpoint(
  instance: KubeObject,
  cluster: (name: string) => KubeObject | undefined,
): string {
  const found = findVirtualClusterEndpoint(instance, cluster);
  if ("missing" in found) throw errors.unavailable(found.missing);
  return found.endpoint;
}

/**
 * The instance's API endpoint, or, when neither the instance's annotation nor its cluster's
 * ingress suffix is set, what is missing and how to set it (the access controller says it as a
 * reason of its own, the gateway as a 503).
 */
export function findVirtualClusterEndpoint(
  instance: KubeObject,
  cluster: (name: string) => KubeObject | undefined,
): { endpoint: string } | { missing: string } {
  const recorded = instance.metadata.annotations?.[VIRTUAL_CLUSTER_ENDPOINT_ANNOTATION];
  if (recorded) return { endpoint: recorded };
  const name = instance.metadata.name!;
  const project = projectOfNamespace(instance.metadata.namespace) ?? instance.metadata.namespace ?? "";
  const clusterName = specOf<VirtualClusterInstanceSpec>(instance).clusterRef?.cluster ?? "";
  const suffix = cluster(clusterName)?.metadata.annotations?.[INGRESS_SUFFIX_ANNOTATION];
  if (suffix) return { endpoint: ingressEndpoint(name, project, suffix) };
  return {
    missing: `virtual cluster ${instance.metadata.namespace}/${name} has no endpoint: set annotation ${VIRTUAL_CLUSTER_ENDPOINT_ANNOTATION} on it to the URL of its API server, or ${INGRESS_SUFFIX_ANNOTATION} on cluster "${clusterName}" (its endpoint is then ${ingressEndpoint(name, project, "<suffix>")}); neither is set`,
  };
}

/** The instance's CA: kept by the platform, else read from its `<name>-certs` Secret on its cluster. */
export async function virtualClusterCa(
  registry: Registry,
  cas: VirtualClusterCaStore,
  instance: KubeObject,
  cluster: (name: string) => KubeObject | undefined,
): Promise<CertificateAndKey> {
  const kept = await cas.forInstance(instance);
  if (kept) return kept;
  const ref = specOf<VirtualClusterInstanceSpec>(instance).clusterRef ?? {};
  const host = cluster(ref.cluster ?? "");
  if (!host) throw errors.unavailable(`cluster "${ref.cluster ?? ""}" of the virtual cluster does not exist`);
  const client = await connect(registry, host);
  return readVirtualClusterCa(
    client,
    ref.cluster!,
    ref.namespace ?? instance.metadata.namespace!,
    ref.virtualCluster ?? instance.metadata.name!,
  );
}
