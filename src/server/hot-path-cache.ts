/**
 * The fast GET path's parse of a request path, remembered: the resolved path, the authorization
 * attributes of a GET of it, and the object's storage key. Clients poll the same few objects
 * over and over; parsing each path again (split, decode, look up the kind, build the attributes
 * and the key) was a visible share of what the fast path itself spent per request. All three are pure
 * functions of the path (the registry's kinds are fixed once the server runs) and nobody mutates
 * them, so one copy serves every request for that path.
 *
 * Bounded: past MAX_PATHS distinct paths the least recently used is forgotten, so a client
 * walking through many names never costs unbounded memory. Paths that do not resolve
 * (404, 400) are not remembered: they throw, and the normal handler answers them.
 */
import { LruMap } from "toad-cache";
import type { RequestAttributes } from "../authz/contract.js";
import type { Registry } from "../registry/registry.js";
import { resourceAttributes } from "./resource-handler.js";
import { type ResourcePath, resolveResourcePath } from "./resource-path.js";

const MAX_PATHS = 4096;

export interface HotPath {
  readonly path: ResourcePath;
  /** The attributes of a GET of this path. */
  readonly getAttributes: RequestAttributes;
  /** The object's storage key, when the path names one. */
  readonly key: string | undefined;
}

export class HotPathCache {
  private readonly byPath = new LruMap<HotPath>(MAX_PATHS);

  constructor(private readonly registry: Registry) {}

  /** The path under the group prefix, resolved; throws as resolveResourcePath does. */
  resolve(rest: string): HotPath {
    let hot = this.byPath.get(rest);
    if (hot === undefined) {
      const path = resolveResourcePath(this.registry, rest);
      hot = {
        path,
        getAttributes: Object.freeze(resourceAttributes(path, "get")),
        key: path.name === undefined ? undefined : path.store.key(path.namespace, path.name),
      };
      this.byPath.set(rest, hot);
    }
    return hot;
  }
}
