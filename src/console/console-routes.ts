import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { errors } from "../api/errors.js";
import type { RequestContext } from "../registry/request-context.js";
import type { ResourceType } from "../registry/resource-type.js";
import { sendError } from "../server/respond.js";
import type { ServerFeature } from "../server/server-features.js";
import { consoleKinds } from "./console-kinds.js";
import { setSecurityHeaders } from "./security-headers.js";
import { type ConsoleSessions, sessionCookie } from "./sessions.js";
import { StaticAssets } from "./static-assets.js";

/** Where the console lives; `/` redirects here. */
const CONSOLE_PATH = "/console";

export interface ConsoleDeps {
  sessions: ConsoleSessions;
  /** Authenticates a request as the API does (a bearer key, or the session cookie). */
  authenticate(request: Pick<FastifyRequest, "ip" | "method" | "headers">): Promise<RequestContext>;
  /** The sign-in's key, from its body; the audit log notes the caller on `request`. */
  authenticateKey(
    request: Pick<FastifyRequest, "ip" | "method" | "headers">,
    accessKey: string,
  ): Promise<RequestContext>;
  /** Whether "Sign in with SSO" is offered (an identity provider is configured). */
  ssoConfigured?: () => boolean;
  /** The built console (default: dist/console-web). */
  assets?: StaticAssets;
  /** The registered kinds of the management group: those with a console presentation are its menus. */
  kinds(): readonly ResourceType[];
}

/**
 * Starts a console session for an access key on this reply (sets the cookie) and returns the
 * session's CSRF token. The key must have been authenticated by the caller (sign-in with a
 * key below, or a single sign-on callback).
 */
export async function startConsoleSession(
  sessions: ConsoleSessions,
  reply: FastifyReply,
  accessKey: string,
): Promise<{ csrfToken: string }> {
  const { id, csrfToken } = await sessions.begin(accessKey);
  reply.header("set-cookie", sessionCookie(id));
  return { csrfToken };
}

/** The console installed into the API server (src/server/server-features.ts), authenticating as the API does. */
export function consoleFeature(deps: Omit<ConsoleDeps, "authenticate" | "kinds">): ServerFeature {
  return {
    addRoutes: (app, server) =>
      registerConsole(app, {
        ...deps,
        authenticate: server.authenticate,
        kinds: () => server.registry.resourceTypes(),
      }),
  };
}

/** The console's own endpoints (`/console/api/...`) and its files. */
export function registerConsole(app: FastifyInstance, deps: ConsoleDeps): void {
  const assets = deps.assets ?? new StaticAssets();
  const api = `${CONSOLE_PATH}/api`;

  app.get(`${api}/config`, async (_request, reply) =>
    setSecurityHeaders(reply)
      .header("cache-control", "no-store")
      .send({ sso: deps.ssoConfigured?.() ?? false }),
  );

  // Sign in: {accessKey} → a session cookie, and the CSRF token in the answer.
  app.post(`${api}/session`, async (request, reply) => {
    setSecurityHeaders(reply).header("cache-control", "no-store");
    try {
      const accessKey = signInKey(request);
      const ctx = await deps.authenticateKey(request, accessKey);
      const { csrfToken } = await startConsoleSession(deps.sessions, reply, accessKey);
      return reply.code(201).send({ csrfToken, user: { name: ctx.user.name, kind: ctx.user.subjectKind } });
    } catch (err) {
      return sendError(reply, err);
    }
  });

  // The current session (the page was reloaded): its CSRF token, or 401.
  app.get(`${api}/session`, async (request, reply) => {
    setSecurityHeaders(reply).header("cache-control", "no-store");
    try {
      const csrfToken = await deps.sessions.csrfTokenOf(request.headers);
      if (!csrfToken || request.headers.authorization) throw errors.unauthorized();
      const ctx = await deps.authenticate(request);
      return reply.send({ csrfToken, user: { name: ctx.user.name, kind: ctx.user.subjectKind } });
    } catch (err) {
      return sendError(reply, err);
    }
  });

  // The kinds the console shows, as their folders declare them; for signed-in callers, as discovery is.
  app.get(`${api}/kinds`, async (request, reply) => {
    setSecurityHeaders(reply).header("cache-control", "no-store");
    try {
      await deps.authenticate(request);
      return reply.send({ kinds: consoleKinds(deps.kinds()) });
    } catch (err) {
      return sendError(reply, err);
    }
  });

  // Sign out: a write like any other (the CSRF token is required), then the session is gone.
  app.delete(`${api}/session`, async (request, reply) => {
    setSecurityHeaders(reply).header("cache-control", "no-store");
    try {
      await deps.sessions.credentialOf("DELETE", request.headers);
      await deps.sessions.end(request.headers);
      return reply.header("set-cookie", sessionCookie(undefined)).code(204).send();
    } catch (err) {
      return sendError(reply, err);
    }
  });

  app.get("/", async (_request, reply) => setSecurityHeaders(reply).redirect(`${CONSOLE_PATH}/`, 302));
  const page = async (request: FastifyRequest, reply: FastifyReply) => serveFile(assets, request, reply);
  app.get(CONSOLE_PATH, page);
  app.get(`${CONSOLE_PATH}/*`, page);
}

/** The access key of a sign-in request; only JSON from this origin (no cross-site form can log someone in). */
function signInKey(request: FastifyRequest): string {
  const type = String(request.headers["content-type"] ?? "");
  if (!/^application\/json\b/i.test(type)) {
    throw errors.unsupportedMediaType(type, ["application/json"]);
  }
  const origin = request.headers.origin;
  if (origin && origin !== `https://${request.headers.host}`) {
    throw errors.forbiddenMessage("sign-in is accepted only from the console's own origin");
  }
  let body: unknown;
  try {
    body = JSON.parse(Buffer.isBuffer(request.body) ? request.body.toString("utf8") : String(request.body ?? ""));
  } catch {
    throw errors.badRequest('the body must be JSON: {"accessKey": "..."}');
  }
  const key = (body as { accessKey?: unknown } | null)?.accessKey;
  if (typeof key !== "string" || !key.trim()) throw errors.badRequest("accessKey is required");
  return key.trim();
}

function serveFile(assets: StaticAssets, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  setSecurityHeaders(reply);
  if (!assets.built) {
    return reply
      .code(503)
      .type("text/plain; charset=utf-8")
      .send(`The console was not built (no ${assets.dir}index.html): run npm run build.\n`);
  }
  let path: string;
  try {
    path = decodeURIComponent((request.url.split("?")[0] ?? "").slice(CONSOLE_PATH.length + 1));
  } catch {
    return sendError(reply, errors.notFoundPath());
  }
  const isAsset = path.startsWith("assets/");
  // Hashed file names never change content: cache for a year. Everything else is a client
  // route of the single page, answered with index.html, revalidated every time.
  const asset = isAsset ? assets.get(path) : (assets.get(path) ?? assets.get("index.html"));
  if (!asset) return sendError(reply, errors.notFoundPath());
  const { body, encoding } = assets.encoded(asset, request.headers["accept-encoding"]);
  reply.header("content-type", asset.type).header("vary", "accept-encoding");
  reply.header("cache-control", isAsset ? "public, max-age=31536000, immutable" : "no-cache");
  if (encoding) reply.header("content-encoding", encoding);
  return reply.send(body);
}
