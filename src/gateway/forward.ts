import type {
  ClientRequest,
  IncomingHttpHeaders,
  IncomingMessage,
  OutgoingHttpHeaders,
  ServerResponse,
} from "node:http";
import { request as httpsRequest } from "node:https";
import type { Duplex } from "node:stream";
import { classifyError } from "../controllers/cluster-health/cluster-connection.js";
import { writeStatus, writeStatusToSocket } from "./raw-status.js";
import type { Upstream } from "./upstream.js";

/**
 * Forwarding one request to an upstream API server with node's http primitives: the request
 * body and the response are piped chunk by chunk (watch, `logs -f` and large lists stream), an
 * upgrade (exec, attach, port-forward over WebSocket or SPDY) is answered with the upstream's
 * 101 and then the two sockets are piped. No redirect is followed (node's client never does).
 * A proxy library was not used: what this needs beyond node is header hygiene and accounting,
 * and both the central gateway and the agent share this file.
 */

/** Who the upstream should take the request to be (Impersonate-User/-Group); absent when a client certificate says it. */
export interface Impersonation {
  user: string;
  groups: readonly string[];
}

export interface ForwardTarget {
  upstream: Upstream;
  /** The path below the upstream's base, with its query (`/api/v1/pods?watch=1`). */
  path: string;
  impersonate?: Impersonation;
}

/** What the audit line needs: the status the client got, and the bytes sent to it. */
export interface ForwardResult {
  code: number;
  bytes: number;
}

/** Never forwarded: hop-by-hop headers, the caller's own credentials and identity claims. */
const DROPPED_REQUEST_HEADERS = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
  "authorization",
  "cookie",
]);
const DROPPED_RESPONSE_HEADERS = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "trailer",
  "upgrade",
]);

function connectionTokens(headers: IncomingHttpHeaders): Set<string> {
  const value = headers.connection;
  return new Set(
    (value ?? "")
      .split(",")
      .map((t) => t.trim().toLowerCase())
      .filter((t) => t !== "" && t !== "upgrade" && t !== "close" && t !== "keep-alive"),
  );
}

/** The headers sent upstream: the caller's own minus credentials and impersonation, plus ours. */
export function upstreamHeaders(req: IncomingMessage, target: ForwardTarget, upgrade: boolean): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  const named = connectionTokens(req.headers);
  // headersDistinct keeps a header sent on several lines as several values (req.headers joins
  // them with ", "): SPDY's X-Stream-Protocol-Version offers one protocol per line, and an API
  // server matches each line exactly.
  for (const [name, values] of Object.entries(req.headersDistinct)) {
    if (values === undefined || DROPPED_REQUEST_HEADERS.has(name) || named.has(name)) continue;
    if (name.startsWith("impersonate-")) continue;
    out[name] = values.length === 1 ? values[0] : values;
  }
  Object.assign(out, target.upstream.headers);
  if (target.impersonate) {
    out["impersonate-user"] = target.impersonate.user;
    // An array is sent as one header line per value: one Impersonate-Group per group.
    if (target.impersonate.groups.length > 0) out["impersonate-group"] = [...target.impersonate.groups];
  }
  if (upgrade) {
    out.connection = "Upgrade";
    out.upgrade = req.headers.upgrade ?? "";
  }
  return out;
}

function responseHeaders(res: IncomingMessage): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  const named = connectionTokens(res.headers);
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined || DROPPED_RESPONSE_HEADERS.has(name) || named.has(name)) continue;
    out[name] = value;
  }
  return out;
}

function upstreamRequest(req: IncomingMessage, target: ForwardTarget, upgrade: boolean) {
  const { base, pathPrefix, agent } = target.upstream;
  return httpsRequest({
    protocol: "https:",
    hostname: base.hostname.replace(/^\[|\]$/g, ""),
    port: base.port || 443,
    path: `${pathPrefix}${target.path.startsWith("/") ? "" : "/"}${target.path}`,
    method: req.method,
    headers: upstreamHeaders(req, target, upgrade),
    // An upgraded socket leaves the pool; a plain one goes back to it.
    agent,
  });
}

/** The 503 for a connection that failed before the upstream answered, with the health check's reason names. */
function unreachable(err: unknown, target: ForwardTarget) {
  const e = classifyError(err, target.upstream.base.origin);
  return { code: 503, reason: "ServiceUnavailable" as const, message: `${e.reason}: ${e.message}` };
}

function credentialsRejected(target: ForwardTarget) {
  return {
    code: 503,
    reason: "ServiceUnavailable" as const,
    message: `Unauthorized: the cluster at ${target.upstream.base.origin} rejected the platform's credentials (401 Unauthorized)`,
  };
}

/** One exchange's accounting: the status the client got, the bytes sent to it, and `done` called once. */
interface Exchange extends ForwardResult {
  finish(): void;
}

/**
 * What both forwarders begin with: the accounting, and the upstream request unless the client
 * left while the request was being authorized (then the exchange is over as 499, nothing is sent).
 */
function begin(
  client: { destroyed: boolean },
  req: IncomingMessage,
  target: ForwardTarget,
  upgrade: boolean,
  done: (r: ForwardResult) => void,
): { x: Exchange; upReq: ClientRequest } | undefined {
  let over = false;
  const x: Exchange = {
    code: 0,
    bytes: 0,
    finish() {
      if (over) return;
      over = true;
      done({ code: x.code, bytes: x.bytes });
    },
  };
  if (client.destroyed) {
    x.code = 499;
    x.finish();
    return undefined;
  }
  return { x, upReq: upstreamRequest(req, target, upgrade) };
}

