/**
 * The TLS material a test control plane needs, made with the product's own certificate helpers
 * (src/crypto): one CA that signs the API server's serving certificate and every client
 * certificate (kube-apiserver's --client-ca-file), and the key pair that signs and checks
 * ServiceAccount tokens.
 */
import { generateKeyPairSync } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  type CertificateAndKey,
  createCertificateAuthority,
  createClientCertificate,
  createServingCertificate,
} from "../../crypto/certificates.js";

/** How long the generated certificates last: longer than any test run or `npm run test-cluster` session. */
const VALIDITY_DAYS = 30;

/** The first address of the harness's --service-cluster-ip-range: the `kubernetes` Service's cluster IP. */
export const SERVICE_CLUSTER_IP_RANGE = "10.96.0.0/16";
const KUBERNETES_SERVICE_IP = "10.96.0.1";

export interface ControlPlaneFiles {
  readonly ca: CertificateAndKey;
  readonly caCertPath: string;
  readonly servingCertPath: string;
  readonly servingKeyPath: string;
  /** ServiceAccount token signing key (private, PKCS#8) and its public key. */
  readonly serviceAccountKeyPath: string;
  readonly serviceAccountPublicKeyPath: string;
}

/** Writes the CA, the API server's serving certificate and the ServiceAccount key pair into `dir`. */
export async function writeControlPlaneFiles(dir: string): Promise<ControlPlaneFiles> {
  const ca = await createCertificateAuthority(`platform-test-kubernetes-ca@${Date.now()}`, VALIDITY_DAYS);
  const serving = await createServingCertificate(ca, {
    // The names in-cluster clients use, as kubeadm issues them, besides the loopback address tests dial.
    dnsNames: ["localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"],
    ipAddresses: ["127.0.0.1", KUBERNETES_SERVICE_IP],
    validityDays: VALIDITY_DAYS,
  });
  const serviceAccountKeys = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const files: ControlPlaneFiles = {
    ca,
    caCertPath: join(dir, "ca.crt"),
    servingCertPath: join(dir, "apiserver.crt"),
    servingKeyPath: join(dir, "apiserver.key"),
    serviceAccountKeyPath: join(dir, "sa.key"),
    serviceAccountPublicKeyPath: join(dir, "sa.pub"),
  };
  await writeFile(files.caCertPath, ca.certPem);
  await writeFile(files.servingCertPath, serving.certPem);
  await writeFile(files.servingKeyPath, serving.keyPem, { mode: 0o600 });
  await writeFile(
    files.serviceAccountKeyPath,
    serviceAccountKeys.privateKey.export({ type: "pkcs8", format: "pem" }) as string,
    { mode: 0o600 },
  );
  await writeFile(
    files.serviceAccountPublicKeyPath,
    serviceAccountKeys.publicKey.export({ type: "spki", format: "pem" }) as string,
  );
  return files;
}

/** A client certificate the API server reads as user `name` in `groups`. */
export function clientCertificate(ca: CertificateAndKey, name: string, groups: string[]): Promise<CertificateAndKey> {
  return createClientCertificate(ca, {
    commonName: name,
    organizations: groups,
    validitySeconds: VALIDITY_DAYS * 24 * 60 * 60,
  });
}
