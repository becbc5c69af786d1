import * as oidc from "openid-client";
import type { OidcConfig } from "./config.js";
import { fetchTrusting } from "./trusting-fetch.js";

/** Discovery is read again after this long (signing keys are refreshed by openid-client as they rotate). */
const DISCOVERY_MAX_AGE_MS = 24 * 3600 * 1000;

/** The IdP could not be reached (network, TLS, timeout, or it answered with a server error). */
export class IdpUnreachableError extends Error {}

/** The IdP's answer failed a check (state, nonce, signature, issuer, audience, expiry) or it refused. */
export class LoginRefusedError extends Error {}

export interface AuthorizationRequest {
  redirectUri: string;
  state: string;
  nonce: string;
  codeVerifier: string;
}

export interface TokenResult {
  claims: Record<string, unknown>;
  refreshToken?: string;
}

/**
 * The platform's side of OpenID Connect, all of it done by openid-client: discovery (cached),
 * the authorization URL with PKCE, the code exchange with every ID token check, and refreshes.
 */
export class IdentityProvider {
  #config?: { value: oidc.Configuration; at: number };
  #pending?: Promise<oidc.Configuration>;

  constructor(private readonly settings: OidcConfig) {}

  get issuer(): string {
    return this.settings.issuerUrl;
  }

  /** The discovered configuration; a failed discovery is not cached, so the next login tries again. */
  async configuration(): Promise<oidc.Configuration> {
    const cached = this.#config;
    if (cached && Date.now() - cached.at < DISCOVERY_MAX_AGE_MS) return cached.value;
    this.#pending ??= this.discover().finally(() => {
      this.#pending = undefined;
    });
    return this.#pending;
  }

  private async discover(): Promise<oidc.Configuration> {
    const s = this.settings;
    const auth = s.clientSecret ? oidc.ClientSecretBasic(s.clientSecret) : oidc.None();
    try {
      const value = await oidc.discovery(new URL(s.issuerUrl), s.clientId, undefined, auth, {
        // Verify ID token signatures against the IdP's JWKS too, not only trust the TLS channel.
        execute: [oidc.enableNonRepudiationChecks],
        // Kept by the resulting configuration for the token endpoint and the signing keys too.
        ...(s.caPem ? { [oidc.customFetch]: fetchTrusting(s.caPem) } : {}),
      });
      this.#config = { value, at: Date.now() };
      return value;
    } catch (err) {
      throw classify(err);
    }
  }

  async authorizationUrl(req: Omit<AuthorizationRequest, "codeVerifier"> & { codeChallenge: string }): Promise<URL> {
    const config = await this.configuration();
    return oidc.buildAuthorizationUrl(config, {
      redirect_uri: req.redirectUri,
      scope: this.settings.scopes.join(" "),
      state: req.state,
      nonce: req.nonce,
      code_challenge: req.codeChallenge,
      code_challenge_method: "S256",
    });
  }

  /** Exchanges the code of the callback URL; openid-client checks state, nonce and the ID token. */
  async exchange(callbackUrl: URL, req: AuthorizationRequest): Promise<TokenResult> {
    const config = await this.configuration();
    try {
      const tokens = await oidc.authorizationCodeGrant(
        config,
        callbackUrl,
        {
          expectedState: req.state,
          expectedNonce: req.nonce,
          pkceCodeVerifier: req.codeVerifier,
          idTokenExpected: true,
        },
        { redirect_uri: req.redirectUri },
      );
      return { claims: { ...(tokens.claims() ?? {}) }, refreshToken: tokens.refresh_token };
    } catch (err) {
      throw classify(err);
    }
  }

  /** A refresh grant; the new ID token (verified the same way) carries the current claims. */
  async refresh(refreshToken: string): Promise<TokenResult> {
    const config = await this.configuration();
    try {
      const tokens = await oidc.refreshTokenGrant(config, refreshToken);
      const claims = tokens.claims();
      if (!claims) throw new LoginRefusedError("the identity provider's refresh answer has no ID token");
      return { claims: { ...claims }, refreshToken: tokens.refresh_token ?? refreshToken };
    } catch (err) {
      throw classify(err);
    }
  }
}

/** openid-client's errors as the two kinds the platform tells apart. */
function classify(err: unknown): Error {
  if (err instanceof IdpUnreachableError || err instanceof LoginRefusedError) return err;
  if (err instanceof TypeError)
    return new IdpUnreachableError(`the identity provider cannot be reached: ${detail(err)}`);
  if (err instanceof oidc.ResponseBodyError) {
    if (err.status >= 500) return new IdpUnreachableError(`the identity provider failed (HTTP ${err.status})`);
    return new LoginRefusedError(
      `the identity provider refused: ${err.error}${err.error_description ? `: ${err.error_description}` : ""}`,
    );
  }
  if (err instanceof oidc.AuthorizationResponseError) {
    return new LoginRefusedError(
      `the identity provider refused: ${err.error}${err.error_description ? `: ${err.error_description}` : ""}`,
    );
  }
  if (err instanceof oidc.ClientError) {
    if (err.code === "OAUTH_TIMEOUT" || err.code === "OAUTH_ABORT" || err.code === "OAUTH_RESPONSE_IS_NOT_CONFORM") {
      return new IdpUnreachableError(`the identity provider cannot be reached: ${detail(err)}`);
    }
    return new LoginRefusedError(`the identity provider's answer was refused: ${detail(err)}`);
  }
  return new LoginRefusedError(`the identity provider's answer was refused: ${detail(err)}`);
}

/** The most specific message: openid-client wraps the failing check in `cause`. */
function detail(err: unknown): string {
  const e = err as { message?: string; cause?: unknown };
  const cause = e.cause as { message?: string; code?: string } | undefined;
  const inner = cause instanceof Error ? cause.message : undefined;
  return inner && inner !== e.message ? `${e.message} (${inner})` : String(e.message ?? err);
}
