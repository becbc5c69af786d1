import type { FastifyReply, FastifyRequest } from "fastify";
import { calculatePKCECodeChallenge } from "openid-client";
import { ApiError } from "../api/errors.js";
import type { Registry } from "../registry/registry.js";
import { identityFromClaims, isAllowed, SsoRefusal } from "./claims.js";
import { CALLBACK_PATH, type OidcConfig } from "./config.js";
import { type IdentityProvider, IdpUnreachableError, LoginRefusedError } from "./identity-provider.js";
import { createLoginKey } from "./login-keys.js";
import { sendPage } from "./pages.js";
import type { CliLogin, OneTimeCodes, PendingLogins } from "./pending.js";
import type { SignInLimiter } from "./sign-in-limiter.js";
import { refuseSignIn } from "./sign-in-refusal.js";
import { syncUser } from "./user-sync.js";

/** What a browser sign-in ends with; the web console replaces the default page with its session. */
export type FinishBrowserLogin = (
  reply: FastifyReply,
  accessKey: string,
  info: { accessKeyName: string; user: string },
) => unknown;

export interface BrowserLoginDeps {
  registry: Registry;
  idp: IdentityProvider;
  settings: OidcConfig;
  pending: PendingLogins;
  codes: OneTimeCodes;
  /** Bounds how fast sign-ins (entries in the store) are started, per client address and in all. */
  limiter: SignInLimiter;
  /** The server's browser URL (known once it listens). */
  baseUrl: () => string;
  finish: FinishBrowserLogin;
}

/** The cookie that binds a callback to the browser that started the sign-in (no login CSRF). */
const STATE_COOKIE = "platform_oidc_state";
const COOKIE_ATTRIBUTES = "Path=/auth/oidc; HttpOnly; Secure; SameSite=Lax";

export const defaultFinish: FinishBrowserLogin = (reply, _key, info) =>
  sendPage(reply, 200, "Signed in", [
    `You are signed in as ${info.user}.`,
    "You can close this window. For the command line, run: platform login https://THIS-SERVER --sso",
  ]);

export function redirectUri(deps: BrowserLoginDeps): string {
  return `${deps.settings.redirectBaseUrl ?? deps.baseUrl()}${CALLBACK_PATH}`;
}

/** GET /auth/oidc/login: keeps state, nonce and PKCE verifier in the store, then sends the browser to the IdP. */
export async function startLogin(deps: BrowserLoginDeps, request: FastifyRequest, reply: FastifyReply) {
  const query = request.query as Record<string, string | undefined>;
  let cli: CliLogin | undefined;
  if (query.cli_port !== undefined) {
    cli = cliLoginOf(query);
    if (!cli) return sendPage(reply, 400, "Sign-in failed", ["The command line's sign-in request is malformed."]);
  }
  // Anyone may start a sign-in and each writes to the store: limited before anything is written.
  const refusal = deps.limiter.take(request.ip);
  if (refusal) return refuseSignIn(request, reply, refusal);
  const login = await deps.pending.begin(cli);
  let url: URL;
  try {
    url = await deps.idp.authorizationUrl({
      redirectUri: redirectUri(deps),
      state: login.state,
      nonce: login.nonce,
      codeChallenge: await calculatePKCECodeChallenge(login.codeVerifier),
    });
  } catch (err) {
    await deps.pending.take(login.state);
    if (err instanceof IdpUnreachableError) return unreachablePage(reply, deps, err);
    throw err;
  }
  return reply
    .code(302)
    .header("set-cookie", `${STATE_COOKIE}=${login.state}; ${COOKIE_ATTRIBUTES}; Max-Age=600`)
    .header("cache-control", "no-store")
    .header("location", url.href)
    .send();
}

