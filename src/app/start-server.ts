import { resolve } from "node:path";
import { setFlagsFromString } from "node:v8";
import type { Logger } from "pino";
import { auditFeature } from "../audit/audit-hooks.js";
import { writeAdminKubeconfig } from "../auth/bootstrap.js";
import { reviewKinds } from "../authz/reviews/index.js";
import { backupFeature } from "../backup/backup-route.js";
import { consoleFeature } from "../console/console-routes.js";
import { KeySessionCleanup } from "../console/key-session-cleanup.js";
import type { ControllerManager } from "../controllers/controller-manager.js";
import { createPlatformEvents } from "../events/platform-events.js";
import { Registry } from "../registry/registry.js";
import { accessKeySubresources } from "../server/access-key-subresources.js";
import { storageCheck } from "../server/health.js";
import { InFlightRequests } from "../server/in-flight-requests.js";
import { createLogger } from "../server/request-log.js";
import type { SubresourceHandler } from "../server/resource-handler.js";
import { createApiServer, listen } from "../server/server.js";
import { TrustedProxies } from "../server/trusted-proxies.js";
import { WatchStreams } from "../server/watch-stream.js";
import { registerSpaceActions } from "../spaces/space-actions.js";
import { registerVirtualClusterActions } from "../virtualclusters/actions.js";
import { assembleAccess } from "./access-assembly.js";
import type { RunningServer, ServerConfig } from "./config.js";
import { assembleControllers } from "./controllers-assembly.js";
import { startGateway } from "./gateway-wiring.js";
import { tuneGarbageCollector } from "./gc-tuning.js";
import { loadKeys } from "./keys.js";
import { closeInOrder, ServerStop } from "./server-shutdown.js";
import { wireSso } from "./sso-wiring.js";
import { openServerStorage } from "./storage-assembly.js";

export type { RunningServer, ServerConfig } from "./config.js";

type Access = Awaited<ReturnType<typeof assembleAccess>>;
type ServerStorage = Awaited<ReturnType<typeof openServerStorage>>;

/**
 * The composition root: builds every part in dependency order, binds the socket and returns a
 * handle that tests and the CLI close. The only place that knows all the parts.
 */
export async function startServer(config: ServerConfig): Promise<RunningServer> {
  const dataDir = resolve(config.dataDir);
  tuneGarbageCollector(process.execArgv, setFlagsFromString);
  // First: a range that does not parse stops the start before anything is opened.
  const trustedProxies = new TrustedProxies(config.trustedProxies);
  const { tls, caPem, cipher, signer } = await loadKeys(config, dataDir);
  const log = createLogger(config.logLevel ?? "warn", config.logDestination);
  const opened = await openServerStorage(config, dataDir, log);
  const access = await assembleAccess(config, dataDir, opened.storage, { cipher, signer }, log);
  const { registry, informers } = access;
  const warn = (what: string) => (err: unknown) => log.error({ err }, `${what} failed`);
  const { events, controllers, garbageCollector, subresources, gateway } = await assembleBeyondTheApi(
    config,
    opened.backend.elector,
    access,
    { trustedProxies, log },
  );
  const stop = new ServerStop();
  const watchStreams = new WatchStreams();
  const inFlight = new InFlightRequests();
  const app = createApiServer({
    ...apiServerParts(config, opened, access, { gcQueueDepth: () => garbageCollector.queueDepth, log }),
    tls,
    jwks: () => signer.jwks(),
    subresources,
    watchStreams,
    beforeRouting: gateway,
    closing: () => stop.closing,
    unready: () => stop.requested,
    inFlight,
    trustedProxies,
  });
  let serverUrl = "";
  const sso = wireSso(app, config, controllers, access.consoleSessions, {
    registry,
    cipher,
    baseUrl: () => serverUrl,
    authenticate: (request) => access.access.authenticate(request),
    onError: warn("SSO key refresh"),
  });
  const { url, port } = await listen(app, config.host, config.port);
  serverUrl = url;
  await opened.ops.listen();
  const adminKubeconfig = access.adminKey ? writeAdminKubeconfig(dataDir, url, caPem, access.adminKey) : undefined;
  controllers.start();

  const streams = {
    endStreams: () => {
      watchStreams.closeAll();
      gateway.endStreams();
    },
  };
  return {
    url,
    port,
    caPem,
    adminKey: access.adminKey,
    adminKubeconfig,
    registry,
    informers,
    storage: opened.storage,
    storedBytesPrecheck: access.storedBytesPrecheck,
    controllers,
    sso,
    gateway,
    events,
    app,
    close: closeInOrder(
      config,
      stop,
      { ...access, controllers, inFlight, app, streams, gateway, ops: opened.ops, storage: opened.storage },
      log,
    ),
  };
}

