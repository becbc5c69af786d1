/**
 * The reading side of a bench watch held on a raw TLS connection: the response head is checked,
 * then each event's stamp (the string after `needle`, up to the closing quote) is found by a byte
 * search, with no HTTP parser and no JSON, so the measuring client spends as little CPU per event
 * as it can on the cores it shares with the server.
 */
const QUOTE = 0x22;

/** A `data` handler: `head` once the response head came (with the error when it is not a 200), `stamp` per event. */
export function stampReader(
  needle: Buffer,
  on: { head(error?: Error): void; stamp(value: number): void },
): (chunk: Buffer) => void {
  let headers = true;
  // What may be the start of a stamp cut by the end of a read waits for the next one.
  let carry: Buffer | undefined;
  return (chunk) => {
    let buf = carry ? Buffer.concat([carry, chunk]) : chunk;
    carry = undefined;
    if (headers) {
      const end = buf.indexOf("\r\n\r\n");
      if (end < 0) {
        carry = buf;
        return;
      }
      if (!buf.subarray(0, 12).toString("latin1").startsWith("HTTP/1.1 200")) {
        on.head(new Error(`watch answered ${buf.subarray(0, end).toString()}`));
        return;
      }
      headers = false;
      on.head();
      buf = buf.subarray(end + 4);
    }
    // Each event carries one stamp; the chunk framing around the events is not needed.
    let at = buf.indexOf(needle);
    while (at >= 0) {
      const from = at + needle.length;
      const to = buf.indexOf(QUOTE, from);
      if (to < 0) break;
      on.stamp(Number(buf.toString("latin1", from, to)));
      at = buf.indexOf(needle, to);
    }
    if (at >= 0) carry = buf.subarray(at);
    else if (buf.length >= needle.length) carry = buf.subarray(buf.length - needle.length + 1);
    else carry = buf;
  };
}
