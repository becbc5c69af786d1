import { resolve } from "node:path";
import { setFlagsFromString } from "node:v8";
import { auditFeature } from "../audit/audit-hooks.js";
import { AuditLog } from "../audit/audit-log.js";
import { accessWriteBarrier } from "../auth/access-write-barrier.js";
import { bootstrapAdmin, writeAdminKubeconfig } from "../auth/bootstrap.js";
import { IdentityIndex } from "../auth/identity-index.js";
import { AccessControl } from "../authz/access-control.js";
import { reviewKinds } from "../authz/reviews/index.js";
import { backupFeature } from "../backup/backup-route.js";
import { consoleFeature } from "../console/console-routes.js";
import { KeySessionCleanup } from "../console/key-session-cleanup.js";
import { ConsoleSessions } from "../console/sessions.js";
import { createPlatformEvents } from "../events/platform-events.js";
import { countInformerRelist, registerInformerSource } from "../metrics/informer-metrics.js";
import { Registry } from "../registry/registry.js";
import { SharedInformers } from "../registry/shared-informers.js";
import { StoredBytesPrecheck } from "../registry/stored-bytes-precheck.js";
import { accessKeySubresources } from "../server/access-key-subresources.js";
import { storageCheck } from "../server/health.js";
import { InFlightRequests } from "../server/in-flight-requests.js";
import { createLogger } from "../server/request-log.js";
import type { SubresourceHandler } from "../server/resource-handler.js";
import { createApiServer, listen } from "../server/server.js";
import { TrustedProxies } from "../server/trusted-proxies.js";
import { WatchStreams } from "../server/watch-stream.js";
import { registerVirtualClusterActions } from "../virtualclusters/actions.js";
import { VirtualClusterCaStore } from "../virtualclusters/ca-store.js";
import { ensureDefaultTemplate } from "../virtualclusters/default-template.js";
import { DEFAULT_SHUTDOWN_GRACE_SECONDS, type RunningServer, type ServerConfig } from "./config.js";
import { assembleControllers } from "./controllers-assembly.js";
import { startGateway } from "./gateway-wiring.js";
import { tuneGarbageCollector } from "./gc-tuning.js";
import { reportInformerOutage } from "./informer-outage-report.js";
import { loadKeys } from "./keys.js";
import { assembleRegistry } from "./registry-assembly.js";
import { wireSso } from "./sso-wiring.js";
import { openServerStorage } from "./storage-assembly.js";
import { reportUndecodable } from "./undecodable-report.js";

