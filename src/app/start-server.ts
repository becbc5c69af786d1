import { resolve } from "node:path";
import { admissionPlugins } from "../admission/plugins.js";
import { bootstrapAdmin, writeAdminKubeconfig } from "../auth/bootstrap.js";
import { IdentityIndex } from "../auth/identity-index.js";
import { AccessControl } from "../authz/access-control.js";
import { reviewKinds } from "../authz/reviews/index.js";
import { assertNoRestoreInProgress } from "../backup/restore.js";
import { startConsoleSession } from "../console/console-routes.js";
import { ClusterHealthController } from "../controllers/cluster-health/cluster-health.js";
import { ControllerManager } from "../controllers/controller-manager.js";
import { GarbageCollector } from "../controllers/garbage-collector/garbage-collector.js";
import { registerEventRoutes } from "../events/event-routes.js";
import { createPlatformEvents } from "../events/platform-events.js";
import { ClusterGateway } from "../gateway/cluster-gateway.js";
import { allResourceTypes } from "../kinds/index.js";
import { attachOperations } from "../metrics/server-hooks.js";
import { AdmissionChain } from "../registry/admission.js";
import { registryPartition } from "../registry/keys.js";
import { Registry } from "../registry/registry.js";
import { SharedInformers } from "../registry/shared-informers.js";
import { accessKeySubresources } from "../server/access-key-subresources.js";
import { storageCheck } from "../server/health.js";
import { createLogger } from "../server/request-log.js";
import type { SubresourceHandler } from "../server/resource-handler.js";
import { createApiServer, listen } from "../server/server.js";
import { WatchStreams } from "../server/watch-stream.js";
import { SingleSignOn, ssoInfo } from "../sso/sso.js";
import { CachedStorage } from "../storage/cache/cached-storage.js";
import { openStorageBackend } from "../storage/factory.js";
import { registerVirtualClusterActions } from "../virtualclusters/actions.js";
import { VirtualClusterCaCleanup } from "../virtualclusters/ca-cleanup.js";
import { VirtualClusterCaStore } from "../virtualclusters/ca-store.js";
import type { RunningServer, ServerConfig } from "./config.js";
import { forwardedAuthority } from "./forwarded-authority.js";
import { loadKeys } from "./keys.js";

export type { RunningServer, ServerConfig } from "./config.js";

/**
 * The composition root: builds every part in dependency order, binds the socket and returns a
 * handle that tests and the CLI close. The only place that knows all the parts.
 */