function cliLoginOf(query: Record<string, string | undefined>): CliLogin | undefined {
  const port = Number(query.cli_port);
  const challenge = query.cli_challenge ?? "";
  const state = query.cli_state ?? "";
  if (!Number.isInteger(port) || port < 1024 || port > 65535) return undefined;
  if (!/^[A-Za-z0-9_-]{43}$/.test(challenge) || !/^[A-Za-z0-9_-]{16,128}$/.test(state)) return undefined;
  return { port, challenge, state };
}

function unreachablePage(reply: FastifyReply, deps: BrowserLoginDeps, err: Error) {
  return sendPage(reply, 503, "Sign-in is unavailable", [
    `The identity provider (${deps.settings.issuerUrl}) cannot be reached, so nobody can sign in with it right now.`,
    err.message,
    "Access keys keep working. Try again later or ask an administrator.",
  ]);
}

function stateCookie(request: FastifyRequest): string | undefined {
  for (const part of (request.headers.cookie ?? "").split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === STATE_COOKIE) return value.join("=");
  }
  return undefined;
}

/** GET /auth/oidc/callback: checks the answer, finds or creates the user, creates the Login key. */
export async function finishLogin(deps: BrowserLoginDeps, request: FastifyRequest, reply: FastifyReply) {
  const query = request.query as Record<string, string | undefined>;
  reply.header("set-cookie", `${STATE_COOKIE}=; ${COOKIE_ATTRIBUTES}; Max-Age=0`);
  const login = query.state ? await deps.pending.take(query.state) : undefined;
  if (!login) {
    return sendPage(reply, 400, "Sign-in failed", [
      "The sign-in state is unknown, expired or was already used. Start the sign-in again.",
    ]);
  }
  if (stateCookie(request) !== login.state) {
    return sendPage(reply, 400, "Sign-in failed", ["The sign-in was started in another browser. Start it again."]);
  }
  try {
    // The URL the IdP sent the browser to, as the authorization request named it: openid-client
    // sends it as the redirect_uri of the exchange, so behind a load balancer (--oidc-redirect-base-url)
    // it must be that address, not this replica's own.
    const callbackUrl = new URL(redirectUri(deps));
    callbackUrl.search = new URL(request.url, deps.baseUrl()).search;
    const tokens = await deps.idp.exchange(callbackUrl, { ...login, redirectUri: redirectUri(deps) });
    const identity = identityFromClaims(tokens.claims, deps.settings);
    if (!isAllowed(identity, deps.settings)) {
      throw new SsoRefusal(403, `${identity.username} is not in a group allowed to sign in to this platform.`);
    }
    const user = await syncUser(deps.registry, identity);
    const key = await createLoginKey(
      deps.registry,
      user,
      identity,
      tokens.refreshToken,
      deps.settings,
      redirectUri(deps),
    );
    const info = { accessKey: key.key, accessKeyName: key.name, user: user.metadata.name! };
    if (login.cli) {
      const code = await deps.codes.issue(info, login.cli.challenge);
      const target = new URL(`http://127.0.0.1:${login.cli.port}/callback`);
      target.search = new URLSearchParams({ code, state: login.cli.state }).toString();
      return reply.code(302).header("cache-control", "no-store").header("location", target.href).send();
    }
    return await deps.finish(reply, key.key, { accessKeyName: key.name, user: info.user });
  } catch (err) {
    return refusalPage(reply, deps, err);
  }
}

function refusalPage(reply: FastifyReply, deps: BrowserLoginDeps, err: unknown) {
  if (err instanceof IdpUnreachableError) return unreachablePage(reply, deps, err);
  if (err instanceof SsoRefusal) {
    return sendPage(reply, err.status, err.status === 403 ? "Sign-in not allowed" : "Sign-in failed", [err.message]);
  }
  if (err instanceof LoginRefusedError) return sendPage(reply, 400, "Sign-in failed", [err.message]);
  if (err instanceof ApiError && err.code < 500) {
    return sendPage(reply, 400, "Sign-in failed", [`The platform refused the sign-in: ${err.message}`]);
  }
  throw err;
}
