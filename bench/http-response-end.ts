const HEADER_END = Buffer.from("\r\n\r\n");
const CRLF = Buffer.from("\r\n");

/**
 * Where the first complete HTTP response in `buf` ends, or -1 while it is incomplete. Its body
 * is framed by Content-Length or chunked (what the platform, the gateway and the stand-in
 * cluster send; an answer read only up to its headers would leave its chunks to be taken for
 * the next answer).
 */
export function responseEnd(buf: Buffer): number {
  const headEnd = buf.indexOf(HEADER_END);
  if (headEnd < 0) return -1;
  const head = buf.subarray(0, headEnd).toString("latin1");
  let at = headEnd + 4;
  if (!/\r\ntransfer-encoding:[^\r]*chunked/i.test(head)) {
    const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
    return buf.length >= at + length ? at + length : -1;
  }
  for (;;) {
    const lineEnd = buf.indexOf(CRLF, at);
    if (lineEnd < 0) return -1;
    const size = Number.parseInt(buf.subarray(at, lineEnd).toString("latin1"), 16);
    if (!Number.isFinite(size)) return -1;
    if (size === 0) {
      // No trailers are sent: the last chunk is `0\r\n\r\n`.
      return buf.length >= lineEnd + 4 ? lineEnd + 4 : -1;
    }
    at = lineEnd + 2 + size + 2;
    if (buf.length < at) return -1;
  }
}
