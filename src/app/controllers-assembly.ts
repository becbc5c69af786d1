import type { Logger } from "pino";
import type { IdentityIndex } from "../auth/identity-index.js";
import type { PlatformAuthorizer } from "../authz/authorizer.js";
import { ClusterAccessController } from "../controllers/cluster-access/cluster-access-controller.js";
import { ClusterHealthController } from "../controllers/cluster-health/cluster-health.js";
import { ControllerManager } from "../controllers/controller-manager.js";
import { GarbageCollector } from "../controllers/garbage-collector/garbage-collector.js";
import { NamespaceClaimGuardsController } from "../controllers/namespace-claims/namespace-claim-guards-controller.js";
import { ProjectQuotasController } from "../controllers/project-quotas/project-quotas-controller.js";
import { ProjectSecretSourceController } from "../controllers/project-secrets/source-sync.js";
import { ProjectSecretSpaceFillController } from "../controllers/project-secrets/space-fill-controller.js";
import { SpaceController } from "../controllers/spaces/space-controller.js";
import { UserTeamsController } from "../controllers/user-teams/controller.js";
import { VirtualClusterStatusController } from "../controllers/virtual-cluster-status/virtual-cluster-status-controller.js";
import type { PlatformEvents } from "../events/platform-events.js";
import type { Registry } from "../registry/registry.js";
import type { SharedInformers } from "../registry/shared-informers.js";
import type { LeaderElector } from "../storage/leader-election.js";
import { VirtualClusterAccessController } from "../virtualclusters/access/virtual-cluster-access-controller.js";
import { VirtualClusterCaCleanup } from "../virtualclusters/ca-cleanup.js";
import type { VirtualClusterCaStore } from "../virtualclusters/ca-store.js";
import type { ServerConfig } from "./config.js";

/**
 * The background work of a replica, registered with the controller manager, which runs it on the
 * elected replica only (several may share one etcd). Started by the composition root once the
 * server listens.
 */
export function assembleControllers(deps: {
  config: ServerConfig;
  elector: LeaderElector;
  registry: Registry;
  informers: SharedInformers;
  identity: IdentityIndex;
  authorizer: PlatformAuthorizer;
  cas: VirtualClusterCaStore;
  events: PlatformEvents;
  log: Logger;
}): { controllers: ControllerManager; garbageCollector: GarbageCollector } {
  const { config, registry, informers, events, log } = deps;
  const controllers = new ControllerManager(deps.elector, {
    onError: (controller, err) => log.error({ err, controller }, `controller ${controller} failed to start or stop`),
  });
  // Where every controller may connect: the gateway's policy (clusters/endpoint-policy.ts).
  const endpoints = { allowLocal: config.allowLocalEndpoints === true };
  const garbageCollector = new GarbageCollector(registry, informers, { log, events: events.recorder });
  const clusterHealth = new ClusterHealthController(
    registry,
    informers,
    { intervalMs: config.clusterCheckIntervalMs, events: events.recorder, endpoints },
    log,
  );
  // Grants are applied again at the health check's interval: drift is repaired within one.
  const clusterAccess = new ClusterAccessController(
    registry,
    informers,
    { resyncMs: config.clusterCheckIntervalMs, endpoints },
    log,
  );
  // A setter's lost right is noticed at the same interval.
  const projectSecretSource = new ProjectSecretSourceController(
    registry,
    informers,
    deps.identity,
    deps.authorizer,
    { resyncMs: config.clusterCheckIntervalMs },
    log,
  );
  // Drift inside spaces (a filled Secret changed by hand, one labelled since) is repaired within one interval.
  const projectSecretSpaces = new ProjectSecretSpaceFillController(
    registry,
    informers,
    deps.identity,
    deps.authorizer,
    { resyncMs: config.clusterCheckIntervalMs, events: events.recorder, endpoints },
    log,
  );
  // Spaces too: a quota deleted by hand is back within one check interval.
  const spaces = new SpaceController(registry, informers, { resyncMs: config.clusterCheckIntervalMs, endpoints }, log);
  // Instances are looked at again at the health check's interval too: a change on the cluster
  // shows within one.
  const virtualClusterStatus = new VirtualClusterStatusController(
    registry,
    informers,
    { resyncMs: config.clusterCheckIntervalMs, events: events.recorder, cas: deps.cas, endpoints },
    log,
  );
  // Rights inside virtual clusters too: a binding deleted by hand inside is back within one.
  const virtualClusterAccess = new VirtualClusterAccessController(
    registry,
    informers,
    deps.cas,
    endpoints,
    { resyncMs: config.clusterCheckIntervalMs },
    log,
  );
  for (const [name, c] of [
    ["virtualcluster-ca-cleanup", new VirtualClusterCaCleanup(registry, informers, deps.cas, log)],
    ["user-teams", new UserTeamsController(registry, deps.identity, log)],
    ["garbage-collector", garbageCollector],
    ["cluster-health", clusterHealth],
    ["cluster-access", clusterAccess],
    ["project-secret-source", projectSecretSource],
    ["project-secret-spaces", projectSecretSpaces],
    ["spaces", spaces],
    ["project-quotas", new ProjectQuotasController(registry, informers, log)],
    ["namespace-claims", new NamespaceClaimGuardsController(registry, informers, log)],
    ["virtualcluster-status", virtualClusterStatus],
    ["virtualcluster-access", virtualClusterAccess],
    ["event-cleanup", events.cleanup],
    ["access-key-events", events.accessKeys],
  ] as const) {
    controllers.register({ name, start: () => c.start(), stop: () => c.stop() });
  }
  return { controllers, garbageCollector };
}
