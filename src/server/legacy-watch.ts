import { errors } from "../api/errors.js";
import type { Query } from "./query.js";
import type { ResourcePath } from "./resource-path.js";

/** The prefix of kube-apiserver's deprecated watch paths: `…/v1/watch/teams`, `…/v1/watch/teams/{name}`. */
const WATCH_PREFIX = "watch/";

/** The path after the group/version prefix without `watch/`, when it has it. */
export function legacyWatchRest(rest: string): string | undefined {
  return rest.startsWith(WATCH_PREFIX) ? rest.slice(WATCH_PREFIX.length) : undefined;
}

/**
 * `GET …/watch/[namespaces/{ns}/]{plural}[/{name}]`, deprecated but still served by
 * kube-apiserver and the only way some clients watch (Ruby's kubeclient): a watch of the
 * collection, and, with a name, of that object alone through a `metadata.name` field selector
 * (anded with one the query gives). The name stays on the path for the authorizer, as in
 * kube's request info. Another method or a subresource is not served there.
 */
export function legacyWatchQuery(method: string, path: ResourcePath, query: Query): Query {
  if (path.subresource) throw errors.notFoundPath();
  if (method !== "GET") throw errors.methodNotAllowed();
  const watched: Query = { ...query, watch: "true" };
  if (path.name !== undefined) {
    const byName = `metadata.name=${path.name.replace(/[\\,=]/g, (c) => `\\${c}`)}`;
    const given = (Array.isArray(query.fieldSelector) ? query.fieldSelector[0] : query.fieldSelector) ?? "";
    watched.fieldSelector = given ? `${given},${byName}` : byName;
  }
  return watched;
}
