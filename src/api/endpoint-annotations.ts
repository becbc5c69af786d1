/**
 * The annotations that name where other users' traffic or tokens go (docs/security.md,
 * "Endpoints other users' traffic and tokens follow"). Writing one needs the right to administer the object (`administer`,
 * admission/endpoint-settings.ts), and its value is checked there. Here, with no imports, so
 * the CLI reads the same names without loading the server's modules.
 */

/**
 * On a VirtualClusterInstance: the URL of its API server as the platform reaches it (for example
 * an in-cluster service address). Without it the gateway uses the ingress host the kube config
 * action hands out: `https://<instance>.<project>.<ingress-suffix of the cluster>`.
 */
export const VIRTUAL_CLUSTER_ENDPOINT_ANNOTATION = "management.platform/virtual-cluster-endpoint";

/** On a Cluster: host suffix of its virtual clusters' ingress endpoints (kube configs, the gateway). */
export const INGRESS_SUFFIX_ANNOTATION = "management.platform/ingress-suffix";

/** On a Cluster: the URL of its agent (`platform agent`), where `platform use cluster --direct` sends tokens. */
export const DIRECT_ENDPOINT_ANNOTATION = "management.platform/direct-cluster-endpoint";

/** On a Cluster: base64 PEM of the CA that signed the agent's serving certificate (optional). */
export const DIRECT_ENDPOINT_CA_ANNOTATION = "management.platform/direct-cluster-endpoint-ca";
