/** Kubeconfig documents with inline credentials, as the platform reads them from a Cluster's config secret. */
import { stringify } from "yaml";

/** How a user proves who they are: a bearer token or a client certificate. */
export type KubeCredentials = { readonly token: string } | { readonly certPem: string; readonly keyPem: string };

export interface KubeconfigOptions {
  readonly server: string;
  /** The CA the client trusts for the server's certificate. */
  readonly caPem: string;
  readonly credentials: KubeCredentials;
  /** Cluster, user and context name (default `test-cluster`). */
  readonly name?: string;
}

export function kubeconfigYaml(options: KubeconfigOptions): string {
  const name = options.name ?? "test-cluster";
  const base64 = (text: string) => Buffer.from(text).toString("base64");
  const c = options.credentials;
  const user =
    "token" in c
      ? { token: c.token }
      : { "client-certificate-data": base64(c.certPem), "client-key-data": base64(c.keyPem) };
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name, cluster: { server: options.server, "certificate-authority-data": base64(options.caPem) } }],
    users: [{ name, user }],
    contexts: [{ name, context: { cluster: name, user: name } }],
    "current-context": name,
  });
}
