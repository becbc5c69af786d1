import type { OidcConfig } from "./config.js";

/** What a sign-in tells about a person, read from the verified ID token's claims. */
export interface SsoIdentity {
  issuer: string;
  /** The `sub` claim: stable for the person at this issuer. */
  subject: string;
  /** The value of the username claim (or its fallback), as the IdP gave it. */
  username: string;
  /** The User object's name: the username made a valid object name. */
  userName: string;
  preferredUsername?: string;
  email?: string;
  emailVerified?: boolean;
  displayName?: string;
  groups: string[];
}

/** A sign-in the platform refuses: `status` 400 (bad answer) or 403 (not allowed), shown to the person. */
export class SsoRefusal extends Error {
  constructor(
    readonly status: 400 | 403,
    message: string,
  ) {
    super(message);
  }
}

function text(claims: Record<string, unknown>, name: string): string | undefined {
  const v = claims[name];
  return typeof v === "string" && v.trim() !== "" ? v.trim() : undefined;
}

/** Groups as a list of strings; a single string counts as one group, anything else as none. */
function groupsOf(claims: Record<string, unknown>, name: string): string[] {
  const v = claims[name];
  if (typeof v === "string") return [v];
  if (!Array.isArray(v)) return [];
  return [...new Set(v.filter((g): g is string => typeof g === "string" && g !== ""))].sort();
}

/**
 * A username as a User name (a DNS subdomain): lower case, anything outside `a-z0-9.-` becomes
 * `-` (so `alice@example.com` is `alice-example.com`). Two people mapping to one name are told
 * apart by the issuer and subject the User is linked to.
 */
export function userNameFor(username: string): string {
  const name = username
    .toLowerCase()
    .replace(/[^a-z0-9.-]+/g, "-")
    .replace(/\.{2,}/g, ".")
    .replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, "")
    .slice(0, 253)
    .replace(/[^a-z0-9]+$/g, "");
  return name;
}

export function identityFromClaims(claims: Record<string, unknown>, settings: OidcConfig): SsoIdentity {
  const subject = text(claims, "sub");
  if (!subject) throw new SsoRefusal(400, "the ID token has no subject (sub)");
  const username = text(claims, settings.usernameClaim) ?? text(claims, "email") ?? subject;
  const userName = userNameFor(username);
  if (!userName) throw new SsoRefusal(400, `the username "${username}" cannot be made a user name`);
  const verified = claims.email_verified;
  return {
    issuer: String(claims.iss ?? settings.issuerUrl),
    subject,
    username,
    userName,
    preferredUsername: text(claims, "preferred_username"),
    email: text(claims, "email"),
    emailVerified: typeof verified === "boolean" ? verified : undefined,
    displayName: text(claims, "name") ?? text(claims, "preferred_username"),
    groups: groupsOf(claims, settings.groupsClaim),
  };
}

/** Whether `--oidc-allowed-groups` lets this person in (no list: everyone the IdP signs in). */
export function isAllowed(identity: SsoIdentity, settings: OidcConfig): boolean {
  return settings.allowedGroups.length === 0 || identity.groups.some((g) => settings.allowedGroups.includes(g));
}
