/**
 * Whether a message quotes a secret value: an error from elsewhere (a connected cluster's refusal,
 * which kube-apiserver's field errors and admission webhooks write) may repeat what it refused, and
 * such a message must not reach readers who may not read the value.
 */

/**
 * Quotes of a long value are looked for in pieces of this length: a quote cut short (as error
 * messages cut long values) or broken by escapes still holds one whole piece once it runs to twice
 * this length (less one). Long enough that a piece of a random value does not turn up in a message by chance.
 */
const PIECE = 16;

/**
 * True when `message` holds any of `values` (each the value's bytes, not encoded): as text, as its
 * base64 (a Secret's `data`), or as the inside of a JSON (or Go `%q`) string, whole or a piece of
 * it. A value however short counts whole: a short secret is no less secret, and a message withheld
 * by a chance match only says less. Empty values never match.
 */
export function quotesAnyValue(message: string, values: Iterable<Uint8Array>): boolean {
  const pieces = new Set<string>();
  for (const value of values) {
    for (const form of formsOf(value)) {
      if (form.length <= PIECE) {
        if (message.includes(form)) return true;
        continue;
      }
      for (let i = 0; i + PIECE <= form.length; i += PIECE) pieces.add(form.slice(i, i + PIECE));
      pieces.add(form.slice(-PIECE));
    }
  }
  if (pieces.size === 0) return false;
  // Every run of the message of a piece's length, looked up: linear in the message, however many values.
  for (let i = 0; i + PIECE <= message.length; i++) {
    if (pieces.has(message.slice(i, i + PIECE))) return true;
  }
  return false;
}

/** How a value can be written in a message: as text, its base64, its JSON-escaped text. */
function formsOf(value: Uint8Array): string[] {
  if (value.length === 0) return [];
  const bytes = Buffer.from(value);
  const text = bytes.toString("utf8");
  return [...new Set([text, bytes.toString("base64"), JSON.stringify(text).slice(1, -1)])];
}
