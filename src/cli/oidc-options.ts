import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { OIDC_DEFAULTS, type OidcConfig, splitList } from "../sso/config.js";
import { SIGN_IN_LIMIT_DEFAULTS, type SignInLimits } from "../sso/sign-in-limits.js";

/** Adds the `--oidc-*` flags of `platform start`. */
export function addOidcOptions(command: Command): Command {
  return command
    .option("--oidc-issuer-url <url>", "sign in with this OpenID Connect identity provider (https; see docs/sso.md)")
    .option("--oidc-client-id <id>", "the platform's client id at the identity provider")
    .option("--oidc-client-secret-file <file>", "file holding the client secret (omit for a public client)")
    .option(
      "--oidc-username-claim <claim>",
      "claim naming the user (default: preferred_username; falls back to email, then sub)",
    )
    .option("--oidc-groups-claim <claim>", "claim listing the user's groups", OIDC_DEFAULTS.groupsClaim)
    .option("--oidc-scopes <scopes>", "scopes to request, comma or space separated", OIDC_DEFAULTS.scopes.join(","))
    .option("--oidc-allowed-groups <groups>", "only members of one of these groups may sign in (comma separated)")
    .option("--oidc-login-key-ttl <seconds>", "lifetime of the Login key a sign-in creates", "86400")
    .option("--oidc-refresh-interval <seconds>", "how often Login keys are refreshed at the identity provider", "300")
    .option("--oidc-ca-file <file>", "PEM CA bundle trusted for the identity provider (default: system CAs)")
    .option("--oidc-redirect-base-url <url>", "this server's URL as browsers reach it (default: the listen URL)")
    .option(
      "--oidc-sign-in-burst <n>",
      "sign-ins one client address may start at once",
      String(SIGN_IN_LIMIT_DEFAULTS.burstPerAddress),
    )
    .option(
      "--oidc-sign-ins-per-minute <n>",
      "sign-ins per minute one client address may start after its burst",
      String(SIGN_IN_LIMIT_DEFAULTS.perAddressPerMinute),
    )
    .option(
      "--oidc-max-sign-ins-per-second <n>",
      "sign-ins per second the server starts across all addresses",
      String(SIGN_IN_LIMIT_DEFAULTS.globalPerSecond),
    );
}

/** The `--oidc-sign-in*` limits (each a positive whole number). */
function signInLimitsOf(opts: Record<string, string | undefined>): SignInLimits {
  return {
    ...SIGN_IN_LIMIT_DEFAULTS,
    burstPerAddress: count(opts.oidcSignInBurst, "--oidc-sign-in-burst", SIGN_IN_LIMIT_DEFAULTS.burstPerAddress),
    perAddressPerMinute: count(
      opts.oidcSignInsPerMinute,
      "--oidc-sign-ins-per-minute",
      SIGN_IN_LIMIT_DEFAULTS.perAddressPerMinute,
    ),
    globalPerSecond: count(
      opts.oidcMaxSignInsPerSecond,
      "--oidc-max-sign-ins-per-second",
      SIGN_IN_LIMIT_DEFAULTS.globalPerSecond,
    ),
  };
}

function count(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${flag} must be a positive whole number, got "${value}"`);
  return n;
}

function seconds(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${flag} must be a positive number of seconds, got "${value}"`);
  return n;
}

function readFile(file: string, flag: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (err) {
    throw new Error(`cannot read ${flag}: ${(err as Error).message}`);
  }
}

/** The SSO settings from the parsed flags, or undefined when no issuer is given. */
export function oidcConfigOf(opts: Record<string, string | undefined>): OidcConfig | undefined {
  if (!opts.oidcIssuerUrl) {
    if (opts.oidcClientId) throw new Error("--oidc-client-id needs --oidc-issuer-url");
    return undefined;
  }
  let issuer: URL;
  try {
    issuer = new URL(opts.oidcIssuerUrl);
  } catch {
    throw new Error(`--oidc-issuer-url is not a URL: "${opts.oidcIssuerUrl}"`);
  }
  if (issuer.protocol !== "https:") throw new Error("--oidc-issuer-url must be an https URL");
  if (!opts.oidcClientId) throw new Error("--oidc-issuer-url needs --oidc-client-id");
  const secret = opts.oidcClientSecretFile
    ? readFile(opts.oidcClientSecretFile, "--oidc-client-secret-file").trim()
    : undefined;
  if (opts.oidcRedirectBaseUrl && !/^https:\/\/[^/]+$/.test(opts.oidcRedirectBaseUrl.replace(/\/$/, ""))) {
    throw new Error("--oidc-redirect-base-url must be https://HOST[:PORT]");
  }
  const scopes = splitList(opts.oidcScopes ?? OIDC_DEFAULTS.scopes.join(","));
  if (!scopes.includes("openid")) scopes.unshift("openid");
  return {
    issuerUrl: opts.oidcIssuerUrl,
    clientId: opts.oidcClientId,
    ...(secret ? { clientSecret: secret } : {}),
    usernameClaim: opts.oidcUsernameClaim || OIDC_DEFAULTS.usernameClaim,
    groupsClaim: opts.oidcGroupsClaim || OIDC_DEFAULTS.groupsClaim,
    scopes,
    allowedGroups: splitList(opts.oidcAllowedGroups),
    loginKeyTtlSeconds: seconds(opts.oidcLoginKeyTtl, "--oidc-login-key-ttl", OIDC_DEFAULTS.loginKeyTtlSeconds),
    refreshIntervalSeconds: seconds(
      opts.oidcRefreshInterval,
      "--oidc-refresh-interval",
      OIDC_DEFAULTS.refreshIntervalSeconds,
    ),
    ...(opts.oidcCaFile ? { caPem: readFile(opts.oidcCaFile, "--oidc-ca-file") } : {}),
    ...(opts.oidcRedirectBaseUrl ? { redirectBaseUrl: opts.oidcRedirectBaseUrl.replace(/\/$/, "") } : {}),
    signInLimits: signInLimitsOf(opts),
  };
}
