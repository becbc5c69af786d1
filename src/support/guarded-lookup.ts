import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from "node:dns";
import type { LookupFunction } from "node:net";
import { localAddressKind } from "./local-addresses.js";

/** The `code` of an EndpointNotAllowedError, which is all of it a client library's wrapping error may keep. */
export const ENDPOINT_NOT_ALLOWED_CODE = "ERR_ENDPOINT_NOT_ALLOWED";

/** What the platform refused to connect to, and why (the gateway answers it as 503 EndpointNotAllowed). */
export class EndpointNotAllowedError extends Error {
  readonly code = ENDPOINT_NOT_ALLOWED_CODE;
}

/** The hint every refusal ends with: what the operator can do about it. */
const HINT = "the platform sends no traffic there unless started with --allow-local-endpoints";

/**
 * The refusal for a URL's host when it is an address literal the platform does not connect to,
 * else undefined. A host name is checked when it is resolved, at each connection (guardedLookup).
 */
export function literalHostRefusal(url: URL): EndpointNotAllowedError | undefined {
  const kind = localAddressKind(url.hostname);
  return kind ? new EndpointNotAllowedError(`${url.host} is ${kind}: ${HINT}`) : undefined;
}

type Resolve = (
  hostname: string,
  options: LookupAllOptions,
  callback: (err: Error | null, addresses: LookupAddress[]) => void,
) => void;

/**
 * A `lookup` for `net`/`tls.connect` (node's https.Agent and undici's connector both pass it on)
 * that resolves the host name and refuses the connection when any of its addresses is local
 * (local-addresses.ts). It runs for every new connection, so a name whose DNS answer changes
 * after it was written is refused as soon as it resolves to such an address. Node skips the
 * lookup for an address literal: check those with literalHostRefusal.
 */
export function guardedLookup(resolve: Resolve = dnsLookup as Resolve): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, "", 0);
      // Every answer is checked: the connection may try any of them (happy eyeballs).
      for (const a of addresses) {
        const kind = localAddressKind(a.address);
        if (kind) return callback(new EndpointNotAllowedError(`${hostname} resolves to ${kind}: ${HINT}`), "", 0);
      }
      if (addresses.length === 0)
        return callback(Object.assign(new Error(`${hostname}: no address`), { code: "ENOTFOUND" }), "", 0);
      if ((options as { all?: boolean }).all)
        return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}
