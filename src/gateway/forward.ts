import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders } from "node:http";
import { request as httpsRequest } from "node:https";
import type { Duplex } from "node:stream";
import { type ConnectionReason, classifyError } from "../clusters/cluster-connection.js";
import type { Impersonation } from "../registry/impersonation-identity.js";
import { writeStatusToSocket } from "../server/raw-status.js";
import { forwardedHops, GATEWAY_HOPS_HEADER } from "./gateway-hops.js";
import type { Upstream } from "./upstream.js";

/**
 * Forwarding to an upstream API server, the parts both kinds of request share (header hygiene,
 * accounting, the 503s) and upgrades: an upgrade (exec, attach, port-forward over WebSocket or
 * SPDY) is sent with node's https client, answered with the upstream's 101, and then the two
 * sockets are piped. Plain requests go through forward-http.ts. No redirect is followed.
 * A proxy library was not used: what this needs beyond node and undici is header hygiene and
 * accounting, and both the central gateway and the agent share these files.
 */

export type { Impersonation };

export interface ForwardTarget {
  upstream: Upstream;
  /** The path below the upstream's base, with its query (`/api/v1/pods?watch=1`). */
  path: string;
  impersonate?: Impersonation;
  /**
   * The 503's message when the upstream cannot be used: the target's name and the reason only.
   * Callers hold `use`, which does not let them read the Cluster (or instance) whose address,
   * and whose server's words, the error carries (clusterCannotBeUsed, cluster-connection.ts).
   */
  cannotBeUsed(reason: ConnectionReason): string;
}

/** What the audit line needs: the status the client got, and the bytes sent to it. */
export interface ForwardResult {
  code: number;
  bytes: number;
}

/** Never forwarded: hop-by-hop headers, the caller's own credentials and identity claims. */
export const DROPPED_REQUEST_HEADERS = new Set([
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
export const DROPPED_RESPONSE_HEADERS = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "trailer",
  "upgrade",
]);

export function connectionTokens(headers: IncomingHttpHeaders): Set<string> {
  const value = headers.connection;
  return new Set(
    (value ?? "")
      .split(",")
      .map((t) => t.trim().toLowerCase())
      .filter((t) => t !== "" && t !== "upgrade" && t !== "close" && t !== "keep-alive"),
  );
}

/** The headers sent upstream: the caller's own minus credentials and impersonation, plus ours and the hop count (gateway-hops.ts). */
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
  out[GATEWAY_HOPS_HEADER] = forwardedHops(req);
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

/** The 503 for a connection that failed before the upstream answered, with the health check's reason name. */
export function unreachable(err: unknown, target: ForwardTarget) {
  return unusable(target, classifyError(err, "").reason);
}

/** The 503 for an upstream that refused the platform's own credentials (its 401): the caller's are fine. */
export function credentialsRejected(target: ForwardTarget) {
  return unusable(target, "Unauthorized");
}

function unusable(target: ForwardTarget, reason: ConnectionReason) {
  return { code: 503, reason: "ServiceUnavailable" as const, message: target.cannotBeUsed(reason) };
}

/** One exchange's accounting: the status the client got, the bytes sent to it, and `done` called once. */
export interface Exchange extends ForwardResult {
  finish(): void;
}

/**
 * What both forwarders begin with: the accounting, unless the client left while the request was
 * being authorized (then the exchange is over as 499 and nothing is sent upstream).
 */
export function begin(client: { destroyed: boolean }, done: (r: ForwardResult) => void): Exchange | undefined {
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
  return x;
}

/** Forwards an upgrade request (exec, attach, port-forward); after the upstream's 101 the sockets are piped. */
export function forwardUpgrade(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  target: ForwardTarget,
  done: (r: ForwardResult) => void,
): void {
  const x = begin(socket, done);
  if (!x) return;
  const upReq = upstreamRequest(req, target, true);
  socket.on("error", () => socket.destroy());
  socket.on("close", () => {
    upReq.destroy();
    x.finish();
  });
  upReq.on("upgrade", (upRes, upSocket, upHead) => {
    x.code = upRes.statusCode ?? 101;
    socket.write(rawResponseHead(upRes, upRes.rawHeaders));
    // Bytes the cluster sent with its 101 are the first of the stream: sent on, and counted.
    if (upHead.length > 0) {
      socket.write(upHead);
      x.bytes += upHead.length;
    }
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
      x.bytes += writeStatusToSocket(socket, req.method, s.code, s.reason, s.message);
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
      x.bytes += writeStatusToSocket(socket, req.method, s.code, s.reason, s.message);
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
