import type { IncomingHttpHeaders } from "node:http";
import type { FastifyRequest } from "fastify";
import { ApiError } from "../api/errors.js";
import { ANONYMOUS_USER } from "../auth/anonymous.js";
import { AccessKeyAuthenticator, bearerToken } from "../auth/authenticator.js";
import { directTokenFallback } from "../auth/direct-token.js";
import { FailedAuthLimiter } from "../auth/failed-auth-limiter.js";
import type { IdentityIndex } from "../auth/identity-index.js";
import { KeyActivityRecorder } from "../auth/key-activity.js";
import { hashAccessKey } from "../crypto/access-keys.js";
import type { TokenSigner } from "../crypto/jwt.js";
import type { Informer } from "../registry/informer.js";
import type { Registry } from "../registry/registry.js";
import type { RequestContext, UserInfo } from "../registry/request-context.js";
import type { SharedInformers } from "../registry/shared-informers.js";
import { PlatformAuthorizer } from "./authorizer.js";
import { asksToImpersonate, impersonate } from "./impersonation.js";

/** Default failed authentications per address per minute before 429. */
const DEFAULT_MAX_FAILED_AUTH_PER_MINUTE = 30;

export interface AccessControlConfig {
  maxFailedAuthPerMinute?: number;
}

/** A credential a request carries without an Authorization header: the web console's session cookie (src/console). */
export interface SessionCredentials {
  /** The access key the request's session stands for; refuses a write without the session's CSRF token. */
  credentialOf(method: string, headers: IncomingHttpHeaders): Promise<string | undefined>;
}

/** Who is told the caller of each authenticated request: the audit log (src/audit), when one is written. */
export interface CallerNotes {
  noteCaller(request: object, user: UserInfo): void;
}

/**
 * Everything between a request and the registry that decides who is calling and what they
 * may do: authentication (keys, direct tokens, impersonation, failed-attempt limits), the
 * authorizer, key activity. The composition root hands it the console's sessions and the audit
 * log, which it uses without building them (they sit above it).
 */
export class AccessControl {
  readonly authorizer: PlatformAuthorizer;
  private readonly projects: Informer;
  private readonly authenticator: AccessKeyAuthenticator;
  private readonly limiter: FailedAuthLimiter;
  private readonly activity: KeyActivityRecorder;

  constructor(
    registry: Registry,
    informers: SharedInformers,
    private readonly identity: IdentityIndex,
    signer: Pick<TokenSigner, "verifyToken">,
    config: AccessControlConfig,
    log: { error(obj: unknown, msg: string): void },
    /** Browser sessions of the web console: a cookie that stands for an access key (src/console). */
    private readonly sessions: SessionCredentials,
    /** The audit log, when one is written (src/audit): told who made each request. */
    private readonly audit?: CallerNotes,
  ) {
    this.projects = informers.for("projects");
    this.authorizer = new PlatformAuthorizer(identity, this.projects, registry.resourceTypes());
    this.authenticator = new AccessKeyAuthenticator(identity, { fallback: directTokenFallback(identity, signer) });
    this.limiter = new FailedAuthLimiter(config.maxFailedAuthPerMinute ?? DEFAULT_MAX_FAILED_AUTH_PER_MINUTE);
    this.activity = new KeyActivityRecorder(registry.store("ownedaccesskeys"), identity.keys, Date.now, (err) =>
      log.error({ err }, "recording key activity failed"),
    );
  }

  /** After the identity index started. */
  async start(): Promise<void> {
    await this.projects.synced();
  }

  /** The request's caller and context, or a 401/403/429 ApiError; the audit log notes the caller. */
  async authenticate(request: Pick<FastifyRequest, "ip" | "method" | "headers">): Promise<RequestContext> {
    const ctx = await this.identify(request);
    this.audit?.noteCaller(request, ctx.user);
    return ctx;
  }

