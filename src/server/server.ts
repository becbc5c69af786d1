import { createServer as createHttpsServer } from "node:https";
import Fastify, { type FastifyInstance, type FastifyRequest } from "fastify";
import type { Logger } from "pino";
import { MAX_BODY_BYTES } from "../api/body-limit.js";
import { errors } from "../api/errors.js";
import { API_PREFIX, GROUP, VERSION } from "../api/object.js";
import { PUBLIC_PATHS } from "../auth/anonymous.js";
import type { AccessControl } from "../authz/access-control.js";
import type { Authorizer } from "../authz/contract.js";
import { TLS_PREFERENCES } from "../crypto/tls-preferences.js";
import type { Registry } from "../registry/registry.js";
import type { RequestContext } from "../registry/request-context.js";
import { auditableBodies } from "./audited-bodies.js";
import { SERVER_VERSION } from "./discovery.js";
import { registerDiscoveryRoutes } from "./discovery-routes.js";
import { fastCreate } from "./fast-create.js";
import { type FastPathDeps, fastGet } from "./fast-get.js";
import { frontDoor } from "./front-door.js";
import { watchGetOnlyPaths } from "./get-only-paths.js";
import { type HealthCheck, registerHealthRoutes } from "./health.js";
import type { InFlightRequests } from "./in-flight-requests.js";
import { registerNamespaceRoutes } from "./namespace-routes.js";
import { negotiateResponse, type ResponseFormat } from "./negotiation.js";
import { clientErrorHandler, frameworkErrors } from "./protocol-errors.js";
import { writeStatusToSocket } from "./raw-status.js";
import { guardUpgrade } from "./request-guard.js";
import { installRequestLog, loggingOptions } from "./request-log.js";
import { RequestPipeline } from "./request-pipeline.js";
import { handleResourceRequest, type ResourceHandlerDeps, type SubresourceHandler } from "./resource-handler.js";
import { sendError } from "./respond.js";
import type {
  FeatureContext,
  Guarded,
  RequestObservers,
  ServedBeforeRouting,
  ServerFeature,
} from "./server-features.js";
import type { TrustedProxies } from "./trusted-proxies.js";
import type { WatchStreams } from "./watch-stream.js";

/** What the HTTP layer serves; the composition root (src/app) builds it. */
export interface ApiServerDeps {
  tls: { certPem: string; keyPem: string };
  registry: Registry;
  /** The core group's kinds (Events), served under `/api/v1` by the same generic handler. */
  core: Registry;
  /** The review kinds kubectl's `auth` commands create (src/authz/reviews), never stored. */
  reviews: Registry;
  authorizer: Authorizer;
  access: Pick<
    AccessControl,
    "authenticate" | "authenticateOrAnonymous" | "authenticateKey" | "authenticateNow" | "noteCaller" | "authorizer"
  >;
  /** Custom subresources keyed `plural/subresource` (access keys, virtual cluster actions). */
  subresources: Map<string, SubresourceHandler>;
  /** The storage check of /readyz and /healthz (health.ts). */
  storageHealth: HealthCheck;
  /** The token signing keys, served at /.well-known/jwks.json. */
  jwks: () => unknown;
  bookmarkIntervalMs: number;
  /** How long a GET, list or watch at a resourceVersion ahead of the store waits before 504. */
  freshnessWaitMs?: number;
  watchStreams: WatchStreams;
  /** The server's JSON logger (request-log.ts createLogger), shared with the controllers. */
  logger: Logger;
  /** What answers its own paths and upgrades before fastify routes anything (the cluster gateway, src/gateway). */
  beforeRouting?: ServedBeforeRouting;
  /** True once the server is closing (draining): the fast GET and create branches step aside. */
  closing: () => boolean;
  /**
   * True from the moment a stop was asked, which may be `--shutdown-delay` before `closing`:
   * /readyz fails its `shutdown` check. Default: `closing`.
   */
  unready?: () => boolean;
  /** Every request, counted for a graceful shutdown (refused once it began). */
  inFlight: InFlightRequests;
  /** Observers of authentication (the metrics, src/metrics/server-hooks.ts). */
  observers?: RequestObservers;
  /**
   * The cross-cutting features the composition root installs (metrics, audit log, console, backup:
   * server-features.ts): their hooks before any route, their routes beside the API's, in this order.
   */
  features: ServerFeature[];
  /** `--trusted-proxies`: whose X-Forwarded-For gives the client's address (request.ip). */
  trustedProxies?: TrustedProxies;
}

