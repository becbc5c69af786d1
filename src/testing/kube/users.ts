/**
 * Users of a test control plane and their RBAC rights: people with client certificates, and
 * ServiceAccounts with tokens from the TokenRequest API (what `kubectl create token` calls).
 * A new user may do nothing beyond what Kubernetes grants every authenticated user until
 * `grant` binds it a role.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { CertificateAndKey } from "../../crypto/certificates.js";
import { type AdminRequests, type PolicyRule, waitUntilBindingGrants } from "./authorizer-grants.js";
import { type KubeCredentials, kubeconfigYaml } from "./kubeconfig.js";
import { runKubectl } from "./kubectl.js";
import { clientCertificate } from "./pki.js";

export type { PolicyRule };

/** An RBAC subject as a RoleBinding lists it. */
export type RbacSubject =
  | { readonly kind: "User"; readonly name: string; readonly apiGroup: "rbac.authorization.k8s.io" }
  | { readonly kind: "ServiceAccount"; readonly name: string; readonly namespace: string };

/** What `grant` binds: new rules, or an existing ClusterRole (`view`, `edit`, `admin`, `cluster-admin` …). */
export type Grant = { readonly rules: PolicyRule[] } | { readonly clusterRole: string };

/** Ways to make a user's kubeconfig wrong on purpose (another server URL, a CA that did not sign the server). */
export interface KubeconfigOverrides {
  readonly server?: string;
  readonly caPem?: string;
}

export interface KubeUser {
  /** The user name the API server sees (`system:serviceaccount:NS:NAME` for a ServiceAccount). */
  readonly name: string;
  readonly subject: RbacSubject;
  readonly credentials: KubeCredentials;
  /** A kubeconfig file of this user (inline credentials). */
  readonly kubeconfigPath: string;
  /** The kubeconfig text, with inline credentials: what a Cluster's config secret holds. */
  kubeconfig(overrides?: KubeconfigOverrides): string;
  /** Runs kubectl as this user; resolves with stdout, rejects with a KubectlError. */
  kubectl(...args: string[]): Promise<string>;
}

export interface ServiceAccountOptions {
  /** The token's lifetime (TokenRequest spec.expirationSeconds; default one hour, Kubernetes' default). */
  readonly expirationSeconds?: number;
}

export class KubeUsers {
  private grants = 0;
  private files = 0;

  constructor(
    private readonly admin: AdminRequests,
    private readonly server: { url: string; caPem: string; ca: CertificateAndKey },
    private readonly dir: string,
  ) {}

  /** A person authenticated by a client certificate signed by the cluster's CA (CN = name, O = groups). */
  async user(name: string, groups: string[] = []): Promise<KubeUser> {
    const { certPem, keyPem } = await clientCertificate(this.server.ca, name, groups);
    return this.make(name, { kind: "User", name, apiGroup: "rbac.authorization.k8s.io" }, { certPem, keyPem });
  }

  /**
   * ServiceAccount `name` in `namespace` (which must exist), created unless it already exists,
   * with a new token from the TokenRequest API. Deleting the ServiceAccount revokes the token.
   */
  async serviceAccount(namespace: string, name: string, options: ServiceAccountOptions = {}): Promise<KubeUser> {
    const base = `/api/v1/namespaces/${encodeURIComponent(namespace)}/serviceaccounts`;
    await this.admin.must("POST", base, { apiVersion: "v1", kind: "ServiceAccount", metadata: { name } }, [409]);
    const res = await this.admin.must("POST", `${base}/${encodeURIComponent(name)}/token`, {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenRequest",
      spec: { expirationSeconds: options.expirationSeconds ?? 3600 },
    });
    const token = (res.body as { status?: { token?: string } }).status?.token;
    if (!token) throw new Error(`TokenRequest for ${namespace}/${name} returned no token: ${res.text}`);
    return this.make(
      `system:serviceaccount:${namespace}:${name}`,
      { kind: "ServiceAccount", name, namespace },
      { token },
    );
  }

  /**
   * Gives `user` the rights of `grant`: in `namespace` only (a Role or ClusterRole bound by a
   * RoleBinding there), or cluster-wide when no namespace is given (a ClusterRoleBinding).
   * Resolves once the API server's authorizer grants them (authorizer-grants.ts).
   */
  async grant(user: Pick<KubeUser, "subject">, grant: Grant, namespace?: string): Promise<void> {
    const name = `platform-test-grant-${++this.grants}`;
    const rbac = "/apis/rbac.authorization.k8s.io/v1";
    const scope = namespace === undefined ? "" : `/namespaces/${encodeURIComponent(namespace)}`;
    let roleRef: { apiGroup: string; kind: string; name: string };
    if ("rules" in grant) {
      const kind = namespace === undefined ? "ClusterRole" : "Role";
      await this.admin.must("POST", `${rbac}${scope}/${kind.toLowerCase()}s`, {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind,
        metadata: { name },
        rules: grant.rules,
      });
      roleRef = { apiGroup: "rbac.authorization.k8s.io", kind, name };
    } else {
      roleRef = { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: grant.clusterRole };
    }
    const bindingKind = namespace === undefined ? "ClusterRoleBinding" : "RoleBinding";
    await this.admin.must("POST", `${rbac}${scope}/${bindingKind.toLowerCase()}s`, {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: bindingKind,
      metadata: { name },
      roleRef,
      subjects: [user.subject],
    });
    await waitUntilBindingGrants(this.admin, { name, namespace, roleRef, subjects: [user.subject] });
  }

  private async make(name: string, subject: RbacSubject, credentials: KubeCredentials): Promise<KubeUser> {
    const kubeconfig = (overrides: KubeconfigOverrides = {}) =>
      kubeconfigYaml({
        server: overrides.server ?? this.server.url,
        caPem: overrides.caPem ?? this.server.caPem,
        credentials,
      });
    const kubeconfigPath = join(this.dir, `${name.replace(/[^A-Za-z0-9.-]/g, "_")}-${++this.files}.kubeconfig`);
    await writeFile(kubeconfigPath, kubeconfig(), { mode: 0o600 });
    return {
      name,
      subject,
      credentials,
      kubeconfigPath,
      kubeconfig,
      kubectl: (...args) => runKubectl(kubeconfigPath, args),
    };
  }
}