  /**
   * authenticate() for the paths anyone may read (/version, the health probes): a request
   * without credentials is the anonymous user (`system:anonymous`), one with credentials is
   * authenticated as anywhere else, so that the audit log names who asked and a key that does not
   * authenticate gets 401, as kube-apiserver answers invalid credentials on every path.
   */
  async authenticateOrAnonymous(request: Pick<FastifyRequest, "ip" | "method" | "headers">): Promise<RequestContext> {
    const ctx = await this.identify(request, { anonymous: true });
    this.audit?.noteCaller(request, ctx.user);
    return ctx;
  }

  /**
   * authenticate() of an access key the request carries in its body (the console's sign-in),
   * counted by the failed-authentication limiter like any other; the audit log notes the caller
   * on the request itself, so that its events name who signed in and where from.
   */
  async authenticateKey(
    request: Pick<FastifyRequest, "ip" | "method" | "headers">,
    accessKey: string,
  ): Promise<RequestContext> {
    const ctx = await this.identify({
      ip: request.ip,
      method: "GET",
      headers: { authorization: `Bearer ${accessKey}` },
    });
    this.audit?.noteCaller(request, ctx.user);
    return ctx;
  }

  /**
   * authenticate() for a caller that writes its own audit line (the cluster gateway,
   * gateway-audit.ts): nothing is written to the audit log here, so each of its requests is one line.
   */
  async identify(
    request: Pick<FastifyRequest, "ip" | "method" | "headers">,
    /** `anonymous`: a request without credentials is the anonymous user rather than a 401. */
    options: { anonymous?: boolean } = {},
  ): Promise<RequestContext> {
    const address = request.ip;
    const credential = await this.credentialOf(request);
    // Not counted by the failed-authentication limiter: it asked for nothing that could fail.
    if (credential === undefined && options.anonymous && !asksToImpersonate(request.headers)) {
      return { user: ANONYMOUS_USER, warnings: [] };
    }
    // Hashed once: the authenticator looks the key up by it, the limiter remembers it.
    const hash = credential && hashAccessKey(credential);
    // A blocked address still serves keys that authenticated from it before (see the limiter).
    if (this.limiter.isBlocked(address)) this.limiter.check(address, hash);
    let user: RequestContext["user"];
    try {
      user = await this.authenticator.authenticate(credential, hash);
    } catch (err) {
      if (err instanceof ApiError && err.status.code === 401) this.limiter.fail(address);
      throw err;
    }
    if (hash) this.limiter.succeed(address, hash);
    user = impersonate(request.headers, user, this.authorizer, this.identity);
    return this.contextOf(user);
  }

  /**
   * The bearer token; without an Authorization header, the key of the console session named by
   * the cookie (a write without the session's CSRF token is refused there).
   */
  private async credentialOf(request: Pick<FastifyRequest, "method" | "headers">): Promise<string | undefined> {
    const header = request.headers.authorization;
    return header ? bearerToken(header) : await this.sessions.credentialOf(request.method, request.headers);
  }

  /**
   * authenticate() for the server's fast branches (src/server/fast-get.ts, fast-create.ts),
   * without waiting: the context when the key authenticated before and nothing about it changed
   * since (the identity cache), otherwise undefined and the normal path authenticates (and counts
   * failures). Never with impersonation. It tells the audit log nothing: a branch may still hand
   * the request on; once it knows it answers, it calls noteCaller().
   */
  authenticateNow(request: Pick<FastifyRequest, "ip" | "headers">): RequestContext | undefined {
    return this.identifyNow(request);
  }

  /** What authenticate() tells the audit log, for a request authenticateNow() identified: its RequestReceived event. */
  noteCaller(request: object, user: UserInfo): void {
    this.audit?.noteCaller(request, user);
  }

  /** authenticateNow() for a caller that writes its own audit line (the cluster gateway): also with an audit log. */
  identifyNow(request: Pick<FastifyRequest, "ip" | "headers">): RequestContext | undefined {
    if (this.limiter.isBlocked(request.ip)) return undefined;
    if (asksToImpersonate(request.headers)) return undefined;
    const user = this.authenticator.cachedIdentity(bearerToken(request.headers.authorization));
    return user && this.contextOf(user);
  }

  private contextOf(user: RequestContext["user"]): RequestContext {
    this.activity.touch(user);
    return { user, warnings: [] };
  }
}