export async function startServer(config: ServerConfig): Promise<RunningServer> {
  const dataDir = resolve(config.dataDir);
  const { tls, caPem, cipher, signer } = await loadKeys(config, dataDir);
  const backend = await openStorageBackend(
    config.storage ?? `sqlite:${resolve(dataDir, "platform.db")}`,
    config.leaderElection,
  );
  await assertNoRestoreInProgress(backend.storage);
  const ops = attachOperations(config, backend.storage, backend.kind);
  // Reads and watches of every resource are served by the watch cache (src/storage/cache).
  const storage = new CachedStorage(ops.storage, { partition: registryPartition });

  // The registry's admission and the authorizer need each other's parts (the authorizer reads
  // through the registry): they meet through these forwarding calls, made only once requests run.
  const authz = () => access.authorizer;
  const kinds = allResourceTypes({
    cipher,
    secretDataReaders: { mayReadData: (user, obj) => authz().canReadSecretData(user, obj) },
    tokenIssuer: {
      issue: (claims, ttl) =>
        signer.signToken(
          { sub: claims.sub, subjectKind: claims.subjectKind, scope: claims.scope, groups: claims.groups },
          ttl,
        ),
      maxTtlSeconds: config.maxTokenTtlSeconds ?? 86400,
    },
  });
  const admission = new AdmissionChain(
    admissionPlugins({
      ...forwardedAuthority(authz, () => identity),
      owners: {
        resourceTypes: () => registry.resourceTypes(),
        read: (rt, ns, n) => registry.store(rt.plural).read(ns, n),
      },
      read: (resource, ns, name) => registry.store(resource).read(ns, name),
      projects: (name) => registry.store("projects").read(undefined, name),
      uidOf: async (kind, ns, name) => (await registry.storeOfKind(kind)?.read(ns, name))?.metadata.uid,
      maxKeyTtlSeconds: config.maxKeyTtlSeconds,
    }),
  );
  const registry = new Registry(storage, kinds, admission);
  const log = createLogger(config.logLevel ?? "warn");
  // One informer per kind on this replica, shared by every consumer (src/registry/shared-informers.ts).
  const informers = new SharedInformers(registry);
  const identity = new IdentityIndex(informers.for("ownedaccesskeys"), informers.for("users"), informers.for("teams"));
  const access = new AccessControl(registry, informers, identity, signer, config, log);
  const adminKey = await bootstrapAdmin(registry, dataDir, config.bootstrapKey ?? process.env.PLATFORM_BOOTSTRAP_KEY);
  await identity.start();
  await access.start();

  // Background work runs on the elected replica only (several may share one etcd).
  const controllers = new ControllerManager(backend.elector, {
    onError: (controller, err) => log.error({ err, controller }, `controller ${controller} failed to start or stop`),
  });
  const warn = (what: string) => (err: unknown) => log.error({ err }, `${what} failed`);
  const cas = new VirtualClusterCaStore(registry, cipher);
  const caCleanup = new VirtualClusterCaCleanup(registry, informers, cas, log);
  const events = createPlatformEvents(storage, informers, warn("recording an event"), config.events);
  const garbageCollector = new GarbageCollector(registry, informers, { log, events: events.recorder });
  const clusterHealth = new ClusterHealthController(
    registry,
    informers,
    { intervalMs: config.clusterCheckIntervalMs, events: events.recorder },
    log,
  );
  for (const [name, c] of [
    ["virtualcluster-ca-cleanup", caCleanup],
    ["user-teams", access.userTeams],
    ["garbage-collector", garbageCollector],
    ["cluster-health", clusterHealth],
    ["event-cleanup", events.cleanup],
    ["access-key-events", events.accessKeys],
  ] as const) {
    controllers.register({ name, start: () => c.start(), stop: () => c.stop() });
  }

  const subresources = new Map<string, SubresourceHandler>(accessKeySubresources(registry, identity));
  registerVirtualClusterActions(subresources, { registry, cas, events: events.recorder });
  const watchStreams = new WatchStreams();
  // The gateway takes access keys only (a console session cookie is not a credential there).
  const gateway = new ClusterGateway({
    registry,
    informers,
    authenticate: (request) =>
      access.authenticate({ ip: request.ip, method: "GET", headers: { ...request.headers, cookie: undefined } }),
    authorizer: access.authorizer,
    cas,
    audit: access.audit,
  });
  await gateway.start();
  let closing = false;
  const app = createApiServer({
    tls,
    registry,
    reviews: new Registry(storage, reviewKinds({ authorizer: access.authorizer, registry }), admission),
    authorizer: access.authorizer,
    access,
    subresources,
    jwks: () => signer.jwks(),
    storageHealth: storageCheck(storage, backend.kind === "etcd"),
    bookmarkIntervalMs: config.bookmarkIntervalMs ?? 30_000,
    freshnessWaitMs: config.freshnessWaitMs,
    watchStreams,
    gateway,
    ssoConfigured: config.oidc !== undefined,
    logger: log,
    closing: () => closing,
    ops,
    storage,
    gcQueueDepth: () => garbageCollector.queueDepth,
    extraRoutes: (app, guarded) =>
      registerEventRoutes(app, guarded, {
        events: events.store,
        registry,
        authorizer: access.authorizer,
        watchStreams,
        bookmarkIntervalMs: config.bookmarkIntervalMs ?? 30_000,
        freshnessWaitMs: config.freshnessWaitMs,
      }),
  });
  // Single sign-on (src/sso): its routes, and key refresh on the elected replica. A browser
  // sign-in ends in a web console session unless the embedder says otherwise.
  let serverUrl = "";
  app.get("/auth/oidc/config", async (_req, reply) => reply.send(ssoInfo(config.oidc)));
  const sso = config.oidc
    ? new SingleSignOn(config.oidc, {
        registry,
        cipher,
        baseUrl: () => serverUrl,
        authenticate: (request) => access.authenticate(request),
        finish:
          config.finishBrowserLogin ??
          ((reply, key) => {
            startConsoleSession(reply, key);
            return reply.redirect("/console/", 303);
          }),
        onError: warn("SSO key refresh"),
      })
    : undefined;
  sso?.register(app);
  if (sso) {
    controllers.register({
      name: "oidc-login-refresh",
      start: () => sso.refresher.start(),
      stop: () => sso.refresher.stop(),
    });
  }
  const { url, port } = await listen(app, config.host, config.port);
  serverUrl = url;
  await ops.listen();
  const adminKubeconfig = adminKey ? writeAdminKubeconfig(dataDir, url, caPem, adminKey) : undefined;
  controllers.start();

  let closed: Promise<void> | undefined;
  return {
    url,
    port,
    caPem,
    adminKey,
    adminKubeconfig,
    registry,
    informers,
    storage,
    controllers,
    sso,
    gateway,
    events,
    app,
    close() {
      closing = true;
      closed ??= (async () => {
        await controllers.stop();
        watchStreams.closeAll();
        gateway.stop();
        await app.close();
        await ops.close();
        await access.stop();
        informers.stop();
        await storage.close();
      })();
      return closed;
    },
  };
}