/** The fastify app of the API (not yet listening): the front door, routes, body parsing, errors. */
export function createApiServer(deps: ApiServerDeps): FastifyInstance {
  const { registry, access, tls } = deps;
  const proxies = deps.trustedProxies?.trust ? deps.trustedProxies : undefined;
  const groupPrefix = `${API_PREFIX}/apis/${GROUP}/${VERSION}/`;
  const logger = deps.logger;
  const requests = new RequestPipeline();
  const fastPaths = {
    registry,
    groupPrefix,
    requests,
    authenticate: (request) => access.authenticateNow(request),
    noteCaller: (request, user) => access.noteCaller(request, user),
    allows: (user, attrs) => access.authorizer.decide(user, attrs).allowed,
    bypassed: () => deps.closing(),
    log: logger,
    clientAddress: proxies && ((req) => proxies.clientAddress(req)),
  } satisfies FastPathDeps;
  const fastBranches = [fastCreate({ ...fastPaths, maxBodyBytes: MAX_BODY_BYTES }), fastGet(fastPaths)];
  const app = Fastify({
    // fastify's own https server, behind the one front door (front-door.ts).
    serverFactory: (routed) => {
      const { inFlight, beforeRouting } = deps;
      const onRequest = frontDoor({ inFlight, beforeRouting, fastBranches, routed, log: logger });
      const server = createHttpsServer({ key: tls.keyPem, cert: tls.certPem, ...TLS_PREFERENCES }, onRequest);
      // Guarded (request-guard.ts): an exception of one upgrade is its 500, never the process's end.
      const onUpgrade = guardUpgrade((req, socket, head) => {
        if (!deps.inFlight.admitUpgrade(req, socket) || deps.beforeRouting?.handleUpgrade(req, socket, head)) return;
        writeStatusToSocket(
          socket,
          req.method,
          400,
          "BadRequest",
          "protocol upgrades are served only under /kubernetes/cluster/ and /kubernetes/project/",
        );
      }, logger);
      server.on("upgrade", onUpgrade);
      // What fastify sets on the servers it makes: keep-alive 72 s, no request timeout (watches).
      server.keepAliveTimeout = 72_000;
      server.requestTimeout = 0;
      server.setTimeout(0);
      return server;
    },
    bodyLimit: MAX_BODY_BYTES,
    ...loggingOptions(logger),
    // Kubernetes paths are case-sensitive and never have trailing-slash aliases.
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 1000 },
    return503OnClosing: true,
    frameworkErrors,
    clientErrorHandler,
    forceCloseConnections: "idle",
    // request.ip (the client address of the limits): from X-Forwarded-For only behind a trusted
    // proxy (the audit's sourceIPs list the header whatever this says, as kube-apiserver's do). fastify then also reads X-Forwarded-Host and -Proto for request.host and
    // request.protocol, which nothing here uses.
    trustProxy: proxies?.trust,
  });
  acceptAnyBody(app);
  const refuseOtherMethods = watchGetOnlyPaths(app);
  installRequestLog(app, requests, logger);
  const features = featureContext(deps, groupPrefix, requests);
  for (const feature of deps.features) feature.installHooks?.(app, features);
  requests.runInFastify(app);
  registerPublicRoutes(app, deps.jwks, deps.storageHealth, deps.unready ?? deps.closing, async (request) => {
    request.userName = (await access.authenticateOrAnonymous(request)).user.name;
  });
  registerApiRoutes(app, deps, features, groupPrefix);
  refuseOtherMethods({
    identify: (request, path) =>
      PUBLIC_PATHS.has(path) ? access.authenticateOrAnonymous(request) : access.authenticate(request),
    authorizer: deps.authorizer,
  });
  return app;
}

/** Bodies are read as bytes (each verb decodes its own); fastify's errors become Kubernetes Status. */
function acceptAnyBody(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: MAX_BODY_BYTES }, (_req, body, done) =>
    done(null, body),
  );
  app.setErrorHandler((err, request, reply) => {
    const code = (err as { code?: string }).code;
    if (code === "FST_ERR_CTP_BODY_TOO_LARGE") return sendError(reply, errors.tooLarge(MAX_BODY_BYTES));
    if (code === "FST_ERR_CTP_INVALID_MEDIA_TYPE")
      return sendError(
        reply,
        errors.unsupportedMediaType(request.headers["content-type"] ?? "", ["application/json", "application/yaml"]),
      );
    if (code === "FST_ERR_CTP_EMPTY_JSON_BODY" || code === "FST_ERR_CTP_INVALID_CONTENT_LENGTH")
      return sendError(reply, errors.badRequest((err as Error).message));
    // The connection closed while the body was read (the client went away, or a stopping server
    // cut it off): nobody reads the answer, and it is no server error.
    if (code === "ECONNRESET" && request.raw.destroyed)
      return sendError(reply, errors.badRequest("the connection closed before the request body was read"));
    return sendError(reply, err);
  });
  app.setNotFoundHandler((_request, reply) => sendError(reply, errors.notFoundPath()));
}

/**
 * Health, version and the token signing keys: readable without credentials (kube's
 * system:public-info-viewer). `identify` runs first all the same: a request with credentials is
 * audited as its caller, and one whose credentials do not authenticate gets 401, as in kube.
 */
