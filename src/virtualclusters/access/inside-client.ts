import { ApiError } from "../../api/errors.js";
import type { KubeObject } from "../../api/object.js";
import { ClusterConnectionError } from "../../clusters/cluster-connection.js";
import type { EndpointPolicy } from "../../clusters/endpoint-policy.js";
import { allowedEndpoint } from "../../clusters/endpoint-policy.js";
import { guardedKubeConfig } from "../../clusters/guarded-kube-config.js";
import { ClusterObjectClient } from "../../clusters/object-client.js";
import { createClientCertificate } from "../../crypto/certificates.js";
import { DecryptionError } from "../../crypto/secret-box.js";
import type { Registry } from "../../registry/registry.js";
import type { VirtualClusterCaStore } from "../ca-store.js";
import { virtualClusterCa } from "../reach.js";

/**
 * Who the platform is inside a virtual cluster: a client certificate signed by the virtual
 * cluster's own CA in group system:masters, as the admin kube config a vCluster writes into its
 * `vc-<name>` Secret. Only the platform holds the CA key, so only it can present this.
 */
export const PLATFORM_INSIDE_USER = "platform:virtual-cluster-access";
const PLATFORM_INSIDE_GROUPS = ["system:masters"];
/** A certificate is made for each pass and used for that pass only. */
const CERT_VALIDITY_SECONDS = 3_600;

/**
 * A client for the instance's API server at `server`, the endpoint the gateway uses
 * (reach.ts, virtualClusterEndpoint), with the same CA.
 */
export async function insideClient(
  registry: Registry,
  cas: VirtualClusterCaStore,
  instance: KubeObject,
  server: string,
  cluster: (name: string) => KubeObject | undefined,
  policy: EndpointPolicy,
): Promise<ClusterObjectClient> {
  // Who administers the instance chooses the endpoint: the same limits as the gateway's, with its
  // check of what a host name resolves to at each connection.
  const { lookup } = allowedEndpoint(server, policy);
  const ca = await ownStep(instance, "read its certificate authority", () =>
    virtualClusterCa(registry, cas, instance, cluster, policy),
  );
  const cert = await ownStep(instance, "sign itself a client certificate with its certificate authority", () =>
    createClientCertificate(ca, {
      commonName: PLATFORM_INSIDE_USER,
      organizations: PLATFORM_INSIDE_GROUPS,
      validitySeconds: CERT_VALIDITY_SECONDS,
    }),
  );
  const { KubeConfig } = await import("@kubernetes/client-node");
  const kc = lookup ? new (guardedKubeConfig(KubeConfig))(lookup) : new KubeConfig();
  const data = (pem: string) => Buffer.from(pem).toString("base64");
  kc.loadFromOptions({
    clusters: [{ name: "vcluster", server, caData: data(ca.certPem), skipTLSVerify: false }],
    users: [{ name: "platform", certData: data(cert.certPem), keyData: data(cert.keyPem) }],
    contexts: [{ name: "vcluster", cluster: "vcluster", user: "platform" }],
    currentContext: "vcluster",
  });
  return ClusterObjectClient.for(kc);
}

/**
 * One of the platform's own steps before it calls the virtual cluster: its failure is
 * `CertificateAuthorityUnavailable`, never a cluster that did not answer (nothing was sent to it).
 */
async function ownStep<T>(instance: KubeObject, what: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    const { namespace, name } = instance.metadata;
    throw new ClusterConnectionError(
      "CertificateAuthorityUnavailable",
      `virtual cluster ${namespace}/${name}: the platform could not ${what}: ${stepFailure(err)}`,
    );
  }
}

/**
 * The platform's own answer (a host cluster it could not use, the CA's Secret not found there) says
 * what failed; any other error (a kept CA that does not decrypt or parse, a key the crypto library
 * refuses) may quote what it read, a CA key among it, so it is named, never quoted.
 */
function stepFailure(err: unknown): string {
  if (err instanceof ApiError) return err.message;
  if (err instanceof DecryptionError)
    return "the copy the platform keeps does not decrypt with the server's encryption keys";
  return `what is stored is not a certificate authority it can use (${(err as Error)?.name ?? "Error"})`;
}
