import type { Registry } from "../registry/registry.js";
import { aggregatedDiscovery, apiResourceEntries } from "./discovery.js";

/**
 * Discovery of the core group (`/api`), served from its registry (Events). The core group has
 * no name: its group version is `v1`, and kube-apiserver's documents for it carry no apiVersion.
 */
export function apiVersions(): Record<string, unknown> {
  return {
    kind: "APIVersions",
    versions: ["v1"],
    serverAddressByClientCIDRs: [],
  };
}

export function coreResourceList(core: Registry): Record<string, unknown> {
  return {
    kind: "APIResourceList",
    groupVersion: "v1",
    resources: core.resourceTypes().flatMap(apiResourceEntries),
  };
}

/** `/api` in aggregated discovery v2 (kubectl asks for it first). */
export function coreAggregatedDiscovery(core: Registry): Record<string, unknown> {
  return aggregatedDiscovery(core, []);
}