function registerPublicRoutes(
  app: FastifyInstance,
  jwks: () => unknown,
  storage: HealthCheck,
  stopping: () => boolean,
  identify: (request: FastifyRequest) => Promise<void>,
): void {
  registerHealthRoutes(app, storage, stopping, identify);
  for (const path of ["/version", `${API_PREFIX}/version`]) {
    app.get(path, { onRequest: identify }, async (_req, reply) => reply.send(SERVER_VERSION));
  }
  app.get("/.well-known/jwks.json", { onRequest: identify }, async (_req, reply) => reply.send(jwks()));
}

/** What the features are lent (server-features.ts): the API's authentication and `guarded` wrapper among it. */
function featureContext(deps: ApiServerDeps, groupPrefix: string, requests: RequestPipeline): FeatureContext {
  const { access } = deps;
  const authenticate = (request: Pick<FastifyRequest, "ip" | "method" | "headers">): Promise<RequestContext> =>
    access.authenticate(request);
  const authenticated = deps.observers?.authenticated;
  const formatOf = (request: FastifyRequest): ResponseFormat => {
    try {
      return negotiateResponse(request.headers.accept, false);
    } catch {
      return { encoding: "json", table: false };
    }
  };
  const guarded: Guarded = (handler) => async (request, reply) => {
    try {
      const pending = authenticate(request);
      const ctx = await (authenticated ? authenticated(pending) : pending);
      request.userName = ctx.user.name;
      return await handler(request, reply, ctx);
    } catch (err) {
      if (reply.sent || reply.raw.headersSent) return reply;
      return sendError(reply, err, formatOf(request));
    }
  };
  // The registries the generic handler serves (registerApiRoutes), with their prefixes.
  const generic = [
    { prefix: groupPrefix, registry: deps.registry },
    { prefix: `${API_PREFIX}/api/v1/`, registry: deps.core },
  ];
  return {
    registry: deps.registry,
    authorizer: deps.authorizer,
    subresources: deps.subresources,
    watchStreams: deps.watchStreams,
    bodiesAuditable: auditableBodies(generic, deps.reviews),
    guarded,
    requests,
    authenticate,
  };
}

/** Discovery, the features' routes and the resource endpoints, each request authenticated first. */
function registerApiRoutes(
  app: FastifyInstance,
  deps: ApiServerDeps,
  features: FeatureContext,
  groupPrefix: string,
): void {
  const { registry, authorizer } = deps;
  const { guarded } = features;
  registerDiscoveryRoutes(app, { registry, core: deps.core, reviews: deps.reviews, authorizer, guarded });
  for (const feature of deps.features) feature.addRoutes?.(app, features);
  const handlerDeps: ResourceHandlerDeps = {
    registry,
    authorizer,
    subresources: deps.subresources,
    bookmarkIntervalMs: deps.bookmarkIntervalMs,
    freshnessWaitMs: deps.freshnessWaitMs,
    watchStreams: deps.watchStreams,
  };
  // The core group's Namespaces (read-only, projected from the projects): before the generic
  // handler of the core group, whose routes they take precedence over.
  registerNamespaceRoutes(app, {
    registry,
    authorizer,
    guarded,
    watchStreams: deps.watchStreams,
    bookmarkIntervalMs: deps.bookmarkIntervalMs,
  });
  // The management group, and the core group (Events, read-only): one generic handler each.
  const coreDeps: ResourceHandlerDeps = { ...handlerDeps, registry: deps.core, subresources: new Map() };
  for (const [prefix, served] of [
    [groupPrefix, handlerDeps],
    [`${API_PREFIX}/api/v1/`, coreDeps],
  ] as const) {
    app.route({
      method: ["GET", "POST", "PUT", "PATCH", "DELETE"],
      url: `${prefix}*`,
      handler: guarded((request, reply, ctx) => {
        const rest = request.url.slice(prefix.length).split("?")[0] ?? "";
        return handleResourceRequest(served, request, reply, rest, ctx);
      }),
    });
  }
}

/** Binds the socket; the URL clients use (127.0.0.1 for a wildcard listen host). */
export async function listen(
  app: FastifyInstance,
  hostOption: string | undefined,
  portOption: number | undefined,
): Promise<{ url: string; port: number }> {
  await app.listen({
    host: hostOption ?? "0.0.0.0",
    port: portOption ?? 8443,
    // The server comes from serverFactory, so fastify cannot tell it is HTTPS and would log http://.
    listenTextResolver: (address) => `Server listening at ${address.replace(/^http:/, "https:")}`,
  });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : (portOption ?? 8443);
  const host = !hostOption || hostOption === "0.0.0.0" || hostOption === "::" ? "127.0.0.1" : hostOption;
  return { url: `https://${host.includes(":") ? `[${host}]` : host}:${port}`, port };
}
