import { request } from "node:https";
import { createLocalJWKSet, createRemoteJWKSet, customFetch, errors as joseErrors, jwtVerify } from "jose";
import { errors } from "../api/errors.js";
import type { Scope } from "../authz/scope.js";
import { DEFAULT_ISSUER } from "../crypto/jwt.js";
import { scopeNamesCluster } from "../gateway/gateway-scope.js";
import type { UserInfo } from "../registry/request-context.js";

export interface VerifiedToken {
  user: UserInfo;
  /** Impersonate-Group values the platform wrote into the token when it issued it. */
  groups: string[];
  scope?: Scope;
}

export interface TokenVerifierOptions {
  /** Trust for the platform's serving certificate (PEM); the system's CAs when absent. */
  platformCaPem?: string;
  issuer?: string;
}

/** How long fetched keys count as fresh; past it they are fetched again, and kept when that fails. */
const CACHE_MAX_AGE_MS = 10 * 60_000;

/**
 * Verifies DirectClusterEndpointTokens for one cluster against the platform's
 * `/.well-known/jwks.json` (jose's remote JWK set: fetched once, cached, fetched again for an
 * unknown key id). When the platform cannot be reached the keys fetched last keep verifying, so
 * the agent serves while the platform is down. A token whose scope does not name this cluster,
 * an expired one, or one signed by another key is a 401.
 */
export class DirectTokenVerifier {
  private readonly remote: ReturnType<typeof createRemoteJWKSet>;
  private readonly issuer: string;

  constructor(
    platformUrl: string,
    private readonly cluster: string,
    options: TokenVerifierOptions = {},
  ) {
    this.issuer = options.issuer ?? DEFAULT_ISSUER;
    this.remote = createRemoteJWKSet(new URL("/.well-known/jwks.json", platformUrl), {
      cacheMaxAge: CACHE_MAX_AGE_MS,
      cooldownDuration: 5_000,
      [customFetch]: (url, init) => fetchWithCa(url, init.signal, options.platformCaPem),
    });
  }

  /** Fetches the keys now (at start, so a later platform outage finds them cached). */
  async prefetch(): Promise<void> {
    await this.remote.reload();
  }

  async verify(token: string | undefined): Promise<VerifiedToken> {
    if (!token) throw errors.unauthorized();
    let payload: Record<string, unknown>;
    try {
      payload = (
        await jwtVerify(token, (h, t) => this.key(h, t), {
          algorithms: ["ES256"],
          issuer: this.issuer,
          requiredClaims: ["sub", "exp"],
        })
      ).payload;
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) throw errors.unauthorized("the token has expired");
      throw errors.unauthorized();
    }
    const scope = payload.scope as Scope | undefined;
    if (!scopeNamesCluster(scope, this.cluster)) {
      throw errors.unauthorized(`the token is not for cluster "${this.cluster}"`);
    }
    const kind = payload.subjectKind === "Team" || payload.subjectKind === "Subject" ? payload.subjectKind : "User";
    const groups = Array.isArray(payload.groups)
      ? payload.groups.filter((g): g is string => typeof g === "string")
      : [];
    return {
      user: {
        name: String(payload.sub),
        subjectKind: kind,
        groups,
        teams: [],
        credential: { type: "DirectClusterEndpointToken", scope: scope as Record<string, unknown> | undefined },
      },
      groups,
      scope,
    };
  }

  /** The remote set; when a refresh fails (platform down), the keys it holds already. */
  private async key(...args: Parameters<ReturnType<typeof createRemoteJWKSet>>) {
    try {
      return await this.remote(...args);
    } catch (err) {
      const cached = this.remote.jwks();
      if (!cached || err instanceof joseErrors.JWKSNoMatchingKey) throw err;
      return createLocalJWKSet(cached)(...args);
    }
  }
}

/** A fetch for jose over node:https, trusting the platform's CA when one is given. */
function fetchWithCa(url: string, signal: AbortSignal, caPem?: string): Promise<Response> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "GET", ca: caPem, signal, headers: { accept: "application/json" } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve(
          new Response(Buffer.concat(chunks), {
            status: res.statusCode ?? 500,
            headers: { "content-type": String(res.headers["content-type"] ?? "application/json") },
          }),
        ),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}
