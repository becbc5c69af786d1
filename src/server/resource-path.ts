import { errors } from "../api/errors.js";
import { decodeSegment } from "../api/path-segments.js";
import type { Registry } from "../registry/registry.js";
import type { ResourceType } from "../registry/resource-type.js";
import type { Store } from "../registry/store.js";

/** A request path under `{prefix}/apis/<group>/<version>/` (or `{prefix}/api/v1/`), resolved to what it addresses. */
export interface ResourcePath {
  rt: ResourceType;
  store: Store;
  /** The path's namespace (namespaced kinds; undefined for a cluster-wide list of a namespaced kind). */
  namespace?: string;
  name?: string;
  subresource: string;
}

/**
 * Parses `[namespaces/{ns}/]{plural}[/{name}[/{subresource}]]`. A namespaced path for a
 * cluster-scoped kind, or an unknown plural, is 404 as in Kubernetes. So is an empty segment
 * (`users/`, `users//x`): read as the collection, `DELETE users/` with an empty name in a
 * script deleted every user.
 */
export function resolveResourcePath(registry: Registry, rest: string): ResourcePath {
  // Indexes into one array rather than splicing and destructuring: every request parses its path.
  const segments = rest.split("/");
  for (let i = 0; i < segments.length; i++) segments[i] = decodedOrRefused(segments[i]!);
  if (segments.includes("")) throw notFound();
  const at = segments[0] === "namespaces" && segments.length >= 3 ? 2 : 0;
  const namespace = at === 2 ? segments[1] : undefined;
  const plural = segments[at];
  const name = segments[at + 1];
  const subresource = segments[at + 2];
  const extra = segments.length - at > 3;
  const found = plural ? registry.find(plural) : undefined;
  if (!found || extra) throw notFound();
  if (namespace !== undefined && !found.rt.namespaced) throw notFound();
  // A name on a cluster-wide path of a namespaced kind addresses nothing, except for custom
  // subresources that look the object up across namespaces (the cluster-wide GET
  // virtualclusterinstances/{name}/kubeconfig); the handler 404s every other such path.
  if (found.rt.namespaced && namespace === undefined && name !== undefined && !subresource) throw notFound();
  return { rt: found.rt, store: found.store, namespace, name, subresource: subresource ?? "" };
}

function notFound() {
  return errors.notFoundPath();
}

function decodedOrRefused(s: string): string {
  const decoded = decodeSegment(s);
  if (decoded === undefined) throw errors.badRequest(`invalid path segment "${s}"`);
  return decoded;
}
