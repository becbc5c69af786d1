import type { FastifyInstance, FastifyRequest } from "fastify";
import { errors } from "../api/errors.js";
import type { SecretDataCipher } from "../kinds/shared-secret/shared-secret.js";
import type { Registry } from "../registry/registry.js";
import { type RequestContext, systemContext } from "../registry/request-context.js";
import { SealedEntriesSweeper } from "../registry/sealed-entries-sweeper.js";
import { sendError } from "../server/respond.js";
import {
  type BrowserLoginDeps,
  defaultFinish,
  type FinishBrowserLogin,
  finishLogin,
  startLogin,
} from "./browser-login.js";
import type { OidcConfig } from "./config.js";
import { IdentityProvider } from "./identity-provider.js";
import { OneTimeCodes, PendingLogins } from "./pending.js";
import { LoginKeyRefresher } from "./refresher.js";
import { SIGN_IN_LIMIT_DEFAULTS, SignInLimiter } from "./sign-in-limiter.js";

export interface SsoDeps {
  registry: Registry;
  cipher: SecretDataCipher;
  /** The server's own URL, once it listens. */
  baseUrl: () => string;
  authenticate: (request: FastifyRequest) => Promise<RequestContext>;
  finish?: FinishBrowserLogin;
  onError: (err: unknown) => void;
  /** The sign-in limiter's clock (default Date.now). */
  now?: () => number;
}

/** What `GET /auth/oidc/config` answers (no secrets): whether and where people can sign in. */
export interface SsoInfo {
  enabled: boolean;
  issuer?: string;
  loginPath?: string;
}

export function ssoInfo(settings: OidcConfig | undefined): SsoInfo {
  return settings ? { enabled: true, issuer: settings.issuerUrl, loginPath: "/auth/oidc/login" } : { enabled: false };
}

/**
 * Sign-in with an OpenID Connect identity provider: the routes under /auth/oidc, the key refresher
 * and the sweeper. Nothing of a sign-in stays in this process between requests (pending.ts), so any
 * replica can answer any step of it.
 */
export class SingleSignOn {
  readonly idp: IdentityProvider;
  readonly refresher: LoginKeyRefresher;
  /** Removes sign-ins and CLI codes that expired unused (on the elected replica). */
  readonly sweeper: SealedEntriesSweeper;
  readonly #browser: BrowserLoginDeps;

  constructor(
    readonly settings: OidcConfig,
    private readonly deps: SsoDeps,
  ) {
    this.idp = new IdentityProvider(settings);
    this.refresher = new LoginKeyRefresher(deps.registry, this.idp, settings, deps.cipher, deps.onError);
    const pending = new PendingLogins(deps.registry, deps.cipher);
    const codes = new OneTimeCodes(deps.registry, deps.cipher);
    this.sweeper = new SealedEntriesSweeper([pending.entries, codes.entries], deps.onError);
    this.#browser = {
      registry: deps.registry,
      idp: this.idp,
      settings,
      pending,
      codes,
      limiter: new SignInLimiter({ ...SIGN_IN_LIMIT_DEFAULTS, ...settings.signInLimits }, deps.now),
      baseUrl: deps.baseUrl,
      finish: deps.finish ?? defaultFinish,
    };
  }

  /** Where the browser flow ends; the web console sets its session starter here. */
  set finish(finish: FinishBrowserLogin) {
    this.#browser.finish = finish;
  }

  register(app: FastifyInstance): void {
    app.get("/auth/oidc/login", (request, reply) => startLogin(this.#browser, request, reply));
    app.get("/auth/oidc/callback", (request, reply) => finishLogin(this.#browser, request, reply));
    app.post("/auth/oidc/token", async (request, reply) => {
      const body = parseBody(request.body);
      const issued =
        body && typeof body.code === "string" && typeof body.verifier === "string"
          ? await this.#browser.codes.redeem(body.code, body.verifier)
          : undefined;
      if (!issued)
        return sendError(reply, errors.badRequest("the sign-in code is unknown, expired, used or not yours"));
      return reply.header("cache-control", "no-store").send(issued);
    });
    app.post("/auth/oidc/logout", async (request, reply) => {
      try {
        const ctx = await this.deps.authenticate(request);
        const credential = ctx.user.credential;
        if (credential?.type !== "AccessKey" || credential.keyType !== "Login" || !credential.name) {
          return sendError(reply, errors.badRequest("only a Login key signs out; delete other keys through the API"));
        }
        await this.deps.registry
          .store("ownedaccesskeys")
          .delete(systemContext(), undefined, credential.name, { dryRun: false });
        return reply.send({ apiVersion: "v1", kind: "Status", status: "Success", code: 200 });
      } catch (err) {
        return sendError(reply, err);
      }
    });
  }
}

/** The CLI posts JSON; a form post works too. */
function parseBody(body: unknown): Record<string, unknown> | undefined {
  if (!Buffer.isBuffer(body)) return undefined;
  const text = body.toString("utf8");
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === "object" ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return Object.fromEntries(new URLSearchParams(text));
  }
}
