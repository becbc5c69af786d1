/**
 * The HPACK header block (RFC 7541) of a gRPC request, written without the dynamic table: the
 * static table's entries where they match (:method POST, :scheme), literals "without indexing"
 * otherwise, and etcd's auth token "never indexed" (a proxy must not put it in a table). A
 * request then never depends on what the peer's decoder remembers, and the part without the
 * token is the same for every call to one method, so it is built once per method.
 */

/** An HPACK integer with an N-bit prefix whose high bits are `first` (RFC 7541 §5.1). */
function pushInt(out: number[], first: number, prefixBits: number, value: number): void {
  const max = (1 << prefixBits) - 1;
  if (value < max) {
    out.push(first | value);
    return;
  }
  out.push(first | max);
  let rest = value - max;
  while (rest >= 0x80) {
    out.push((rest & 0x7f) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  out.push(rest);
}

/** A string literal, not Huffman-coded (RFC 7541 §5.2). */
function pushString(out: number[], value: string): void {
  const bytes = Buffer.from(value, "latin1");
  pushInt(out, 0x00, 7, bytes.length);
  for (const b of bytes) out.push(b);
}

/** A literal field whose name is static-table entry `nameIndex`, without indexing (§6.2.2). */
function pushIndexedName(out: number[], nameIndex: number, value: string): void {
  pushInt(out, 0x00, 4, nameIndex);
  pushString(out, value);
}

/** A literal field with a literal name; `never` marks it never indexed (§6.2.3). */
function pushLiteral(out: number[], name: string, value: string, never: boolean): void {
  out.push(never ? 0x10 : 0x00);
  pushString(out, name);
  pushString(out, value);
}

/** Static-table indexes (RFC 7541 Appendix A). */
const AUTHORITY = 1;
const METHOD_POST = 3;
const PATH = 4;
const SCHEME_HTTP = 6;
const SCHEME_HTTPS = 7;
const CONTENT_TYPE = 31;

export interface RequestTarget {
  readonly scheme: "http" | "https";
  /** host:port */
  readonly authority: string;
}

/** Header blocks of the requests to one peer, by method path. */
export class RequestHeaderBlocks {
  private readonly byPath = new Map<string, Buffer>();

  constructor(private readonly target: RequestTarget) {}

  /** The block for a call to `path`, with etcd's auth `token` metadata when given. */
  block(path: string, token: string | undefined): Buffer {
    let base = this.byPath.get(path);
    if (base === undefined) {
      base = this.encode(path);
      this.byPath.set(path, base);
    }
    if (token === undefined) return base;
    const tail: number[] = [];
    pushLiteral(tail, "token", token, true);
    return Buffer.concat([base, Buffer.from(tail)]);
  }

  private encode(path: string): Buffer {
    const out: number[] = [];
    pushInt(out, 0x80, 7, METHOD_POST);
    pushInt(out, 0x80, 7, this.target.scheme === "https" ? SCHEME_HTTPS : SCHEME_HTTP);
    pushIndexedName(out, PATH, path);
    pushIndexedName(out, AUTHORITY, this.target.authority);
    pushIndexedName(out, CONTENT_TYPE, "application/grpc");
    pushLiteral(out, "te", "trailers", false);
    return Buffer.from(out);
  }
}
