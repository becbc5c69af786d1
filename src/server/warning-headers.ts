/**
 * `Warning: 299 - "text"` response headers, built as kube-apiserver builds them
 * (k8s.io/apiserver/pkg/endpoints/filters/warning.go, net.NewWarningHeader):
 * - the text is quoted with `"` and `\` backslash-escaped, and sent as raw UTF-8
 *   (Node writes header strings as Latin-1, so the UTF-8 bytes are passed as Latin-1
 *   characters: a field name outside Latin-1 no longer makes the response fail);
 * - control characters, which kube-apiserver refuses in a warning, become spaces here
 *   so the warning is kept;
 * - duplicates are sent once;
 * - at most 4096 characters of warning text in total: once over that, every warning is cut
 *   to 256 characters, and warnings past the total are left out (kube's truncation);
 * - besides, at most 50 headers and 8 KiB of header values, so one body with thousands of
 *   unknown fields cannot produce a header block clients refuse (Node's limit is 16 KiB).
 *   When warnings are left out, the last header says how many.
 */

/** kube-apiserver's truncateAtTotalRunes. */
const WARNING_TOTAL_CHARACTERS = 4096;
/** kube-apiserver's truncateItemRunes. */
export const WARNING_ITEM_CHARACTERS = 256;
/** The most Warning headers one response carries. */
export const MAX_WARNING_HEADERS = 50;
/** The most bytes (UTF-8) of Warning header values one response carries. */
export const MAX_WARNING_HEADER_BYTES = 8 * 1024;

// C0 controls, DEL and C1 controls: what Go's unicode.IsControl matches.
const CONTROL = /\p{Cc}+/gu;

export function warningHeaders(warnings: readonly string[]): string[] {
  const texts = [...new Set(warnings)].map((w) => [...w.replace(CONTROL, " ")]).filter((w) => w.length > 0);
  const total = texts.reduce((n, t) => n + t.length, 0);
  const chosen: string[] = [];
  if (total <= WARNING_TOTAL_CHARACTERS) {
    for (const t of texts) chosen.push(t.join(""));
  } else {
    let written = 0;
    for (const t of texts) {
      if (written >= WARNING_TOTAL_CHARACTERS) break;
      const cut = t.slice(0, WARNING_ITEM_CHARACTERS);
      written += cut.length;
      chosen.push(cut.join(""));
    }
  }
  return capped(chosen, texts.length);
}

/** Keeps what fits the header count and byte limits; the last header counts what was left out. */
function capped(texts: string[], all: number): string[] {
  const headers: string[] = [];
  let bytes = 0;
  // Room for the "left out" note, which is short.
  const room = MAX_WARNING_HEADER_BYTES - 64;
  for (const text of texts) {
    const header = encode(text);
    if (headers.length + 1 >= MAX_WARNING_HEADERS || bytes + header.length > room) break;
    headers.push(header);
    bytes += header.length;
  }
  const omitted = all - headers.length;
  if (omitted > 0) headers.push(encode(`${omitted} more warning${omitted === 1 ? " was" : "s were"} left out`));
  return headers;
}

/** `299 - "text"` as the Latin-1 string whose bytes are the header's UTF-8. */
function encode(text: string): string {
  const quoted = `299 - "${text.replace(/["\\]/g, "\\$&")}"`;
  return Buffer.from(quoted, "utf8").toString("latin1");
}
