import { type KubeObject, specOf, statusOf } from "../../api/object.js";
import type { IdentityIndex } from "../../auth/identity-index.js";
import type { PlatformAuthorizer } from "../../authz/authorizer.js";
import { classifyError, clusterClient } from "../../clusters/cluster-connection.js";
import type { EndpointPolicy } from "../../clusters/endpoint-policy.js";
import { ClusterObjectClient } from "../../clusters/object-client.js";
import type { EventRecorder } from "../../events/event-recorder.js";
import type { ProjectSecretSpec } from "../../kinds/project-secret/project-secret.js";
import {
  type SpaceInstanceSpec,
  type SpaceInstanceStatus,
  spaceNamespaceOf,
} from "../../kinds/space-instance/space-instance.js";
import type { InformerEvent } from "../../registry/informer.js";
import type { Registry } from "../../registry/registry.js";
import type { SharedInformers } from "../../registry/shared-informers.js";
import { type ControllerLog, silentLog } from "../controller-log.js";
import { ControllerWiring } from "../controller-wiring.js";
import { WiredController } from "../wired-controller.js";
import { keyOf, splitKey } from "./queue-keys.js";
import { setterIdentity } from "./setter-identity.js";
import { type SpaceEntry, writeSpaceEntries } from "./space-entries.js";
import { fillFailureMessage, SpaceFillReports } from "./space-fill-reports.js";
import { type FillOutcome, fillSpaceSecrets, type WantedData } from "./space-secret-fill.js";

export interface SpaceFillOptions {
  /**
   * Where the platform may connect (`--allow-local-endpoints`, clusters/endpoint-policy.ts): a
   * cluster whose server it forbids is never called, as the gateway and the health check refuse it.
   */
  endpoints: EndpointPolicy;
  /** How often every space is filled again, repairing drift and filling Secrets labelled since (default one minute). */
  resyncMs?: number;
  /** How long one call to a cluster may take (default 10 s). */
  timeoutMs?: number;
  /** Where a space that cannot be filled, and is again, is reported (space-fill-reports.ts). */
  events?: EventRecorder;
}

/**
 * How the fill's messages name the cluster: by its name, never its address, as the spaces' do
 * (docs/spaces.md): they reach the project secrets' and the space's readers, who may not read the
 * Cluster.
 */
function nameOfCluster(cluster: string): string {
  return JSON.stringify(cluster);
}

/**
 * Fills the labelled Secrets inside each Ready space with its project's secrets
 * (docs/project-secrets.md), one space per queue key (`p-<project>/<space>`): when the space
 * changes, when a project secret of its project changes or goes, and every `resyncMs`. A space
 * is filled only while its owner may read the project secret's data; what happened is written to
 * each project secret's `status.spaces`. An unreachable cluster is retried with the work queue's
 * backoff. Runs on the elected replica only.
 */
export class ProjectSecretSpaceFillController extends WiredController {
  private readonly timeoutMs: number;
  protected readonly wiring: ControllerWiring;
  private readonly reports: SpaceFillReports;
  private readonly endpoints: EndpointPolicy;

  constructor(
    private readonly registry: Registry,
    private readonly informers: SharedInformers,
    private readonly identity: Pick<IdentityIndex, "user" | "team" | "teamsOfUser">,
    private readonly authorizer: Pick<PlatformAuthorizer, "canReadSecretData">,
    options: SpaceFillOptions,
    log: ControllerLog = silentLog,
  ) {
    super();
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.endpoints = options.endpoints;
    this.reports = new SpaceFillReports(options.events);
    const spaces = informers.for("spaceinstances");
    const secrets = informers.for("projectsecrets");
    this.wiring = new ControllerWiring({
      controller: "project-secret-spaces",
      concurrency: 4,
      resyncMs: options.resyncMs ?? 60_000,
      log,
      process: (key) => this.reconcile(key),
      informers: [spaces, secrets],
      keys: () => spaces.names(),
      subscribe: (queue) => [
        spaces.onChange((e: InformerEvent) => {
          const phase = (o?: KubeObject) => statusOf<SpaceInstanceStatus>(o).phase;
          const changed =
            phase(e.old) !== phase(e.object) || e.old?.metadata.generation !== e.object.metadata.generation;
          if (e.type !== "upsert" || changed) queue.add(keyOf(e.object));
        }),
        secrets.onChange((e: InformerEvent) => {
          // Its own status writes change neither spec nor existence.
          if (e.type === "upsert" && e.old?.metadata.generation === e.object.metadata.generation) return;
          for (const space of spaces.list()) {
            if (space.metadata.namespace === e.object.metadata.namespace) queue.add(keyOf(space));
          }
        }),
      ],
    });
  }

