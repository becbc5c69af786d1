import { readFileSync } from "node:fs";
import { loadOrCreateServerTls, servingHostsForListen } from "../crypto/certificates.js";
import { loadOrCreateSigningKey, type TokenSigner } from "../crypto/jwt.js";
import { loadOrCreateEncryptionKeys } from "../crypto/secret-box.js";
import type { ServerConfig } from "./config.js";

/** The server's keys: TLS (given, or generated in the data dir), the data encryption keys and the token signer. */
export async function loadKeys(
  config: ServerConfig,
  dataDir: string,
): Promise<{
  tls: { certPem: string; keyPem: string };
  /** The CA of a generated TLS certificate (undefined when the certificate was given). */
  caPem: string | undefined;
  /** Encrypts SharedSecret data and kept CA keys at rest. */
  cipher: { encrypt(v: string): string; decrypt(v: string): string };
  signer: TokenSigner;
}> {
  const given =
    config.tlsCertFile && config.tlsKeyFile
      ? { certPem: readFileSync(config.tlsCertFile, "utf8"), keyPem: readFileSync(config.tlsKeyFile, "utf8") }
      : undefined;
  // The listen host is among the names, so that clients sent to that address accept the certificate.
  const generated = given
    ? undefined
    : await loadOrCreateServerTls(dataDir, { extraHosts: servingHostsForListen(config.host) });
  const secretBox = loadOrCreateEncryptionKeys(
    config.encryptionKeyFile ? { keyFile: config.encryptionKeyFile } : { dataDir },
  );
  return {
    tls: given ?? generated!,
    caPem: generated?.caPem,
    cipher: {
      encrypt: (v) => secretBox.encrypt(Buffer.from(v, "utf8")),
      decrypt: (v) => secretBox.decrypt(v).toString("utf8"),
    },
    signer: await loadOrCreateSigningKey(dataDir),
  };
}
