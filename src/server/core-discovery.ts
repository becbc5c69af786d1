import type { Registry } from "../registry/registry.js";
import type { ResourceType } from "../registry/resource-type.js";

/**
 * Discovery of the core group (`/api`), served from its registry (Events). The core group has
 * no name: its group version is `v1`. As kube-apiserver writes them, these documents carry no
 * apiVersion, no group name and no empty categories.
 */
export function apiVersions(): Record<string, unknown> {
  return {
    kind: "APIVersions",
    versions: ["v1"],
    serverAddressByClientCIDRs: [],
  };
}

/** What discovery says of a core kind: the registry's, and those served beside it (namespaces). */
type CoreKind = Pick<
  ResourceType,
  "plural" | "singular" | "namespaced" | "kind" | "verbs" | "shortNames" | "categories"
>;

export function coreResourceList(core: Registry, beside: readonly CoreKind[] = []): Record<string, unknown> {
  return {
    kind: "APIResourceList",
    groupVersion: "v1",
    resources: [...core.resourceTypes(), ...beside].map((rt) => ({
      name: rt.plural,
      singularName: rt.singular,
      namespaced: rt.namespaced,
      kind: rt.kind,
      ...common(rt),
    })),
  };
}

/** `/api` in aggregated discovery v2 (kubectl asks for it first). */
export function coreAggregatedDiscovery(core: Registry, beside: readonly CoreKind[] = []): Record<string, unknown> {
  const resources = [...core.resourceTypes(), ...beside].map((rt) => ({
    resource: rt.plural,
    responseKind: { group: "", version: "v1", kind: rt.kind },
    scope: rt.namespaced ? "Namespaced" : "Cluster",
    singularResource: rt.singular,
    ...common(rt),
  }));
  return {
    kind: "APIGroupDiscoveryList",
    apiVersion: "apidiscovery.k8s.io/v2",
    metadata: {},
    items: [{ metadata: { creationTimestamp: null }, versions: [{ version: "v1", resources, freshness: "Current" }] }],
  };
}

function common(rt: CoreKind): Record<string, unknown> {
  return {
    verbs: [...rt.verbs],
    ...(rt.shortNames.length ? { shortNames: rt.shortNames } : {}),
    ...(rt.categories.length ? { categories: rt.categories } : {}),
  };
}
