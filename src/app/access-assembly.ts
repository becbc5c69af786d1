import type { Logger } from "pino";
import { AuditLog } from "../audit/audit-log.js";
import { accessWriteBarrier } from "../auth/access-write-barrier.js";
import { bootstrapAdmin } from "../auth/bootstrap.js";
import { IdentityIndex } from "../auth/identity-index.js";
import { AccessControl } from "../authz/access-control.js";
import { ConsoleSessions } from "../console/sessions.js";
import { countInformerRelist, registerInformerSource } from "../metrics/informer-metrics.js";
import { SharedInformers } from "../registry/shared-informers.js";
import { StoredBytesPrecheck } from "../registry/stored-bytes-precheck.js";
import type { CachedStorage } from "../storage/cache/cached-storage.js";
import { VirtualClusterCaStore } from "../virtualclusters/ca-store.js";
import { ensureDefaultTemplate } from "../virtualclusters/default-template.js";
import type { ServerConfig } from "./config.js";
import { reportInformerOutage } from "./informer-outage-report.js";
import type { loadKeys } from "./keys.js";
import { assembleRegistry } from "./registry-assembly.js";
import { reportUndecodable } from "./undecodable-report.js";

type Keys = Awaited<ReturnType<typeof loadKeys>>;

/**
 * The registry and who may use it: the kinds (registry-assembly.ts), the virtual clusters' kept
 * CAs, the informers shared per kind, the identity index, the console's sessions, the audit log
 * and the authorizer, each started and watching before this returns; and what a store starts
 * with: the admin's key and the default virtual cluster template, made when missing.
 */
export async function assembleAccess(
  config: ServerConfig,
  dataDir: string,
  storage: CachedStorage,
  keys: Pick<Keys, "cipher" | "signer">,
  log: Logger,
) {
  // The registry's admission and the authorizer need each other's parts: they meet through
  // forwarding calls, made only once requests run (registry-assembly.ts).
  const { registry, core, admission } = assembleRegistry(
    config,
    storage,
    keys,
    () => access.authorizer,
    () => identity,
    () => cas,
  );
  const cas = new VirtualClusterCaStore(registry, keys.cipher);
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
  const consoleSessions = new ConsoleSessions(registry, keys.cipher, (err) =>
    log.error({ err }, "console sessions failed"),
  );
  const audit = config.auditLog ? new AuditLog(config.auditLog, config) : undefined;
  const access = new AccessControl(registry, informers, identity, keys.signer, config, log, consoleSessions, audit);
  // Read-your-writes for access decisions on this replica, whatever the store (src/auth/access-write-barrier.ts).
  storage.holdWrites(accessWriteBarrier({ registry, informers, identity, log }));
  const adminKey = await bootstrapAdmin(registry, dataDir, config.bootstrapKey ?? process.env.PLATFORM_BOOTSTRAP_KEY);
  await ensureDefaultTemplate(registry);
  await identity.start();
  await access.start();
  await consoleSessions.watch();
  return {
    registry,
    core,
    admission,
    cas,
    storedBytesPrecheck,
    informers,
    unregisterInformerMetrics,
    identity,
    consoleSessions,
    audit,
    access,
    adminKey,
  };
}
