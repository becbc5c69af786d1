import { readFileSync } from "node:fs";
import { createServer as createHttpsServer } from "node:https";
import { resolve } from "node:path";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { errors } from "../api/errors.js";
import { API_PREFIX, GROUP, VERSION } from "../api/object.js";
import { bootstrapAdmin, writeAdminKubeconfig } from "../auth/bootstrap.js";
import { IdentityIndex } from "../auth/identity-index.js";
import { AccessControl } from "../authz/access-control.js";
import { ControllerManager } from "../controllers/controller-manager.js";
import { GarbageCollector } from "../controllers/garbage-collector/garbage-collector.js";
import { OwnerReferencesAdmission } from "../controllers/garbage-collector/owner-references-admission.js";
import { EtcdLeaderElector, SingleReplicaElector } from "../controllers/leader-election.js";
import { loadOrCreateServerTls } from "../crypto/certificates.js";
import { TLS_PREFERENCES } from "../crypto/tls-preferences.js";
import "../crypto/reflect-metadata.js";
import { installAuditHooks } from "../audit/audit-hooks.js";
import type { AuditOptions } from "../audit/audit-log.js";
import { assertNoRestoreInProgress } from "../backup/restore.js";
import { ClusterHealthController } from "../controllers/cluster-health/cluster-health.js";
import { loadOrCreateSigningKey, type TokenSigner } from "../crypto/jwt.js";
import { loadOrCreateEncryptionKeys, type SecretBox } from "../crypto/secret-box.js";
import { allResourceTypes } from "../kinds/index.js";
import { attachOperations, type OperationsConfig } from "../metrics/server-hooks.js";
import { CachedStorage } from "../registry/cache/cached-storage.js";
import { Informer } from "../registry/informer.js";
import { Registry } from "../registry/registry.js";
import type { RequestContext } from "../registry/request-context.js";
import { EtcdStorage } from "../storage/etcd/etcd-storage.js";
import { openStorage } from "../storage/factory.js";
import type { Storage } from "../storage/interface.js";
import { registerVirtualClusterActions } from "../virtualclusters/actions.js";
import { VirtualClusterCaCleanup } from "../virtualclusters/ca-cleanup.js";
import type { Authorizer } from "./authorizer.js";
import { SERVER_VERSION } from "./discovery.js";
import { registerDiscoveryRoutes } from "./discovery-routes.js";
import { fastGet } from "./fast-get.js";
import { negotiateResponse, type ResponseFormat } from "./negotiation.js";
import { createLogger, installRequestLog, loggingOptions, requestIdOf } from "./request-log.js";
import { handleResourceRequest, type ResourceHandlerDeps, type SubresourceHandler } from "./resource-handler.js";
import { sendError } from "./respond.js";
import { WatchStreams } from "./watch-stream.js";

/** Request bodies above this are refused with 413 before they are read whole. */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

export interface ServerConfig extends OperationsConfig, AuditOptions {
  dataDir: string;
  /** Host to listen on (default 0.0.0.0). */
  host?: string;
  /** Port (default 8443; 0 picks a free one). */
  port?: number;
  /** Storage URL: `sqlite:PATH` (default `<data-dir>/platform.db`) or `etcd://host:port[,…]`. */
  storage?: string;
  tlsCertFile?: string;
  tlsKeyFile?: string;
  encryptionKeyFile?: string;
  bootstrapKey?: string;
  bookmarkIntervalMs?: number;
  /** Longest lifetime of a direct cluster endpoint token. */
  maxTokenTtlSeconds?: number;
  /** `--max-key-ttl`: longest access key ttl (seconds) anyone can create; undefined: no limit. */
  maxKeyTtlSeconds?: number;
  /** `--audit-log`: JSON lines to this file, or `-` for stdout. */
  auditLog?: string;
  /** Failed authentications per source address per minute before 429 (default 30). */
  maxFailedAuthPerMinute?: number;
  logLevel?: string;
  /** How often connected clusters are checked again (default one minute). */
  clusterCheckIntervalMs?: number;
  /** etcd leader election of the controllers: lease TTL (default 5 s) and retry period (default 500 ms). */
  leaderElection?: { ttlSeconds?: number; retryMs?: number };
}

