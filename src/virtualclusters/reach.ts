import { INGRESS_SUFFIX_ANNOTATION, VIRTUAL_CLUSTER_ENDPOINT_ANNOTATION } from "../api/endpoint-annotations.js";
import { errors } from "../api/errors.js";
import { type KubeObject, specOf } from "../api/object.js";
import type { CertificateAndKey } from "../crypto/certificates.js";
import { connect } from "../instance-actions/cluster-calls.js";
import { listHolders } from "../kinds/held-namespaces.js";
import { projectOfNamespace } from "../kinds/project/project.js";
import { clusterCaSource, namespaceStanding } from "../kinds/virtual-cluster-instance/ca-source.js";
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

/**
 * The instance's CA: kept by the platform, else read from its `<name>-certs` Secret on its
 * cluster, unless that namespace is held by a space or instance of another project (403, naming
 * neither it nor its project): an instance stored before the rule of
 * kinds/virtual-cluster-instance/ca-source.ts, or whose namespace changed hands since it was
 * admitted, reads nothing there.
 */
export async function virtualClusterCa(
  registry: Registry,
  cas: VirtualClusterCaStore,
  instance: KubeObject,
  cluster: (name: string) => KubeObject | undefined,
): Promise<CertificateAndKey> {
  const kept = await cas.forInstance(instance);
  if (kept) return kept;
  const source = clusterCaSource(instance);
  const host = source && cluster(source.cluster);
  if (!source || !host)
    throw errors.unavailable(`cluster "${source?.cluster ?? ""}" of the virtual cluster does not exist`);
  const { items } = await listHolders(registry, source.cluster);
  if (namespaceStanding(items, source, instance.metadata.namespace ?? "") === "another project's") {
    throw errors.forbidden(
      { group: "", resource: "secrets" },
      `${source.virtualCluster}-certs`,
      `virtual cluster ${source.namespace}/${source.virtualCluster} on cluster ${JSON.stringify(source.cluster)} runs in a namespace another project holds: an instance without a template reaches only a virtual cluster in a namespace of its own project`,
    );
  }
  const client = await connect(registry, host);
  return readVirtualClusterCa(client, source.cluster, source.namespace, source.virtualCluster);
}
