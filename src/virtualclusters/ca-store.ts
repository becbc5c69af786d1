import { randomUUID } from "node:crypto";
import { type ApiError, errors } from "../api/errors.js";
import { GROUP, type KubeObject, statusOf } from "../api/object.js";
import { type CertificateAndKey, createCertificateAuthority } from "../crypto/certificates.js";
import type { InstanceCaIssuer } from "../kinds/virtual-cluster-instance/instance-ca.js";
import type { VirtualClusterInstanceStatus } from "../kinds/virtual-cluster-instance/virtual-cluster-instance.js";
import type { KeptKeys, KeptValueCipher } from "../registry/kept-keys.js";
import { KEPT_KEYS_PREFIX } from "../registry/kept-keys.js";
import type { Registry } from "../registry/registry.js";
import type { KeptWrite } from "../registry/resource-type.js";
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
 * same keys as SharedSecret data. An imported CA is keyed by the service UID, a CA the platform
 * made for an instance it creates by a random id in the instance's `status.caID` (not the
 * instance uid either way), so it survives a migration, which gives the instance a new uid but
 * keeps its status.
 */
const KEY_SPACE = "virtualcluster-ca";
/** Where the kept CAs are in storage (tests look at them there). */
export const CA_KEY_PREFIX = `${KEPT_KEYS_PREFIX}${KEY_SPACE}/`;

/** How long a CA the platform makes for a virtual cluster is valid, as long as kubeadm makes a cluster's CA. */
const CREATED_CA_VALIDITY_DAYS = 3650;

/** The id of the CA an instance's kube configs are signed with: the one made for it, else the imported one. */
export function caIdOf(instance: KubeObject): string | undefined {
  const status = statusOf<VirtualClusterInstanceStatus>(instance);
  return status.caID || status.serviceUID || undefined;
}

export class VirtualClusterCaStore implements InstanceCaIssuer {
  private readonly keys: KeptKeys;

  constructor(registry: Registry, cipher?: KeptValueCipher) {
    this.keys = registry.keptKeys(KEY_SPACE, cipher);
  }

  /** The kept CA of `instance` (caIdOf), if any. */
  forInstance(instance: KubeObject): Promise<CertificateAndKey | undefined> {
    const id = caIdOf(instance);
    return id ? this.get(id) : Promise.resolve(undefined);
  }

  /** A new CA for an instance the platform creates, to keep with it (kinds/virtual-cluster-instance/instance-ca.ts). */
  async issue(instance: KubeObject): Promise<{ id: string; keep: KeptWrite }> {
    const { name = "", namespace = "" } = instance.metadata;
    const ca = await createCertificateAuthority(`vcluster-ca ${namespace}/${name}`, CREATED_CA_VALIDITY_DAYS);
    const id = randomUUID();
    // A random id is never kept already; were it, the instance would be refused, never given another's CA.
    const keep = this.keepWrite(id, ca, () =>
      errors.conflict(
        { group: GROUP, resource: "virtualclusterinstances" },
        name,
        "its certificate authority could not be kept; try again",
      ),
    );
    return { id, keep };
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
    return { type: "keep", ...this.keepWrite(serviceUID, ca, onExists) };
  }

  private keepWrite(id: string, ca: CertificateAndKey, onExists: () => ApiError): KeptWrite {
    const value = JSON.stringify({ certPem: ca.certPem, keyPem: ca.keyPem });
    return { keys: this.keys, id, value, onExists };
  }
}
