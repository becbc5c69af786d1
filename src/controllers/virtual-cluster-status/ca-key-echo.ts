import { quotesAnyValue } from "../../clusters/quoted-values.js";
import type { CertificateAndKey } from "../../crypto/certificates.js";

/**
 * A cluster's refusal of an object may quote the values it refused (kube-apiserver's field errors
 * do: `metadata.labels: Invalid value: "…"`, and so may an admission webhook). A template that
 * puts the instance's CA key where the cluster refuses it would then have the key quoted in the
 * instance's status and its Events, which a project's viewers read and the key must never reach
 * (it signs certificates for anyone inside the virtual cluster).
 */

/** How a refusal that quotes the CA key is told instead: what failed, never what was quoted. */
export const WITHHELD = "the cluster refused it with a message that quotes the virtual cluster's CA key, withheld here";

/**
 * `message` as it may be shown, `prefix` (what failed: `Kind name`) kept: the whole message when
 * it quotes no part of the CA key, in its PEM form or the base64 of it (a Secret's data), even
 * escaped or cut short as a quoting error cuts values (clusters/quoted-values.ts); otherwise
 * `prefix: WITHHELD`.
 */
export function withoutCaKey(message: string, ca: Pick<CertificateAndKey, "keyPem">, prefix: string): string {
  if (!ca.keyPem) return message;
  const quoted = /PRIVATE KEY/.test(message) || quotesAnyValue(message, [Buffer.from(ca.keyPem, "utf8")]);
  return quoted ? `${prefix}: ${WITHHELD}` : message;
}
