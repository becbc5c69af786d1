import { eventResource } from "./event-type.js";

/**
 * Discovery of the core group (`/api`), which serves Events alone. The core group has no name:
 * its group version is `v1`.
 */
export function apiVersions(): Record<string, unknown> {
  return {
    kind: "APIVersions",
    versions: ["v1"],
    serverAddressByClientCIDRs: [],
  };
}

export function coreResourceList(): Record<string, unknown> {
  const rt = eventResource;
  return {
    kind: "APIResourceList",
    groupVersion: "v1",
    resources: [
      {
        name: rt.plural,
        singularName: rt.singular,
        namespaced: true,
        kind: rt.kind,
        verbs: [...rt.verbs],
        shortNames: rt.shortNames,
      },
    ],
  };
}

/** `/api` in aggregated discovery v2 (kubectl asks for it first). */
export function coreAggregatedDiscovery(): Record<string, unknown> {
  const rt = eventResource;
  return {
    kind: "APIGroupDiscoveryList",
    apiVersion: "apidiscovery.k8s.io/v2",
    metadata: {},
    items: [
      {
        metadata: { creationTimestamp: null },
        versions: [
          {
            version: "v1",
            resources: [
              {
                resource: rt.plural,
                responseKind: { group: "", version: "v1", kind: rt.kind },
                scope: "Namespaced",
                singularResource: rt.singular,
                verbs: [...rt.verbs],
                shortNames: rt.shortNames,
              },
            ],
            freshness: "Current",
          },
        ],
      },
    ],
  };
}
