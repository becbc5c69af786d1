import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { Dispatcher } from "undici";
import { writeStatus } from "../server/raw-status.js";
import {
  begin,
  connectionTokens,
  credentialsRejected,
  DROPPED_REQUEST_HEADERS,
  DROPPED_RESPONSE_HEADERS,
  type Exchange,
  type ForwardResult,
  type ForwardTarget,
  type Impersonation,
  isIdentityClaim,
  unreachable,
} from "./forward.js";
import { forwardedHops, GATEWAY_HOPS_HEADER } from "./gateway-hops.js";
import type { Upstream } from "./upstream.js";

/**
 * Forwards a plain (non-upgrade) request through the upstream's undici Pool: a keep-alive pool
 * whose per-request cost is a fraction of node's ClientRequest. The request body is streamed up
 * (never buffered), the response streamed down with backpressure. A response the upstream sent
 * whole (one object, a short list) goes out as one write with its Content-Length: headers, body
 * and the end of a chunked body would otherwise be three TLS records. Anything still arriving
 * after that (a watch, `logs -f`, a large list) is streamed: its headers are sent at once, so
 * the client sees them long before a first event, then each chunk as it comes. `done` is called
 * once, when the exchange is over.
 */
export function forwardHttp(
  req: IncomingMessage,
  res: ServerResponse,
  target: ForwardTarget,
  done: (r: ForwardResult) => void,
): void {
  const x = begin(res, done);
  if (!x) return;
  const { upstream } = target;
  const hasBody = req.headers["content-length"] !== undefined || req.headers["transfer-encoding"] !== undefined;
  if (!hasBody) req.resume();
  const handler = new Relay(req, res, target, x);
  res.on("close", () => {
    // The client went away (or the response is complete): nothing more is wanted upstream.
    if (!res.writableFinished) handler.abort();
    x.finish();
  });
  upstream.pool.dispatch(
    {
      origin: upstream.base.origin,
      path: `${upstream.pathPrefix}${target.path.startsWith("/") ? "" : "/"}${target.path}`,
      method: (req.method ?? "GET") as Dispatcher.HttpMethod,
      headers: headerLines(req, target),
      body: hasBody ? req : null,
      // Watches and `logs -f` stay open as long as the client wants.
      headersTimeout: 0,
      bodyTimeout: 0,
    },
    handler,
  );
}

/**
 * The header lines sent upstream, as undici takes them (name, value, name, value...): the
 * caller's own lines as they came (a header sent on several lines stays several lines: SPDY's
 * X-Stream-Protocol-Version offers one protocol per line) minus hop-by-hop headers, credentials
 * and identity claims, then ours and the hop count (gateway-hops.ts). undici refuses `expect`.
 */
function headerLines(req: IncomingMessage, target: ForwardTarget): string[] {
  const ours = ourHeaderLines(target.upstream, target.impersonate);
  const raw = req.rawHeaders;
  const named = req.headers.connection === undefined ? undefined : connectionTokens(req.headers);
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (DROPPED_REQUEST_HEADERS.has(name) || isIdentityClaim(name) || name === "expect") continue;
    if (named?.has(name) || target.upstream.headers[name] !== undefined || name === GATEWAY_HOPS_HEADER) continue;
    out.push(raw[i]!, raw[i + 1]!);
  }
  for (const line of ours) out.push(line);
  out.push(GATEWAY_HOPS_HEADER, forwardedHops(req));
  return out;
}

/**
 * The upstream's credential headers (Upstream.headerLines, made with it: an Upstream is
 * replaced, never changed) and the caller's Impersonate-* lines (one Impersonate-Group per group).
 */
function ourHeaderLines(upstream: Upstream, who: Impersonation | undefined): readonly string[] {
  const credentials = upstream.headerLines;
  if (!who) return credentials;
  const lines = [...credentials, "impersonate-user", who.user];
  for (const g of who.groups) lines.push("impersonate-group", g);
  return lines;
}

