import { ApiError, errors, failureStatus } from "../api/errors.js";
import type { KubeObject } from "../api/object.js";
import {
  type ClusterClient,
  ClusterConnectionError,
  classifyError,
  clusterCannotBeUsed,
  clusterClient,
  withDeadline,
} from "../clusters/cluster-connection.js";
import type { EndpointPolicy } from "../clusters/endpoint-policy.js";
import type { Registry } from "../registry/registry.js";

/**
 * How an API request (an import, a kube config) calls a connected cluster: a cluster it cannot
 * use is a 503 with the reason the health check reports, a thing missing there a 404 of our own.
 * A server the endpoint policy forbids is one such cluster (`EndpointNotAllowed`), as the gateway
 * answers for it: the caller can do nothing about it, its administrator can.
 */

/** How long one call to a connected cluster may take during an API request. */
const REMOTE_TIMEOUT_MS = 10_000;

/** A 404 with a message of our own (the thing missing lives on a connected cluster, not in this API). */
export function notFoundOnCluster(message: string, name: string, kind: string): ApiError {
  return new ApiError(failureStatus(404, "NotFound", message, { name, kind }));
}

/**
 * A cluster the request needs but cannot use: 503, with the same reason the health check reports,
 * naming the cluster and the reason only, as the instances' statuses and the gateway say it.
 */
function unavailable(cluster: string, err: ClusterConnectionError): ApiError {
  return errors.unavailable(clusterCannotBeUsed(cluster, err.reason));
}

/**
 * A client of the cluster within the endpoint policy (clusters/endpoint-policy.ts): the request
 * names the cluster, but whoever writes its kubeconfig chooses where the platform's credentials go.
 */
export async function connect(
  registry: Registry,
  cluster: KubeObject,
  endpoints: EndpointPolicy,
): Promise<ClusterClient> {
  try {
    return await clusterClient(registry, cluster, endpoints);
  } catch (err) {
    if (err instanceof ClusterConnectionError) throw unavailable(cluster.metadata.name!, err);
    throw err;
  }
}

/** Calls the cluster; a 404 answer is `undefined`, other failures 503. */
export async function call<T>(
  client: ClusterClient,
  clusterName: string,
  fn: () => Promise<T>,
): Promise<T | undefined> {
  try {
    return await withDeadline(fn(), REMOTE_TIMEOUT_MS, client.server);
  } catch (err) {
    if ((err as { code?: unknown }).code === 404) return undefined;
    throw unavailable(clusterName, classifyError(err, client.server));
  }
}
