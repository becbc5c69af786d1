import { type KubeObject, specOf, statusOf } from "../../api/object.js";
import { claimId, type Holder, heldNamespace } from "../held-namespaces.js";
import type { SpaceInstanceStatus } from "../space-instance/space-instance.js";
import { isDeployed } from "./template-fields.js";
import type { VirtualClusterInstanceSpec } from "./virtual-cluster-instance.js";
import type { VirtualClusterInstanceStatus } from "./virtual-cluster-instance-status.js";

/**
 * Whose virtual cluster an instance without a template may stand for (docs/virtual-clusters.md,
 * "Instances without a template"). Such an instance keeps no CA of its own: the platform reads the
 * CA of the virtual cluster `spec.clusterRef` names from the cluster, with the cluster's
 * credentials, and signs its users' certificates with it (its owner is cluster-admin inside). So
 * pointing one at a virtual cluster hands out what the platform's credentials reach, and is
 * allowed only where the instance's project already holds that much:
 * - a namespace held by a space or deployed instance of another project is never read from, by
 *   anyone (an administrator imports instead, which keeps the CA once);
 * - a namespace a space of the instance's own project holds, and the platform made or imported
 *   for it (its status records the namespace's UID), is the project's own: any member may;
 * - any other namespace (made by hand, held by nobody on the platform) needs `administer` on the
 *   cluster, the right an import needs.
 * Admission asks it of every write that points an instance somewhere new
 * (src/admission/virtual-cluster-ca-source.ts); each CA read asks the first question again
 * (src/virtualclusters/reach.ts), so a namespace that changed hands since is not read.
 */

/** Where an instance's CA is read from: the `<virtualCluster>-certs` Secret in `namespace` on `cluster`. */
export interface CaSource {
  cluster: string;
  namespace: string;
  virtualCluster: string;
}

/** How the namespace of a CA source stands towards the instance's project. */
export type NamespaceStanding = "another project's" | "its project's space" | "nobody's on the platform";

/** Whether the platform keeps the instance's CA (made at create, or kept at import): it then reads none from the cluster. */
export function keepsCa(obj: KubeObject): boolean {
  const status = statusOf<VirtualClusterInstanceStatus>(obj);
  return Boolean(status.caID || status.serviceUID);
}

/**
 * Where the CA of an instance without a template is read from; undefined for an instance deployed
 * from a template, one whose CA the platform keeps, or one that names no cluster (nothing is read).
 * The namespace defaults to the instance's own and the virtual cluster to its name, as the read does.
 */
export function caSourceOf(obj: KubeObject): CaSource | undefined {
  if (isDeployed(obj) || keepsCa(obj)) return undefined;
  return clusterCaSource(obj);
}

/** Where the CA is read from when the platform keeps none, for any instance that names a cluster. */
export function clusterCaSource(obj: KubeObject): CaSource | undefined {
  const ref = specOf<VirtualClusterInstanceSpec>(obj).clusterRef ?? {};
  if (!ref.cluster) return undefined;
  return {
    cluster: ref.cluster,
    namespace: ref.namespace ?? obj.metadata.namespace ?? "",
    virtualCluster: ref.virtualCluster ?? obj.metadata.name ?? "",
  };
}

/**
 * How `source`'s namespace stands towards the project whose namespace (`p-<project>`) is
 * `projectNamespace`, by `holders`, the spaces and instances stored on its cluster
 * (held-namespaces.ts listHolders). Another project's holder outweighs a space of its own (two
 * holders of one namespace stored before the one-holder rule).
 */
export function namespaceStanding(
  holders: readonly Holder[],
  source: CaSource,
  projectNamespace: string,
): NamespaceStanding {
  const id = claimId(source);
  const holding = holders.filter((h) => {
    const held = heldNamespace(h.resource, h.object);
    return held !== undefined && claimId(held) === id;
  });
  if (holding.some((h) => h.object.metadata.namespace !== projectNamespace)) return "another project's";
  if (holding.some(isOwnedSpace)) return "its project's space";
  return "nobody's on the platform";
}

/**
 * A space whose namespace the platform made or imported for it: only then does its status record
 * the namespace's UID (a client cannot write it), so a space that merely names a namespace someone
 * made by hand, and is Failed NamespaceNotOwned, makes nobody its holder.
 */
function isOwnedSpace(h: Holder): boolean {
  return h.resource === "spaceinstances" && Boolean(statusOf<SpaceInstanceStatus>(h.object).namespaceUID);
}
