import { partitionBySegments } from "../storage/cache/cached-storage.js";
import type { ResourceType } from "./resource-type.js";

/** Every object lives under one prefix per group; resource versions are store revisions. */
export const REGISTRY_PREFIX = "/registry/";

/** `/registry/<group>/<plural>/` — the prefix of all objects of a kind. */
export function resourcePrefix(rt: Pick<ResourceType, "group" | "plural">): string {
  return `${REGISTRY_PREFIX}${rt.group}/${rt.plural}/`;
}

/** The prefix of one namespace's objects (namespaced kinds), or of the whole kind. */
export function collectionPrefix(rt: ResourceType, namespace: string | undefined): string {
  if (rt.namespaced && namespace) return `${resourcePrefix(rt)}${namespace}/`;
  return resourcePrefix(rt);
}

/** The watch cache partition of a registry key or prefix: `/registry/<group>/<plural>/`, if it is that deep. */
export const registryPartition: (keyOrPrefix: string) => string | undefined = partitionBySegments(REGISTRY_PREFIX, 2);

export function objectKey(rt: ResourceType, namespace: string | undefined, name: string): string {
  return rt.namespaced ? `${resourcePrefix(rt)}${namespace}/${name}` : `${resourcePrefix(rt)}${name}`;
}
