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

export function apiResourceEntries(rt: ResourceType) {
  const main = {
    name: rt.plural,
    singularName: rt.singular,
    namespaced: rt.namespaced,
    kind: rt.kind,
    verbs: [...rt.verbs],
    ...(rt.shortNames.length ? { shortNames: rt.shortNames } : {}),
    categories: rt.categories,
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
