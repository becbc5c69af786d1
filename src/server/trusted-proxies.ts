import type { IncomingMessage } from "node:http";
import proxyAddr from "@fastify/proxy-addr";

/** Whether an address (one hop of the chain, 0 being the direct peer) is a trusted proxy. */
export type TrustFn = (address: string, hop: number) => boolean;

/**
 * `--trusted-proxies`: the load balancers and proxies in front of the server, as CIDR ranges (or
 * single addresses). A request's client address is the direct peer's, unless that peer is one of
 * them: then X-Forwarded-For is read from the right, each trusted hop skipped, and the client is
 * the first address that is not trusted (the rightmost untrusted hop: whatever a client writes in
 * the header itself lies further left, and is never taken). From an untrusted peer the header is
 * ignored. With no ranges (the default) the header is never read.
 *
 * The walk and the range matching are @fastify/proxy-addr's, the library fastify's own
 * `trustProxy` uses, so the API routes (fastify's `request.ip`) and the paths served before
 * fastify (the cluster gateway, the fast GET and create paths) find the same address.
 */
export class TrustedProxies {
  /** The trust test for fastify's `trustProxy` option; undefined when no proxy is trusted. */
  readonly trust: TrustFn | undefined;

  constructor(ranges: readonly string[] = []) {
    const given = ranges.map((r) => r.trim()).filter((r) => r !== "");
    if (given.length === 0) return;
    for (const range of given) {
      try {
        proxyAddr.compile(range);
      } catch {
        throw new Error(`--trusted-proxies: "${range}" is not an IP address or CIDR range (as 10.0.0.0/8 or fd00::/8)`);
      }
    }
    this.trust = proxyAddr.compile(given);
  }

  /** The client address of a request (the socket's peer when no proxy is trusted). */
  clientAddress(req: IncomingMessage): string {
    if (!this.trust) return peerAddress(req);
    return proxyAddr(req, this.trust) ?? "";
  }
}

/** The direct peer's address: the client's when no proxy is trusted. */
export function peerAddress(req: IncomingMessage): string {
  return req.socket.remoteAddress ?? "";
}

/** No proxy trusted: the client is always the socket's peer. */
export const NO_TRUSTED_PROXIES = new TrustedProxies();
