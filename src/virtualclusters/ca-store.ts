import type { ApiError } from "../api/errors.js";
import type { CertificateAndKey } from "../crypto/certificates.js";
import type { KeptKeys, KeptValueCipher } from "../registry/kept-keys.js";
import { KEPT_KEYS_PREFIX } from "../registry/kept-keys.js";
import type { Registry } from "../registry/registry.js";
import type { TransactOp } from "../registry/transact.js";

/**
 * Where the platform keeps the certificate authority of each imported virtual cluster,
 * so it can sign kube config client certificates without going back to the connected
 * cluster on every request.
 *
 * Why a storage key of its own and not a SharedSecret or an annotation: anything in a
 * served resource can be read through the API by someone (admins, viewers of shared
 * secrets, whoever gets the instance), and a CA key lets its holder mint a certificate
 * for any user of the virtual cluster. In the registry's kept key space (kept-keys.ts),
 * which no resource serves, the key is only ever read by the kubeconfig action, and it is encrypted at rest with the
 * same keys as SharedSecret data. Keyed by the service UID (not the instance uid), so it
 * survives a migration, which gives the instance a new uid but keeps status.serviceUID.
 */
const KEY_SPACE = "virtualcluster-ca";
/** Where the kept CAs are in storage (tests look at them there). */
export const CA_KEY_PREFIX = `${KEPT_KEYS_PREFIX}${KEY_SPACE}/`;

export class VirtualClusterCaStore {
  private readonly keys: KeptKeys;

  constructor(registry: Registry, cipher?: KeptValueCipher) {
    this.keys = registry.keptKeys(KEY_SPACE, cipher);
  }

  async get(serviceUID: string): Promise<CertificateAndKey | undefined> {
    const kept = await this.keys.get(serviceUID);
    return kept && (JSON.parse(kept.value) as CertificateAndKey);
  }

  /** Service UIDs with a kept CA, and the revision each was read at. */
  list(serviceUIDs?: string[]): Promise<Array<{ id: string; revision: number }>> {
    if (!serviceUIDs) return this.keys.list();
    return Promise.all(
      serviceUIDs.map(async (id) => {
        const kept = await this.keys.get(id);
        return kept && { id, revision: kept.revision };
      }),
    ).then((found) => found.filter((k) => k !== undefined));
  }

  /** Removes a CA if it is still at `revision` (false: written again, or gone, meanwhile). */
  removeAt(serviceUID: string, revision: number): Promise<boolean> {
    return this.keys.removeAt(serviceUID, revision);
  }

  /**
   * The transaction write that keeps `ca` for `serviceUID`; it fails (`onExists`) when a CA is
   * kept for it already. That makes the key the import's lock on the service UID: a CA is
   * kept exactly while an instance refers to it (ca-cleanup.ts removes it with the last one),
   * so of two imports of one virtual cluster only the first can write, however they interleave.
   */
  keepOp(serviceUID: string, ca: CertificateAndKey, onExists: () => ApiError): TransactOp {
    const value = JSON.stringify({ certPem: ca.certPem, keyPem: ca.keyPem });
    return { type: "keep", keys: this.keys, id: serviceUID, value, onExists };
  }
}
