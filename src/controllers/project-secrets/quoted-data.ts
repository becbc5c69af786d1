import { quotesAnyValue } from "../../clusters/quoted-values.js";

/**
 * A cluster's refusal of a filled Secret may quote the object it refused (an admission webhook or a
 * ValidatingAdmissionPolicy's message may; kube-apiserver's own errors redact a Secret's data), and
 * that object carries the project secret's values and the Secret's other keys. The refusal reaches
 * the project secret's `status.spaces`, whose readers may not read those values (a viewer of the
 * project reads project secrets without their data).
 */

/** How a refusal that quotes the Secret's data is told instead: what failed, never what was quoted. */
export const DATA_WITHHELD =
  "the cluster refused it with a message that quotes a value of the Secret's data, withheld here";

/**
 * `Secret NAME: message` as it may be shown: the whole message when it quotes no value of the
 * given data maps (base64, as a Secret's `data`), as text or base64, even escaped or cut short
 * (clusters/quoted-values.ts); otherwise `Secret NAME: DATA_WITHHELD`.
 */
export function secretFailureMessage(
  secret: string,
  message: string,
  data: ReadonlyArray<Readonly<Record<string, string>> | undefined>,
): string {
  const values = data.flatMap((d) => Object.values(d ?? {}).map((v) => Buffer.from(v, "base64")));
  return `Secret ${secret}: ${quotesAnyValue(message, values) ? DATA_WITHHELD : message}`;
}
