import type { CertificateAndKey } from "../crypto/certificates.js";
import type { SecretDataCipher } from "../kinds/shared-secret/shared-secret.js";
import type { Storage, TxnOp } from "../storage/interface.js";

/**
 * Where the platform keeps the certificate authority of each imported virtual cluster,
 * so it can sign kube config client certificates without going back to the connected
 * cluster on every request.
 *
 * Why a storage key of its own and not a SharedSecret or an annotation: anything in a
 * served resource can be read through the API by someone (admins, viewers of shared
 * secrets, whoever gets the instance), and a CA key lets its holder mint a certificate
 * for any user of the virtual cluster. Under this prefix, which no resource serves, the
 * key is only ever read by the kubeconfig action, and it is encrypted at rest with the
 * same keys as SharedSecret data. Keyed by the service UID (not the instance uid), so it
 * survives a migration, which gives the instance a new uid but keeps status.serviceUID.
 */
export const CA_KEY_PREFIX = "/platform-internal/virtualcluster-ca/";

export class VirtualClusterCaStore {
  constructor(
    private readonly storage: Storage,
    private readonly cipher?: SecretDataCipher,
  ) {}

  key(serviceUID: string): string {
    return `${CA_KEY_PREFIX}${serviceUID}`;
  }

  async get(serviceUID: string): Promise<CertificateAndKey | undefined> {
    const kv = await this.storage.get(this.key(serviceUID));
    if (!kv) return undefined;
    const text = kv.value.toString("utf8");
    return JSON.parse(this.cipher ? this.cipher.decrypt(text) : text) as CertificateAndKey;
  }

  /**
   * The transaction operation that stores `ca` for `serviceUID`; it fails (KeyExists) when a CA
   * is kept for it already. That makes the key the import's lock on the service UID: a CA is
   * kept exactly while an instance refers to it (ca-cleanup.ts removes it with the last one),
   * so of two imports of one virtual cluster only the first can write, however they interleave.
   */
  createOp(serviceUID: string, ca: CertificateAndKey): TxnOp {
    const json = JSON.stringify({ certPem: ca.certPem, keyPem: ca.keyPem });
    return {
      type: "create",
      key: this.key(serviceUID),
      value: Buffer.from(this.cipher ? this.cipher.encrypt(json) : json, "utf8"),
    };
  }
}
