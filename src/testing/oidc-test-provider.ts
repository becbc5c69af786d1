import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, importJWK, type JWK, SignJWT } from "jose";
import Provider, { type KoaContext } from "oidc-provider";
import { createCertificateAuthority, createServingCertificate } from "../crypto/certificates.js";
import type { OidcConfig } from "../sso/config.js";

type SigningKey = Parameters<SignJWT["sign"]>[0];

/** A person at the test identity provider; `groups` may change between sign-ins. */
export interface TestAccount {
  preferred_username?: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
  groups: string[];
}

export interface TestClient {
  client_id: string;
  client_secret?: string;
  redirect_uris: string[];
}

/** Rewrites the token endpoint's JSON answer (tests of how the platform checks ID tokens). */
export type TokenTamper = (body: Record<string, unknown>) => Record<string, unknown> | Promise<Record<string, unknown>>;

/**
 * A real OpenID provider (the certified `oidc-provider` package) on HTTPS 127.0.0.1 with its own
 * test CA. Its dev login form takes any account id of `accounts` (password ignored); consent is
 * granted without asking. Clients are set once the platform's URL is known.
 */
export class TestIdentityProvider {
  readonly accounts = new Map<string, TestAccount>();
  tamper?: TokenTamper;
  private handler?: (req: IncomingMessage, res: ServerResponse) => void;

  private constructor(
    readonly issuer: string,
    readonly caPem: string,
    private readonly server: ReturnType<typeof createServer>,
    private readonly privateJwk: JWK,
  ) {}

  static async start(): Promise<TestIdentityProvider> {
    const ca = await createCertificateAuthority("test identity provider CA", 1);
    const cert = await createServingCertificate(ca, {
      dnsNames: ["localhost"],
      ipAddresses: ["127.0.0.1"],
      validityDays: 1,
    });
    let idp: TestIdentityProvider | undefined;
    const server = createServer({ key: cert.keyPem, cert: cert.certPem }, (req, res) => {
      const handler = idp?.handler;
      if (handler) handler(req, res);
      else res.writeHead(503).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const { privateKey } = await generateKeyPair("RS256", { extractable: true });
    const jwk = { ...(await exportJWK(privateKey)), kid: "test-idp-key", alg: "RS256", use: "sig" };
    idp = new TestIdentityProvider(`https://127.0.0.1:${port}`, ca.certPem, server, jwk);
    return idp;
  }

  /**
   * The platform's SSO settings for this provider as the tests use them: client `platform`,
   * username and groups from the ID token, people of group `platform-users` allowed.
   */
  platformConfig(clientSecret: string): OidcConfig {
    return {
      issuerUrl: this.issuer,
      clientId: "platform",
      clientSecret,
      usernameClaim: "preferred_username",
      groupsClaim: "groups",
      scopes: ["openid", "profile", "email", "groups", "offline_access"],
      allowedGroups: ["platform-users"],
      loginKeyTtlSeconds: 3600,
      refreshIntervalSeconds: 3600,
      caPem: this.caPem,
    };
  }

  /** Registers the platform at `serverUrl` as the provider's one client (see platformConfig). */
  trustPlatform(serverUrl: string, clientSecret: string): void {
    this.setClients([
      { client_id: "platform", client_secret: clientSecret, redirect_uris: [`${serverUrl}/auth/oidc/callback`] },
    ]);
  }

  /** (Re)creates the provider with these clients. */
  setClients(clients: TestClient[]): void {
    const provider = new Provider(this.issuer, {
      clients: clients.map((c) => ({
        ...c,
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: c.client_secret ? "client_secret_basic" : "none",
      })),
      jwks: { keys: [this.privateJwk] },
      findAccount: async (_ctx: unknown, id: string) => {
        const account = this.accounts.get(id);
        if (!account) return undefined;
        return { accountId: id, claims: async () => ({ sub: id, ...structuredClone(account) }) };
      },
      claims: {
        openid: ["sub"],
        email: ["email", "email_verified"],
        profile: ["name", "preferred_username"],
        groups: ["groups"],
      },
      scopes: ["openid", "offline_access", "email", "profile", "groups"],
      // Put the claims in the ID token (the platform reads them there, as Dex and Keycloak send them).
      conformIdTokenClaims: false,
      pkce: { required: () => true },
      issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(t: string): boolean }) =>
        client.grantTypeAllowed("refresh_token"),
      loadExistingGrant: async (ctx: KoaContext) => {
        const grantId = ctx.oidc.result?.consent?.grantId ?? ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
        if (grantId) return ctx.oidc.provider.Grant.find(grantId);
        const grant = new ctx.oidc.provider.Grant({
          clientId: ctx.oidc.client.clientId,
          accountId: ctx.oidc.session.accountId,
        });
        grant.addOIDCScope("openid email profile groups offline_access");
        await grant.save();
        return grant;
      },
      cookies: { keys: ["test-idp-cookie-key"] },
      ttl: {
        AccessToken: 600,
        AuthorizationCode: 60,
        Grant: 3600,
        IdToken: 600,
        Interaction: 600,
        RefreshToken: 3600,
        Session: 3600,
      },
    });
    provider.use(async (ctx, next) => {
      await next();
      if (this.tamper && ctx.method === "POST" && ctx.path === "/token" && ctx.status === 200) {
        ctx.body = await this.tamper(ctx.body as Record<string, unknown>);
      }
    });
    // The provider answers its own failures with a bare "server_error" page: say why on stderr.
    provider.on("server_error", (_ctx: unknown, err: unknown) => console.error("test identity provider:", err));
    this.handler = provider.callback();
  }

  /** Signs a token with the provider's own key (or `key`), for crafted ID tokens. */
  async sign(claims: Record<string, unknown>, key?: SigningKey): Promise<string> {
    const signingKey = key ?? (await importJWK(this.privateJwk, "RS256"));
    return new SignJWT(claims).setProtectedHeader({ alg: "RS256", kid: "test-idp-key" }).sign(signingKey);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
