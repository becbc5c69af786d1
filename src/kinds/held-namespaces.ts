import { type KubeObject, specOf } from "../api/object.js";
import type { Registry } from "../registry/registry.js";
import { systemContext } from "../registry/request-context.js";
import { spaceNamespaceOf } from "./space-instance/space-instance.js";
import { isDeployed } from "./virtual-cluster-instance/template-fields.js";

/**
 * Which namespace on which connected cluster a space or a virtual cluster instance holds: one
 * namespace on one cluster belongs to one of them (docs/spaces.md, "One namespace, one holder").
 * Admission refuses a second holder (src/admission/namespace-claims.ts); the guard keys it writes,
 * one per cluster and namespace, live in the kept key space named here.
 */

/** The kept key space of the namespace claims' guard keys: one entry per `<cluster>/<namespace>`. */
export const NAMESPACE_CLAIM_GUARDS = "namespace-claim-guards";

/** The resources whose objects hold a namespace on a cluster. */
export const HOLDING_RESOURCES = ["spaceinstances", "virtualclusterinstances"] as const;

/** A namespace on a connected cluster, by the cluster's name on the platform. */
export interface HeldNamespace {
  cluster: string;
  namespace: string;
}

interface ClusterRef {
  clusterRef?: { cluster?: string; namespace?: string };
}

/**
 * The namespace `obj` holds, or undefined when it holds none: the namespace the platform keeps
 * for it, which the controllers judge by the one rule of src/controllers/spaces/namespace-claim.ts.
 * A space holds the namespace its spec names, by default its own name (set on create). A virtual
 * cluster instance deployed from a template holds `spec.clusterRef.namespace`, by default
 * `p-<project>-v-<name>` (set on create). An imported one holds none: it names a virtual cluster
 * someone else runs, and one namespace may run several.
 */
export function heldNamespace(resource: string, obj: KubeObject): HeldNamespace | undefined {
  const ref = specOf<ClusterRef>(obj).clusterRef;
  if (!ref?.cluster) return undefined;
  if (resource === "spaceinstances") {
    const namespace = spaceNamespaceOf(obj);
    return namespace ? { cluster: ref.cluster, namespace } : undefined;
  }
  if (resource === "virtualclusterinstances" && isDeployed(obj) && ref.namespace) {
    return { cluster: ref.cluster, namespace: ref.namespace };
  }
  return undefined;
}

/** The id of a namespace's guard key: `<cluster>/<namespace>` (neither name holds a slash). */
export function claimId(held: HeldNamespace): string {
  return `${held.cluster}/${held.namespace}`;
}

/** The namespace a guard key's id names; undefined for an id that names none. */
export function heldNamespaceOfId(id: string): HeldNamespace | undefined {
  const slash = id.indexOf("/");
  if (slash <= 0 || slash === id.length - 1) return undefined;
  return { cluster: id.slice(0, slash), namespace: id.slice(slash + 1) };
}

/** A stored space or virtual cluster instance, with its resource. */
export interface Holder {
  resource: string;
  object: KubeObject;
}

/**
 * Every space and virtual cluster instance on `cluster`, in any project, read from storage (not
 * an informer's copy, which may lag), and the older revision of the two lists: a write after it
 * may be missing from them.
 */
export async function listHolders(
  registry: Pick<Registry, "store">,
  cluster: string,
): Promise<{ items: Holder[]; revision: number }> {
  const fieldSelector = `spec.clusterRef.cluster=${cluster}`;
  const lists = await Promise.all(
    HOLDING_RESOURCES.map(async (resource) => {
      const list = await registry.store(resource).list(systemContext(), undefined, { fieldSelector });
      return { resource, list };
    }),
  );
  return {
    items: lists.flatMap(({ resource, list }) => list.items.map((object) => ({ resource, object }))),
    revision: Math.min(...lists.map(({ list }) => Number(list.metadata.resourceVersion))),
  };
}