  private async reconcile(key: string): Promise<void> {
    const [namespace, name] = splitKey(key);
    const space = await this.registry.store("spaceinstances").read(namespace, name);
    const cluster = specOf<SpaceInstanceSpec>(space).clusterRef?.cluster ?? "";
    const target = space ? spaceNamespaceOf(space) : "";
    const entry = (secrets: string[], problem?: { reason: string; message: string }): SpaceEntry => ({
      space: name,
      cluster,
      namespace: target,
      secrets,
      synced: !problem,
      ...problem,
    });
    const secrets = await this.projectSecrets(namespace);
    // Not (or no longer) a space to fill: its entries go.
    if (!space || space.metadata.deletionTimestamp || statusOf<SpaceInstanceStatus>(space).phase !== "Ready") {
      this.reports.forget(key);
      return writeSpaceEntries(this.registry, namespace, name, secrets.keys(), new Map());
    }
    const readable = this.ownerReads(space);
    const failAll = (reason: string, message: string) =>
      new Map([...secrets.keys()].map((ps) => [ps, entry([], { reason, message })]));
    const clusterObj = await this.registry.store("clusters").read(undefined, cluster);
    if (!clusterObj) {
      // Tried again at the next resync; a space on a missing cluster is the space's own problem to report.
      const missing = failAll("ClusterNotFound", `cluster ${JSON.stringify(cluster)} does not exist`);
      return writeSpaceEntries(this.registry, namespace, name, secrets.keys(), missing, true);
    }
    let outcome: FillOutcome;
    try {
      outcome = await this.fill(clusterObj, target, (psName) => {
        const ps = secrets.get(psName);
        return ps && readable(ps) ? (specOf<ProjectSecretSpec>(ps).data ?? {}) : undefined;
      });
    } catch (err) {
      const e = classifyError(err, nameOfCluster(cluster));
      const message = fillFailureMessage(cluster, e);
      // Those that had Secrets filled there learn the space failed; the space's readers, once.
      if (this.wiring.running) {
        await writeSpaceEntries(this.registry, namespace, name, secrets.keys(), failAll(e.reason, message), true);
        this.reports.failed(space, target, message);
      }
      // Retried with backoff; logged once while it fails the same way (controller-log.ts).
      throw e;
    }
    this.reports.filled(space, target);
    const entries = new Map<string, SpaceEntry>();
    for (const [ps, problem] of outcome.failed) entries.set(ps, entry(outcome.filled.get(ps) ?? [], problem));
    for (const [ps, filled] of outcome.filled) if (!entries.has(ps)) entries.set(ps, entry(filled));
    for (const ps of outcome.emptied.keys()) {
      // A labelled Secret naming no project secret of the project reports nowhere.
      if (!secrets.has(ps)) continue;
      const message = "the space's owner may not read this project secret's data: its keys were removed there";
      entries.set(ps, entry([], { reason: "OwnerForbidden", message }));
    }
    if (this.wiring.running) await writeSpaceEntries(this.registry, namespace, name, secrets.keys(), entries);
  }

  /** Fills the labelled Secrets of `target` on the cluster (space-secret-fill.ts). */
  private async fill(cluster: KubeObject, target: string, wanted: WantedData): Promise<FillOutcome> {
    const client = await clusterClient(this.registry, cluster, this.endpoints);
    const api = ClusterObjectClient.for(client.kubeConfig);
    return fillSpaceSecrets(api, nameOfCluster(cluster.metadata.name ?? ""), target, wanted, this.timeoutMs);
  }

  /** The project's secrets by name, with their data (the store decrypts it). */
  private async projectSecrets(namespace: string): Promise<Map<string, KubeObject>> {
    const store = this.registry.store("projectsecrets");
    const found = new Map<string, KubeObject>();
    for (const ps of this.informers.for("projectsecrets").list()) {
      if (ps.metadata.namespace !== namespace || !ps.metadata.name) continue;
      const read = await store.read(namespace, ps.metadata.name);
      if (read && !read.metadata.deletionTimestamp) found.set(ps.metadata.name, read);
    }
    return found;
  }

  /** Whether the space's owner (a user or team) may read a project secret's data. */
  private ownerReads(space: KubeObject): (ps: KubeObject) => boolean {
    const owner = specOf<SpaceInstanceSpec>(space).owner;
    const setter = owner?.user
      ? ({ kind: "User", name: owner.user } as const)
      : owner?.team
        ? ({ kind: "Team", name: owner.team } as const)
        : undefined;
    const user = setter && setterIdentity(this.identity, setter);
    return (ps) => !!user && this.authorizer.canReadSecretData(user, ps, "projectsecrets");
  }
}
