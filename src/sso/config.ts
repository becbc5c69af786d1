import type { SignInLimits } from "./sign-in-limiter.js";

/** What the server needs to know to sign people in with an OpenID Connect identity provider. */
export interface OidcConfig {
  /** `--oidc-issuer-url`: the IdP's issuer; discovery is read from `<issuer>/.well-known/openid-configuration`. */
  issuerUrl: string;
  /** `--oidc-client-id`. */
  clientId: string;
  /** The client secret (read from `--oidc-client-secret-file`); absent for a public client (PKCE only). */
  clientSecret?: string;
  /** `--oidc-username-claim` (default preferred_username; email, then sub, when the token lacks it). */
  usernameClaim: string;
  /** `--oidc-groups-claim` (default groups). */
  groupsClaim: string;
  /** `--oidc-scopes`. */
  scopes: string[];
  /** `--oidc-allowed-groups`: when not empty, only members of one of these groups may sign in. */
  allowedGroups: string[];
  /** `--oidc-login-key-ttl`: lifetime (seconds) of the Login key each sign-in creates. */
  loginKeyTtlSeconds: number;
  /** `--oidc-refresh-interval`: how often a Login key's identity is refreshed at the IdP (seconds). */
  refreshIntervalSeconds: number;
  /** `--oidc-ca-file`: PEM of the CA(s) that signed the IdP's certificate, when not a public one. */
  caPem?: string;
  /**
   * The browser URL of this server (`--oidc-redirect-base-url`), used for the callback URL the IdP
   * redirects to; default: the URL the server listens on.
   */
  redirectBaseUrl?: string;
  /** `--oidc-sign-in-burst`, `--oidc-sign-ins-per-minute`, `--oidc-max-sign-ins-per-second`; unset: defaults. */
  signInLimits?: Partial<SignInLimits>;
}

export const OIDC_DEFAULTS = {
  usernameClaim: "preferred_username",
  groupsClaim: "groups",
  scopes: ["openid", "profile", "email", "groups", "offline_access"],
  loginKeyTtlSeconds: 86_400,
  refreshIntervalSeconds: 300,
} as const;

/** Splits `a,b c` (commas or spaces) into its non-empty parts; lists pass through. */
export function splitList(value: string | readonly string[] | undefined): string[] {
  if (value === undefined) return [];
  const parts = typeof value === "string" ? value.split(/[\s,]+/) : value.map(String);
  return parts.map((p) => p.trim()).filter((p) => p !== "");
}

/** The callback path at this server the IdP redirects the browser to. */
export const CALLBACK_PATH = "/auth/oidc/callback";
