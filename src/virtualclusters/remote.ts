import type { ClusterClient } from "../clusters/cluster-connection.js";
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
