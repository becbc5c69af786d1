import { ApiError, errors } from "../api/errors.js";
import type { KubeObject } from "../api/object.js";
import {
  type ClusterClient,
  ClusterConnectionError,
  classifyError,
  clusterClient,
  withDeadline,
} from "../clusters/cluster-connection.js";
import type { CertificateAndKey } from "../crypto/certificates.js";
import type { Registry } from "../registry/registry.js";

/** How long one call to a connected cluster may take during an API request. */
const REMOTE_TIMEOUT_MS = 10_000;

/** A 404 with a message of our own (the thing missing lives on a connected cluster, not in this API). */
export function notFoundOnCluster(message: string, name: string, kind: string): ApiError {
  return new ApiError({
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason: "NotFound",
    details: { name, kind },
    code: 404,
  });
}

/** A cluster the request needs but cannot use: 503, with the same reason the health check reports. */
function unavailable(cluster: string, err: ClusterConnectionError): ApiError {
  return errors.unavailable(`cluster "${cluster}" cannot be used (${err.reason}): ${err.message}`);
}

export async function connect(registry: Registry, cluster: KubeObject): Promise<ClusterClient> {
  try {
    return await clusterClient(registry, cluster);
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

/** The virtual cluster's Service: named like it, labelled app=vcluster, in its namespace (docs/clusters.md). */
export async function findVirtualClusterService(
  client: ClusterClient,
  clusterName: string,
  namespace: string,
  name: string,
): Promise<{ uid: string } | undefined> {
  const list = await call(client, clusterName, () =>
    client.core.listNamespacedService({ namespace, labelSelector: "app=vcluster" }),
  );
  const svc = list?.items.find((s) => s.metadata?.name === name);
  return svc?.metadata?.uid ? { uid: svc.metadata.uid } : undefined;
}

/** The virtual cluster's CA from its `<name>-certs` Secret (keys ca.crt, ca.key), or 404. */
export async function readVirtualClusterCa(
  client: ClusterClient,
  clusterName: string,
  namespace: string,
  name: string,
): Promise<CertificateAndKey> {
  const secretName = `${name}-certs`;
  const secret = await call(client, clusterName, () =>
    client.core.readNamespacedSecret({ name: secretName, namespace }),
  );
  const crt = secret?.data?.["ca.crt"];
  const key = secret?.data?.["ca.key"];
  if (!crt || !key) {
    throw notFoundOnCluster(
      `the certificate authority of virtual cluster ${namespace}/${name} (secret ${namespace}/${secretName} with keys ca.crt and ca.key) was not found on cluster "${clusterName}"`,
      secretName,
      "secrets",
    );
  }
  return { certPem: Buffer.from(crt, "base64").toString("utf8"), keyPem: Buffer.from(key, "base64").toString("utf8") };
}
