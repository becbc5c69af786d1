import type { KubeObject } from "../../api/object.js";
import { isEncrypted } from "../../crypto/secret-box.js";
import type { SecretDataCipher } from "../shared-secret/shared-secret.js";
import type { AccessKeyIdentity } from "./identity-schema.js";

function identityOf(obj: KubeObject | undefined): AccessKeyIdentity | undefined {
  const identity = obj?.spec?.identity;
  return identity && typeof identity === "object" ? (identity as AccessKeyIdentity) : undefined;
}

/**
 * `spec.identity.connectorData` (an SSO login's refresh token) is written by the server only:
 * clients never see it, so a client's create or update cannot set it and keeps what is stored
 * (an edited key read without it would otherwise lose it).
 */
export function keepServerIdentityData(obj: KubeObject, old: KubeObject | undefined, byServer: boolean): void {
  if (byServer) return;
  // The deprecated oidcLogin (tokens) is not shown either: an update that leaves it out keeps it.
  if (old?.spec?.oidcLogin !== undefined && obj.spec && obj.spec.oidcLogin === undefined) {
    obj.spec.oidcLogin = old.spec.oidcLogin;
  }
  const stored = identityOf(old)?.connectorData;
  const given = identityOf(obj);
  if (stored === undefined) {
    if (given) delete given.connectorData;
    return;
  }
  obj.spec ??= {};
  obj.spec.identity = { ...(given ?? {}), connectorData: stored };
}

/**
 * Encrypts connectorData on its way to storage. It stays encrypted in memory too (reads, caches,
 * informers): only the SSO refresher decrypts it, so no read of a key ever holds the plaintext.
 */
export function encryptConnectorData(obj: KubeObject, cipher: SecretDataCipher): KubeObject {
  const identity = identityOf(obj);
  const data = identity?.connectorData;
  if (typeof data !== "string" || data === "" || isEncrypted(data)) return obj;
  return { ...obj, spec: { ...obj.spec, identity: { ...identity, connectorData: cipher.encrypt(data) } } };
}
