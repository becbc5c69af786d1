import type { LookupFunction } from "node:net";
import { EndpointNotAllowedError, guardedLookup, literalHostRefusal } from "../support/guarded-lookup.js";

/**
 * Where an upstream that users' settings chose may lead (docs/security.md, "Endpoints other
 * users' traffic and tokens follow"): `https` only, and, unless `allowLocal`
 * (`--allow-local-endpoints`), never the platform's own host, loopback, link-local or metadata
 * addresses, checked against what a host name resolves to at each connection.
 */
export interface EndpointPolicy {
  allowLocal: boolean;
}

/**
 * The URL of an endpoint the policy allows, and the `lookup` its connections must use (undefined:
 * the default); throws EndpointNotAllowedError otherwise. An address literal is checked here,
 * since node skips the lookup for one; a host name by the lookup, at each connection.
 */
export function allowedEndpoint(server: string, policy: EndpointPolicy): { base: URL; lookup?: LookupFunction } {
  let base: URL;
  try {
    base = new URL(server);
  } catch {
    // One written before writes were checked is refused like any other, not a 500.
    throw new EndpointNotAllowedError("the endpoint is not a URL");
  }
  if (base.protocol !== "https:") {
    throw new EndpointNotAllowedError(`${base.origin} is not https: the platform sends users' traffic over https only`);
  }
  if (policy.allowLocal) return { base };
  const refusal = literalHostRefusal(base);
  if (refusal) throw refusal;
  return { base, lookup: guardedLookup() };
}