/** Forwards a plain (non-upgrade) request; `done` is called once, when the exchange is over. */
export function forwardHttp(
  req: IncomingMessage,
  res: ServerResponse,
  target: ForwardTarget,
  done: (r: ForwardResult) => void,
): void {
  const started = begin(res, req, target, false, done);
  if (!started) return;
  const { x, upReq } = started;
  upReq.on("response", (upRes) => {
    x.code = upRes.statusCode ?? 502;
    if (x.code === 401) {
      // The upstream refused the platform's own credentials: the caller's are fine, the cluster is unusable.
      upRes.resume();
      const s = credentialsRejected(target);
      x.code = s.code;
      x.bytes += writeStatus(res, s.code, s.reason, s.message);
      return;
    }
    const delimited = upRes.headers["content-length"] !== undefined;
    upRes.on("error", () => {
      // The upstream went away mid-response. A chunked stream (a watch) is ended cleanly, so
      // the client sees the end of its watch; a body of announced length cannot be, so it is cut.
      if (delimited) res.destroy();
      else res.end();
    });
    // The body that came with the headers is parsed in the same turn: wait for it, then either
    // answer at once or stream.
    setImmediate(() => relayResponse(req, upRes, res, x));
  });
  upReq.on("error", (err) => {
    if (res.headersSent) {
      res.destroy();
    } else {
      const s = unreachable(err, target);
      x.code = s.code;
      x.bytes += writeStatus(res, s.code, s.reason, s.message);
    }
    x.finish();
  });
  res.on("close", () => {
    // The client went away (or the response is complete): nothing more is wanted upstream.
    if (!res.writableFinished) upReq.destroy();
    x.finish();
  });
  req.pipe(upReq);
}

/**
 * A response the upstream has already sent whole (one object, a short list) goes out as one
 * write with its Content-Length: headers, body and the end of a chunked body would otherwise be
 * three TLS records. Anything still arriving (a watch, `logs -f`, a large list) is streamed:
 * its headers are sent at once, so the client sees them long before a first event, then each
 * chunk as it comes. What is held is what already arrived, never more than a socket read.
 */
function relayResponse(req: IncomingMessage, upRes: IncomingMessage, res: ServerResponse, x: Exchange): void {
  if (res.destroyed) return;
  const headers = responseHeaders(upRes);
  if (upRes.complete) {
    const chunks: Buffer[] = [];
    for (let c: Buffer | null = upRes.read(); c !== null; c = upRes.read()) chunks.push(c);
    const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    // A HEAD answer and a 204/304 carry no body, whatever length they announce.
    const bodiless = req.method === "HEAD" || x.code === 204 || x.code === 304;
    if (!bodiless && headers["content-length"] === undefined) headers["content-length"] = body.length;
    x.bytes += body.length;
    res.writeHead(x.code, headers);
    res.end(body);
    upRes.resume();
    return;
  }
  res.writeHead(x.code, headers);
  if (headers["content-length"] === undefined) res.flushHeaders();
  upRes.on("data", (chunk: Buffer) => {
    x.bytes += chunk.length;
  });
  upRes.pipe(res);
}

/** Forwards an upgrade request (exec, attach, port-forward); after the upstream's 101 the sockets are piped. */
export function forwardUpgrade(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  target: ForwardTarget,
  done: (r: ForwardResult) => void,
): void {
  const started = begin(socket, req, target, true, done);
  if (!started) return;
  const { x, upReq } = started;
  socket.on("error", () => socket.destroy());
  socket.on("close", () => {
    upReq.destroy();
    x.finish();
  });
  upReq.on("upgrade", (upRes, upSocket, upHead) => {
    x.code = upRes.statusCode ?? 101;
    socket.write(rawResponseHead(upRes, upRes.rawHeaders));
    if (upHead.length > 0) socket.write(upHead);
    if (head.length > 0) upSocket.write(head);
    upSocket.on("data", (chunk: Buffer) => {
      x.bytes += chunk.length;
    });
    upSocket.on("error", () => upSocket.destroy());
    upSocket.on("close", () => socket.end());
    socket.on("close", () => upSocket.destroy());
    upSocket.pipe(socket);
    socket.pipe(upSocket);
  });
  upReq.on("response", (upRes) => {
    // The upstream refused the upgrade (403, 404, 400): its answer goes back, then the connection closes.
    x.code = upRes.statusCode ?? 502;
    if (x.code === 401) {
      upRes.resume();
      const s = credentialsRejected(target);
      x.code = s.code;
      x.bytes += writeStatusToSocket(socket, s.code, s.reason, s.message);
      return;
    }
    const kept: string[] = [];
    const raw = upRes.rawHeaders;
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = raw[i]!.toLowerCase();
      if (DROPPED_RESPONSE_HEADERS.has(name) || name === "content-length") continue;
      kept.push(raw[i]!, raw[i + 1]!);
    }
    kept.push("Connection", "close");
    socket.write(rawResponseHead(upRes, kept));
    upRes.on("data", (chunk: Buffer) => {
      x.bytes += chunk.length;
    });
    upRes.pipe(socket);
    upRes.on("error", () => socket.destroy());
  });
  upReq.on("error", (err) => {
    if (x.code === 0) {
      const s = unreachable(err, target);
      x.code = s.code;
      x.bytes += writeStatusToSocket(socket, s.code, s.reason, s.message);
    } else socket.destroy();
    x.finish();
  });
  upReq.end();
}

function rawResponseHead(res: IncomingMessage, rawHeaders: readonly string[]): string {
  let head = `HTTP/1.1 ${res.statusCode} ${res.statusMessage ?? ""}\r\n`;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) head += `${rawHeaders[i]}: ${rawHeaders[i + 1]}\r\n`;
  return `${head}\r\n`;
}
