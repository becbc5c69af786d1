import { X509Certificate } from "node:crypto";
import { localAddressKind } from "../support/local-addresses.js";

/** What a refusal of a local address tells the writer to do about it. */
const LOCAL_HINT = "the server refuses such endpoints unless started with --allow-local-endpoints";

/**
 * Why `value` cannot be an endpoint others' requests or tokens are sent to, or undefined when it
 * can: an `https` URL without credentials in it whose host, when an address literal, is not local
 * (support/local-addresses.ts). A host name is checked against what it resolves to each time
 * traffic is sent (support/guarded-lookup.ts), not here: DNS answers change.
 */
export function endpointUrlProblem(value: string, allowLocal: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "must be an https:// URL";
  }
  if (url.protocol !== "https:") return "must be an https:// URL: other users' requests and tokens are sent there";
  if (url.username || url.password) return "must not carry a user name or password";
  const kind = allowLocal ? undefined : localAddressKind(url.hostname);
  return kind ? `${url.hostname} is ${kind}; ${LOCAL_HINT}` : undefined;
}

/** Why `value` is not base64 of PEM certificates (a CA bundle), or undefined when it is. */
export function caBundleProblem(value: string): string | undefined {
  const pem = Buffer.from(value, "base64").toString("utf8");
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) return "must be base64 of PEM certificates";
  try {
    for (const block of blocks) new X509Certificate(block);
  } catch {
    return "must be base64 of PEM certificates: a certificate in it does not parse";
  }
  return undefined;
}

/** A DNS name as Kubernetes' IsDNS1123Subdomain accepts it. */
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const MAX_DNS_NAME = 253;

/**
 * Why `value` cannot be the host suffix of ingress endpoints (`<instance>.<project>.<suffix>`), or
 * undefined when it can: a DNS name, nothing else (no scheme, port or path). What the full name
 * resolves to is checked when the gateway connects.
 */
export function hostSuffixProblem(value: string): string | undefined {
  if (value.length > MAX_DNS_NAME || !DNS_SUBDOMAIN.test(value)) {
    return "must be a DNS name (lower case letters, digits, '-' and '.'), such as vc.example.com";
  }
  return undefined;
}