export interface RunningServer {
  /** `https://127.0.0.1:PORT` (or the listen host when it is not a wildcard). */
  url: string;
  port: number;
  caPem?: string;
  /** The admin key, when known (first start, or kept in the data dir). */
  adminKey?: string;
  adminKubeconfig?: string;
  registry: Registry;
  storage: Storage;
  /** Background controllers; they run only while this replica is the elected leader. */
  controllers: ControllerManager;
  app: FastifyInstance;
  close(): Promise<void>;
}

/** Builds every part, binds the socket and returns a handle that tests and the CLI close. */
export async function startServer(config: ServerConfig): Promise<RunningServer> {
  const dataDir = resolve(config.dataDir);
  const tls =
    config.tlsCertFile && config.tlsKeyFile
      ? {
          certPem: readFileSync(config.tlsCertFile, "utf8"),
          keyPem: readFileSync(config.tlsKeyFile, "utf8"),
          caPem: undefined,
        }
      : await loadOrCreateServerTls(dataDir);
  const secretBox: SecretBox = loadOrCreateEncryptionKeys(
    config.encryptionKeyFile ? { keyFile: config.encryptionKeyFile } : { dataDir },
  );
  const signer: TokenSigner = await loadOrCreateSigningKey(dataDir);
  // Reads and watches of every resource are served by the watch cache (src/registry/cache).
  const backend = await openStorage(config.storage ?? `sqlite:${resolve(dataDir, "platform.db")}`);
  await assertNoRestoreInProgress(backend);
  const logger = createLogger(config.logLevel ?? "warn");
  const ops = attachOperations(config, backend);
  const storage = new CachedStorage(ops.storage);

  const ownerRefs = new OwnerReferencesAdmission();
  const cipher = {
    encrypt: (v: string) => secretBox.encrypt(Buffer.from(v, "utf8")),
    decrypt: (v: string) => secretBox.decrypt(v).toString("utf8"),
  };
  const registry: Registry = new Registry(
    storage,
    allResourceTypes({
      cipher,
      projects: (name) => registry.store("projects").read(undefined, name),
      tokenIssuer: {
        issue: (claims, ttl) =>
          signer.signToken({ sub: claims.sub, subjectKind: claims.subjectKind, scope: claims.scope }, ttl),
        maxTtlSeconds: config.maxTokenTtlSeconds ?? 86400,
      },
      uidLookup: async (kind, ns, name) => (await registry.storeOfKind(kind)?.read(ns, name))?.metadata.uid,
    }),
    ownerRefs.hooks,
  );
  ownerRefs.registry = registry;
  const identity = new IdentityIndex(
    new Informer(registry.store("ownedaccesskeys")),
    new Informer(registry.store("users")),
    new Informer(registry.store("teams")),
  );
  const adminKey = await bootstrapAdmin(registry, dataDir, config.bootstrapKey ?? process.env.PLATFORM_BOOTSTRAP_KEY);
  await identity.start();
  const access = new AccessControl(registry, identity, signer, config, logger);
  await access.start();
  const authorizer: Authorizer = access.authorizer;
  ownerRefs.authorizer = authorizer;
  // Several replicas may share one etcd: background work runs on the elected one only.
  const controllers = new ControllerManager(
    // The election needs the etcd client under the cache.
    backend instanceof EtcdStorage
      ? new EtcdLeaderElector(backend.client, config.leaderElection ?? {})
      : new SingleReplicaElector(),
  );
  const garbageCollector = new GarbageCollector(registry);
  const caCleanup = new VirtualClusterCaCleanup(registry, (err) =>
    logger.warn({ err }, "virtual cluster CA cleanup failed"),
  );
  controllers.register({
    name: "virtualcluster-ca-cleanup",
    start: () => caCleanup.start(),
    stop: () => caCleanup.stop(),
  });
  controllers.register({
    name: "user-teams",
    start: () => access.userTeams.start(),
    stop: () => access.userTeams.stop(),
  });
  controllers.register({
    name: "garbage-collector",
    start: () => garbageCollector.start(),
    stop: () => garbageCollector.stop(),
  });
  const subresources = new Map<string, SubresourceHandler>(access.subresources);
  const watchStreams = new WatchStreams();
  registerVirtualClusterActions(subresources, { registry, cipher });
  const clusterHealth = new ClusterHealthController(registry, { intervalMs: config.clusterCheckIntervalMs });

  const groupPrefix = `${API_PREFIX}/apis/${GROUP}/${VERSION}/`;
  let closing = false;
  const hotGet = fastGet({
    registry,
    groupPrefix,
    authenticate: (request) => access.authenticateNow(request),
    allows: (user, attrs) => access.authorizer.decide(user, attrs).allowed,
    bypassed: () => closing || logger.isLevelEnabled("info"),
    served: ops.fastGetServed,
    requestId: requestIdOf,
  });
  const app = Fastify({
    // fastify's own https server, with the fast GET path (fast-get.ts) in front of its routing.
    serverFactory: (handler) => {
      const server = createHttpsServer({ key: tls.keyPem, cert: tls.certPem, ...TLS_PREFERENCES }, (req, res) => {
        const answered = hotGet(req, res);
        if (answered === false) handler(req, res);
        else if (answered !== true) answered.then((ok) => ok || handler(req, res));
      });
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
    forceCloseConnections: "idle",
  });
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
    return sendError(reply, err);
  });
  installRequestLog(app, logger);
  ops.installHooks(app, watchStreams, registry);
  app.setNotFoundHandler((_request, reply) => sendError(reply, errors.notFoundPath()));

  // ---- unauthenticated endpoints ----
  for (const path of ["/healthz", "/livez", "/readyz"]) {
    app.get(path, async (_req, reply) => reply.type("text/plain").send("ok"));
  }
  for (const path of ["/version", `${API_PREFIX}/version`]) {
    app.get(path, async (_req, reply) => reply.send(SERVER_VERSION));
  }
  app.get("/.well-known/jwks.json", async (_req, reply) => reply.send(signer.jwks()));

  // ---- authenticated API ----
  const authenticate = (request: FastifyRequest): Promise<RequestContext> => access.authenticate(request);
  if (access.audit) installAuditHooks(app, access.audit, watchStreams);
  const formatOf = (request: FastifyRequest): ResponseFormat => {
    try {
      return negotiateResponse(request.headers.accept, false);
    } catch {
      return { encoding: "json", table: false };
    }
  };
  const guarded =
    (handler: (request: FastifyRequest, reply: FastifyReply, ctx: RequestContext) => Promise<unknown>) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      try {
        const ctx = await ops.authenticated(authenticate(request));
        request.userName = ctx.user.name;
        return await handler(request, reply, ctx);
      } catch (err) {
        if (reply.sent || reply.raw.headersSent) return reply;
        return sendError(reply, err, formatOf(request));
      }
    };

  registerDiscoveryRoutes(app, { registry, authorizer, guarded });
  ops.registerRoutes(app, { registry, authorizer, guarded, storage, gcQueueDepth: () => garbageCollector.queueDepth });
  const deps: ResourceHandlerDeps = {
    registry,
    authorizer,
    subresources,
    bookmarkIntervalMs: config.bookmarkIntervalMs ?? 30_000,
    watchStreams,
  };
  app.route({
    method: ["GET", "POST", "PUT", "PATCH", "DELETE"],
    url: `${groupPrefix}*`,
    handler: guarded((request, reply, ctx) => {
      const rest = request.url.slice(groupPrefix.length).split("?")[0] ?? "";
      return handleResourceRequest(deps, request, reply, rest, ctx);
    }),
  });

  await app.listen({ host: config.host ?? "0.0.0.0", port: config.port ?? 8443 });
  await ops.listen();
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : (config.port ?? 8443);
  const host = !config.host || config.host === "0.0.0.0" || config.host === "::" ? "127.0.0.1" : config.host;
  const url = `https://${host.includes(":") ? `[${host}]` : host}:${port}`;
  controllers.register({
    name: "cluster-health",
    start: () => clusterHealth.start(),
    stop: () => clusterHealth.stop(),
  });
  const adminKubeconfig = adminKey ? writeAdminKubeconfig(dataDir, url, tls.caPem, adminKey) : undefined;
  controllers.start();

  let closed: Promise<void> | undefined;
  return {
    url,
    port,
    caPem: tls.caPem,
    adminKey,
    adminKubeconfig,
    registry,
    storage,
    controllers,
    app,
    close() {
      closing = true;
      closed ??= (async () => {
        await controllers.stop();
        watchStreams.closeAll();
        await app.close();
        await ops.close();
        await access.stop();
        identity.stop();
        await storage.close();
      })();
      return closed;
    },
  };
}