/**
 * What works beside the API's verbs: the platform's Events, the controllers (run by the elected
 * replica), the custom subresources of access keys and virtual clusters, and the cluster gateway.
 */
async function assembleBeyondTheApi(
  config: ServerConfig,
  elector: ServerStorage["backend"]["elector"],
  access: Access,
  { trustedProxies, log }: { trustedProxies: TrustedProxies; log: Logger },
) {
  const { registry, informers, identity } = access;
  const warn = (what: string) => (err: unknown) => log.error({ err }, `${what} failed`);
  const { cas } = access;
  const events = createPlatformEvents(
    access.core.store("events"),
    informers,
    warn("recording an event"),
    config.events,
  );
  const { controllers, garbageCollector } = assembleControllers({
    config,
    elector,
    registry,
    informers,
    identity,
    authorizer: access.access.authorizer,
    cas,
    events,
    log,
  });
  registerConsoleSessionWork(controllers, access, warn);
  const subresources = new Map<string, SubresourceHandler>(accessKeySubresources(registry, identity));
  // The actions that call a cluster during a request connect where the controllers and the gateway may.
  const endpoints = { allowLocal: config.allowLocalEndpoints === true };
  registerVirtualClusterActions(subresources, { registry, cas, endpoints, events: events.recorder });
  registerSpaceActions(subresources, registry, endpoints, events.recorder);
  const gateway = await startGateway(
    registry,
    informers,
    access.access,
    access.audit,
    cas,
    trustedProxies,
    config.allowLocalEndpoints === true,
    log,
    config.sleepMode,
  );
  return { events, controllers, garbageCollector, subresources, gateway };
}

/** The console's sessions expire, and end with the access key they stand for: background work of the elected replica. */
function registerConsoleSessionWork(
  controllers: ControllerManager,
  { consoleSessions, informers }: Pick<Access, "consoleSessions" | "informers">,
  warn: (what: string) => (err: unknown) => void,
): void {
  controllers.register({
    name: "console-session-sweep",
    start: () => consoleSessions.sweeper.start(),
    stop: () => consoleSessions.sweeper.stop(),
  });
  const keySessionCleanup = new KeySessionCleanup(informers, consoleSessions, warn("ending a deleted key's sessions"));
  controllers.register({
    name: "console-session-key-cleanup",
    start: () => keySessionCleanup.start(),
    stop: () => keySessionCleanup.stop(),
  });
}

/** The API server's registries, authorization, health and features (the rest is the serving state). */
function apiServerParts(
  config: ServerConfig,
  { backend, ops, storage }: ServerStorage,
  { registry, core, admission, access, audit, consoleSessions }: Access,
  { gcQueueDepth, log }: { gcQueueDepth: () => number; log: Logger },
) {
  return {
    registry,
    core,
    reviews: new Registry(storage, reviewKinds({ authorizer: access.authorizer, registry }), admission),
    authorizer: access.authorizer,
    access,
    storageHealth: storageCheck(storage, backend.kind === "etcd"),
    bookmarkIntervalMs: config.bookmarkIntervalMs ?? 30_000,
    freshnessWaitMs: config.freshnessWaitMs,
    logger: log,
    observers: ops,
    // Installed in this order (server-features.ts): each one's hooks, then each one's routes.
    features: [
      ops.feature({ storage, gcQueueDepth }),
      ...(audit ? [auditFeature(audit)] : []),
      consoleFeature({
        sessions: consoleSessions,
        authenticateKey: (request, accessKey) => access.authenticateKey(request, accessKey),
        ssoConfigured: () => config.oidc !== undefined,
      }),
      backupFeature(storage.inner),
    ],
  };
}
