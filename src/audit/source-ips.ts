import type { IncomingHttpHeaders } from "node:http";
import { isIP, SocketAddress } from "node:net";

/**
 * An audit event's `sourceIPs`, as kube-apiserver builds them (utilnet.SourceIPs): every valid
 * address of X-Forwarded-For, left to right (each proxy appends the address it saw, so the first is
 * the most likely original client), then X-Real-Ip unless listed already, then the direct peer
 * unless it is the last one listed. Only the peer's address is known to be true: the others are
 * whatever the client or the proxies wrote, trusted or not (`--trusted-proxies` decides the client
 * address of the limits and request logs, server/trusted-proxies.ts; it plays no part here).
 */
export function auditSourceIPs(headers: IncomingHttpHeaders | undefined, peer: string | undefined): string[] {
  const ips: string[] = [];
  // Node joins repeated X-Forwarded-For lines with ", ": every line's entries are listed.
  for (const part of headerText(headers?.["x-forwarded-for"]).split(",")) {
    const ip = validIP(part);
    if (ip) ips.push(ip);
  }
  const realIp = validIP(headerText(headers?.["x-real-ip"]));
  if (realIp && !ips.some((ip) => sameIP(ip, realIp))) ips.push(realIp);
  const remote = validIP(peer ?? "");
  const last = ips.at(-1);
  if (remote && !(last && sameIP(last, remote))) ips.push(remote);
  return ips;
}

function headerText(value: string | string[] | undefined): string {
  return Array.isArray(value) ? value.join(",") : (value ?? "");
}

/** The address as written (trimmed) when it is an IPv4 or IPv6 address; anything else is skipped. */
function validIP(text: string): string | undefined {
  const trimmed = text.trim();
  return isIP(trimmed) ? trimmed : undefined;
}

/** Equal as addresses, however written (`::1` and `0:0::1`, upper or lower case). */
function sameIP(a: string, b: string): boolean {
  return canonical(a) === canonical(b);
}

function canonical(ip: string): string {
  return isIP(ip) === 6 ? new SocketAddress({ address: ip, family: "ipv6" }).address : ip;
}
