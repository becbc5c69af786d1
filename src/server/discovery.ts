import type { Registry } from "../registry/registry.js";
import type { ResourceType } from "../registry/resource-type.js";

/** Discovery documents (k8s.io/apimachinery metav1.APIGroupList / APIResourceList). */

export const SERVER_VERSION = {
  major: "1",
  minor: "32",
  gitVersion: "v1.32.0-platform.0.1.0",
  gitCommit: "",
  gitTreeState: "clean",
  buildDate: "2026-11-21T00:00:00Z",
  goVersion: `node${process.versions.node}`,
  compiler: "tsc",
  platform: `${process.platform}/${process.arch}`,
};

export function apiGroupList(groupVersions: Array<{ group: string; version: string }>) {
  return {
    kind: "APIGroupList",
    apiVersion: "v1",
    groups: groupVersions.map(({ group, version }) => ({
      name: group,
      versions: [{ groupVersion: `${group}/${version}`, version }],
      preferredVersion: { groupVersion: `${group}/${version}`, version },
    })),
  };
}

/**
 * `kubectl get <category>` lists every kind in it, so a kind that cannot be listed
 * (selves, tokens: create only) stays out of categories rather than failing that command.
 */
function listedCategories(rt: ResourceType): string[] {
  return rt.verbs.includes("list") ? rt.categories : [];
}

function apiResourceEntries(rt: ResourceType) {
  const main = {
    name: rt.plural,
    singularName: rt.singular,
    namespaced: rt.namespaced,
    kind: rt.kind,
    verbs: [...rt.verbs],
    ...(rt.shortNames.length ? { shortNames: rt.shortNames } : {}),
    categories: listedCategories(rt),
  };
  const subs = [];
  if (rt.hasStatus) {
    subs.push({
      name: `${rt.plural}/status`,
      singularName: "",
      namespaced: rt.namespaced,
      kind: rt.kind,
      verbs: ["get", "patch", "update"],
    });
  }
  return [main, ...subs];
}

export function apiResourceList(
  registry: Registry,
  group: string,
  version: string,
  extra: Array<Record<string, unknown>> = [],
) {
  return {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: `${group}/${version}`,
    resources: [...registry.resourceTypes().flatMap(apiResourceEntries), ...extra],
  };
}

/** A group/version served besides the registry's own (the review APIs kubectl's `auth` commands use). */
export interface ExtraGroupVersion {
  group: string;
  version: string;
  resources: Array<{ plural: string; singular: string; kind: string; verbs: string[] }>;
}

/** The review kinds: create-only, cluster-scoped, never stored. */
export const REVIEW_GROUPS: ExtraGroupVersion[] = [
  {
    group: "authorization.k8s.io",
    version: "v1",
    resources: [
      {
        plural: "selfsubjectaccessreviews",
        singular: "selfsubjectaccessreview",
        kind: "SelfSubjectAccessReview",
        verbs: ["create"],
      },
      {
        plural: "selfsubjectrulesreviews",
        singular: "selfsubjectrulesreview",
        kind: "SelfSubjectRulesReview",
        verbs: ["create"],
      },
    ],
  },
  {
    group: "authentication.k8s.io",
    version: "v1",
    resources: [
      { plural: "selfsubjectreviews", singular: "selfsubjectreview", kind: "SelfSubjectReview", verbs: ["create"] },
    ],
  },
];

export function extraResourceList(gv: ExtraGroupVersion) {
  return {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: `${gv.group}/${gv.version}`,
    resources: gv.resources.map((r) => ({
      name: r.plural,
      singularName: r.singular,
      namespaced: false,
      kind: r.kind,
      verbs: r.verbs,
    })),
  };
}

/** The media type of aggregated discovery (apidiscovery.k8s.io/v2), also set on the response. */
export const AGGREGATED_DISCOVERY_V2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

/** Whether an Accept header asks for aggregated discovery v2 before plain JSON (clients list their preference in order). */
export function wantsAggregatedDiscovery(accept: string | undefined): boolean {
  for (const part of (accept ?? "").split(",")) {
    const params = new Map<string, string>();
    const [type, ...rest] = part.split(";");
    for (const p of rest) {
      const eq = p.indexOf("=");
      if (eq > 0) params.set(p.slice(0, eq).trim().toLowerCase(), p.slice(eq + 1).trim());
    }
    if (params.has("as")) {
      if (
        type?.trim().toLowerCase() === "application/json" &&
        params.get("g") === "apidiscovery.k8s.io" &&
        params.get("v") === "v2" &&
        params.get("as") === "APIGroupDiscoveryList"
      )
        return true;
      continue; // v2beta1 and other conversions are not served; fall through to the next choice
    }
    if (part.trim()) return false;
  }
  return false;
}

/** apidiscovery.k8s.io/v2 APIGroupDiscoveryList: every group, version and resource in one document. */
export function aggregatedDiscovery(registry: Registry, extra: ExtraGroupVersion[] = REVIEW_GROUPS) {
  const byGroup = new Map<string, Map<string, Array<Record<string, unknown>>>>();
  const add = (group: string, version: string, resource: Record<string, unknown>) => {
    const versions = byGroup.get(group) ?? new Map<string, Array<Record<string, unknown>>>();
    byGroup.set(group, versions);
    const list = versions.get(version) ?? [];
    versions.set(version, list);
    list.push(resource);
  };
  for (const rt of registry.resourceTypes()) {
    const responseKind = { group: rt.group, version: rt.version, kind: rt.kind };
    add(rt.group, rt.version, {
      resource: rt.plural,
      responseKind,
      scope: rt.namespaced ? "Namespaced" : "Cluster",
      singularResource: rt.singular,
      verbs: [...rt.verbs],
      ...(rt.shortNames.length ? { shortNames: rt.shortNames } : {}),
      categories: listedCategories(rt),
      ...(rt.hasStatus
        ? { subresources: [{ subresource: "status", responseKind, verbs: ["get", "patch", "update"] }] }
        : {}),
    });
  }
  for (const gv of extra) {
    for (const r of gv.resources) {
      add(gv.group, gv.version, {
        resource: r.plural,
        responseKind: { group: gv.group, version: gv.version, kind: r.kind },
        scope: "Cluster",
        singularResource: r.singular,
        verbs: r.verbs,
      });
    }
  }
  return {
    kind: "APIGroupDiscoveryList",
    apiVersion: "apidiscovery.k8s.io/v2",
    metadata: {},
    items: [...byGroup].map(([group, versions]) => ({
      metadata: { name: group, creationTimestamp: null },
      versions: [...versions].map(([version, resources]) => ({ version, resources, freshness: "Current" })),
    })),
  };
}
