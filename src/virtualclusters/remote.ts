import { errors } from "../api/errors.js";
import type { ClusterClient } from "../clusters/cluster-connection.js";
import { INSTANCE_LABEL } from "../controllers/virtual-cluster-status/desired-instance.js";
import type { CertificateAndKey } from "../crypto/certificates.js";
import { call, notFoundOnCluster } from "../instance-actions/cluster-calls.js";

/** What an import and a kube config read of a virtual cluster on its host cluster. */

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

/**
 * The virtual cluster's CA from its `<name>-certs` Secret (keys ca.crt, ca.key), or 404. Never
 * the CA of a virtual cluster the platform deployed for an instance (its Secret carries
 * INSTANCE_LABEL, as everything deployed does): the platform keeps that CA and never reads it
 * back, so whoever asks for it here names that virtual cluster from an instance of their own (an
 * import, an instance without a template) and would get certificates signed for another
 * project's virtual cluster, whose owner is bound to cluster-admin inside: 403, naming neither
 * that instance nor its project.
 */
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
  if (secret?.metadata?.labels?.[INSTANCE_LABEL] !== undefined) {
    throw errors.forbidden(
      { group: "", resource: "secrets" },
      secretName,
      `virtual cluster ${namespace}/${name} on cluster "${clusterName}" was deployed by the platform for another virtual cluster instance, which alone holds its certificate authority`,
    );
  }
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