/** The dispatch handler: the upstream's answer, relayed to the client. */
class Relay implements Dispatcher.DispatchHandlers {
  private abortUpstream?: (err?: Error) => void;
  private aborted = false;
  private headers?: OutgoingHttpHeaders;
  /** Body chunks held until the turn the headers came in is over (then either all of it, or a stream). */
  private held: Buffer[] | undefined;
  private complete = false;
  private delimited = false;
  private rejected = false;
  /** undici's resume(), registered for the client's `drain` the first time a write is refused. */
  private resume?: () => void;
  private waitsForDrain = false;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly target: ForwardTarget,
    private readonly x: Exchange,
  ) {}

  abort(): void {
    this.aborted = true;
    this.abortUpstream?.();
  }

  onConnect(abort: (err?: Error) => void): void {
    this.abortUpstream = abort;
    if (this.aborted) abort();
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[] | string[] | null, resume: () => void): boolean {
    // An informational answer (103 Early Hints) precedes the real one: wait for that.
    if (statusCode < 200) return true;
    this.x.code = statusCode;
    if (statusCode === 401) {
      // The upstream refused the platform's own credentials: the caller's are fine, the cluster is unusable.
      this.rejected = true;
      const s = credentialsRejected(this.target);
      this.x.code = s.code;
      this.x.bytes += writeStatus(this.res, s.code, s.reason, s.message);
      return true;
    }
    this.headers = relayedHeaders(rawHeaders ?? []);
    this.delimited = this.headers["content-length"] !== undefined;
    this.held = [];
    this.resume = resume;
    // The body that came with the headers arrives in this same turn: wait for it.
    setImmediate(() => this.startStreaming());
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.rejected) return true;
    this.x.bytes += chunk.length;
    if (this.held) {
      this.held.push(chunk);
      return true;
    }
    if (this.res.write(chunk)) return true;
    // The client reads slower than the upstream sends: undici pauses until the client drains.
    if (!this.waitsForDrain && this.resume) {
      this.waitsForDrain = true;
      this.res.on("drain", this.resume);
    }
    return false;
  }

  onComplete(): void {
    this.complete = true;
    if (this.rejected) return;
    // Complete in the turn its headers came: answered whole now (the turn's end finds nothing held).
    if (this.held) this.startStreaming();
    else this.res.end();
  }

  onError(err: Error): void {
    if (this.rejected) {
      // The 401 was answered already.
    } else if (this.headers) {
      // The upstream went away mid-response. A chunked stream (a watch) is ended cleanly, so
      // the client sees the end of its watch; a body of announced length cannot be, so it is cut.
      if (this.held) this.flushHeld();
      if (this.delimited) this.res.destroy();
      else this.res.end();
    } else if (!this.aborted && !this.res.destroyed) {
      const s = unreachable(err, this.target);
      this.x.code = s.code;
      this.x.bytes += writeStatus(this.res, s.code, s.reason, s.message);
    }
    this.x.finish();
  }

  private startStreaming(): void {
    if (this.res.destroyed || !this.held || !this.headers) return;
    if (this.complete) {
      const body = this.held.length === 1 ? this.held[0]! : Buffer.concat(this.held);
      this.held = undefined;
      // A HEAD answer and a 204/304 carry no body, whatever length they announce.
      const bodiless = this.req.method === "HEAD" || this.x.code === 204 || this.x.code === 304;
      if (!bodiless && this.headers["content-length"] === undefined) this.headers["content-length"] = body.length;
      this.res.writeHead(this.x.code, this.headers);
      this.res.end(body);
      return;
    }
    this.flushHeld();
  }

  private flushHeld(): void {
    const held = this.held ?? [];
    this.held = undefined;
    if (!this.res.headersSent) {
      this.res.writeHead(this.x.code, this.headers);
      if (!this.delimited) this.res.flushHeaders();
    }
    for (const c of held) this.res.write(c);
  }
}

/** `Connection: keep-alive` (what every keep-alive answer says) names no header. */
const PLAIN_CONNECTION = /^\s*(keep-alive|close)\s*$/i;

function relayedHeaders(raw: Buffer[] | string[]): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  let connection: string | undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toString().toLowerCase();
    const value = raw[i + 1]!.toString();
    if (name === "connection") connection = connection === undefined ? value : `${connection}, ${value}`;
    if (DROPPED_RESPONSE_HEADERS.has(name)) continue;
    const prior = out[name];
    out[name] = prior === undefined ? value : Array.isArray(prior) ? [...prior, value] : [String(prior), value];
  }
  // Headers the upstream named in Connection are for the hop, not for the client.
  if (connection !== undefined && !PLAIN_CONNECTION.test(connection)) {
    for (const name of connectionTokens({ connection })) delete out[name];
  }
  return out;
}