export type { RunningServer, ServerConfig } from "./config.js";

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
  const log = createLogger(config.logLevel ?? "warn");
  const { backend, ops, storage } = await openServerStorage(config, dataDir, log);

  // The registry's admission and the authorizer need each other's parts: they meet through
  // forwarding calls, made only once requests run (registry-assembly.ts).
  const { registry, core, admission } = assembleRegistry(
    config,
    storage,
    { cipher, signer },
    () => access.authorizer,
    () => identity,
    () => cas,
  );
  const cas = new VirtualClusterCaStore(registry, cipher);
  // Each cache's stored bytes checked in the background once filled, before any cache fills
  // (informers list below): the first LIST after a start finds them checked.
  const storedBytesPrecheck = new StoredBytesPrecheck([...registry.stores(), ...core.stores()]);
  storage.whenFilled(storedBytesPrecheck.filled);
  // One informer per kind on this replica, shared by every consumer (src/registry/shared-informers.ts).
  const informers = new SharedInformers(registry, reportUndecodable(log), {
    onOutage: reportInformerOutage(log),
    onRelistAttempt: countInformerRelist,
  });
  const unregisterInformerMetrics = registerInformerSource(informers);
  const identity = new IdentityIndex(informers.for("ownedaccesskeys"), informers.for("users"), informers.for("teams"));
  const warn = (what: string) => (err: unknown) => log.error({ err }, `${what} failed`);
  const consoleSessions = new ConsoleSessions(registry, cipher, warn("console sessions"));
  const audit = config.auditLog ? new AuditLog(config.auditLog, config) : undefined;
  const access = new AccessControl(registry, informers, identity, signer, config, log, consoleSessions, audit);
  // Read-your-writes for access decisions on this replica, whatever the store (src/auth/access-write-barrier.ts).
  storage.holdWrites(accessWriteBarrier({ registry, informers, identity, log }));
  const adminKey = await bootstrapAdmin(registry, dataDir, config.bootstrapKey ?? process.env.PLATFORM_BOOTSTRAP_KEY);
  await ensureDefaultTemplate(registry);
  await identity.start();
  await access.start();
  await consoleSessions.watch();

  const events = createPlatformEvents(core.store("events"), informers, warn("recording an event"), config.events);
  const { controllers, garbageCollector } = assembleControllers({
    config,
    elector: backend.elector,
    registry,
    informers,
    identity,
    cas,
    events,
    log,
  });

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

  const subresources = new Map<string, SubresourceHandler>(accessKeySubresources(registry, identity));
  registerVirtualClusterActions(subresources, { registry, cas, events: events.recorder });
  const watchStreams = new WatchStreams();
  const gateway = await startGateway(
    registry,
    informers,
    access,
    audit,
    cas,
    trustedProxies,
    config.allowLocalEndpoints === true,
    log,
  );
  // From the stop signal on, /readyz fails; `closing` once the drain begins (after --shutdown-delay).
  let stopRequested = false;
  let closing = false;
  const inFlight = new InFlightRequests();
  const app = createApiServer({
    tls,
    registry,
    core,
    reviews: new Registry(storage, reviewKinds({ authorizer: access.authorizer, registry }), admission),
    authorizer: access.authorizer,
    access,
    subresources,
    jwks: () => signer.jwks(),
    storageHealth: storageCheck(storage, backend.kind === "etcd"),
    bookmarkIntervalMs: config.bookmarkIntervalMs ?? 30_000,
    freshnessWaitMs: config.freshnessWaitMs,
    watchStreams,
    beforeRouting: gateway,
    logger: log,
    closing: () => closing,
    unready: () => stopRequested,
    inFlight,
    observers: ops,
    // Installed in this order (server-features.ts): each one's hooks, then each one's routes.
    features: [
      ops.feature({ storage, gcQueueDepth: () => garbageCollector.queueDepth }),
      ...(audit ? [auditFeature(audit)] : []),
      consoleFeature({
        sessions: consoleSessions,
        authenticateKey: (request, accessKey) => access.authenticateKey(request, accessKey),
        ssoConfigured: () => config.oidc !== undefined,
      }),
      backupFeature(storage.inner),
    ],
    trustedProxies,
  });
  let serverUrl = "";
  const sso = wireSso(app, config, controllers, consoleSessions, {
    registry,
    cipher,
    baseUrl: () => serverUrl,
    authenticate: (request) => access.authenticate(request),
    onError: warn("SSO key refresh"),
  });
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
    storedBytesPrecheck,
    controllers,
    sso,
    gateway,
    events,
    app,
    close(hooks) {
      stopRequested = true;
      closed ??= (async () => {
        // Serving as usual, /readyz failing, while load balancers notice (--shutdown-delay).
        const delaySeconds = config.shutdownDelaySeconds ?? 0;
        if (delaySeconds > 0) await new Promise((resolve) => setTimeout(resolve, delaySeconds * 1000));
        closing = true;
        hooks?.draining?.();
        // Requests in flight finish (within the grace period) before anything they use stops;
        // watches and forwarded streams end at once (their clients reconnect elsewhere).
        const graceSeconds = config.shutdownGracePeriodSeconds ?? DEFAULT_SHUTDOWN_GRACE_SECONDS;
        const [, cut] = await Promise.all([
          controllers.stop(),
          inFlight.drain(app.server, graceSeconds * 1000, () => {
            watchStreams.closeAll();
            gateway.endStreams();
          }),
        ]);
        gateway.stop();
        if (cut > 0) log.warn({ requests: cut }, `requests still in flight after ${graceSeconds} s were cut off`);
        await app.close();
        await ops.close();
        consoleSessions.stop();
        await audit?.close();
        informers.stop();
        unregisterInformerMetrics();
        await storage.close();
      })();
      return closed;
    },
  };
}
