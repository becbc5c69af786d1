import { type KubeObject, specOf, statusOf } from "../../api/object.js";
import {
  type ClusterConnectionError,
  classifyError,
  clusterCannotBeUsed,
  clusterClient,
} from "../../clusters/cluster-connection.js";
import { isUnreachable } from "../../clusters/cluster-objects.js";
import type { EndpointPolicy } from "../../clusters/endpoint-policy.js";
import { ClusterObjectClient } from "../../clusters/object-client.js";
import {
  SPACE_FINALIZER,
  type SpaceInstanceSpec,
  type SpaceInstanceStatus,
  spaceNamespaceOf,
} from "../../kinds/space-instance/space-instance.js";
import type { Registry } from "../../registry/registry.js";
import type { SharedInformers } from "../../registry/shared-informers.js";
import { clusterChangeMatters } from "../cluster-changes.js";
import { type ControllerLog, silentLog } from "../controller-log.js";
import { ControllerWiring } from "../controller-wiring.js";
import { removeFinalizer, updateUnlessGone } from "../kept-object-writes.js";
import { WiredController } from "../wired-controller.js";
import { desiredSpace, spaceBody, spaceLabels } from "./desired-space.js";
import { namespaceClaim } from "./namespace-claim.js";
import { nextStatus, type SpaceReport } from "./space-status.js";
import { FIELD_MANAGER, releaseImportedNamespace, removeOwnedNamespace, syncSpace } from "./space-sync.js";

export interface SpaceControllerOptions {
  /**
   * Where the platform may connect (`--allow-local-endpoints`, clusters/endpoint-policy.ts): a
   * cluster whose server it forbids is never called, as the gateway and the health check refuse it.
   */
  endpoints: EndpointPolicy;
  /** How often every space is applied again, repairing drift (default one minute). */
  resyncMs?: number;
  /** How long one call to a cluster may take (default 10 s). */
  timeoutMs?: number;
  /** How soon a namespace being deleted on its cluster is looked at again (default 1 s). */
  namespacePollMs?: number;
  /** Spaces synced at once at most (default 4). */
  concurrency?: number;
}

/**
 * Keeps every SpaceInstance's namespace on its cluster (docs/spaces.md), one space per queue key
 * (`namespace/name`): on start, when the space changes (spec, or its delete), when its template
 * changes, when its cluster's spec changes or it comes back online, and every `resyncMs`, which
 * repairs what was changed or deleted by hand. A space being deleted keeps its finalizer until
 * its namespace is gone from the cluster. An unreachable cluster is retried with the work
 * queue's backoff. Runs on the elected replica only (start()/stop()).
 */
export class SpaceController extends WiredController {
  private readonly timeoutMs: number;
  private readonly namespacePollMs: number;
  protected readonly wiring: ControllerWiring;
  private readonly endpoints: EndpointPolicy;

  constructor(
    private readonly registry: Registry,
    private readonly informers: SharedInformers,
    options: SpaceControllerOptions,
    log: ControllerLog = silentLog,
  ) {
    super();
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.endpoints = options.endpoints;
    this.namespacePollMs = options.namespacePollMs ?? 1_000;
    const spaces = informers.for("spaceinstances");
    const templates = informers.for("spacetemplates");
    const clusters = informers.for("clusters");
    this.wiring = new ControllerWiring({
      controller: "spaces",
      concurrency: Math.max(1, options.concurrency ?? 4),
      resyncMs: options.resyncMs ?? 60_000,
      log,
      process: (key) => this.reconcile(key),
      // The projects: by them a moved space knows its namespace (namespace-claim.ts).
      informers: [spaces, templates, clusters, informers.for("projects")],
      keys: () => spaces.names(),
      subscribe: (queue) => {
        const queueWhere = (match: (space: KubeObject) => boolean) => {
          for (const s of spaces.list()) if (match(s)) queue.add(keyOf(s));
        };
        return [
          spaces.onChange((e) => {
            if (e.type !== "upsert") return;
            const { object: now, old } = e;
            // Spec changes bump generation; a delete sets deletionTimestamp; status writes do neither.
            const changed =
              !old ||
              old.metadata.generation !== now.metadata.generation ||
              old.metadata.deletionTimestamp !== now.metadata.deletionTimestamp;
            if (changed) queue.add(keyOf(now));
          }),
          templates.onChange((e) => {
            const name = e.object.metadata.name;
            queueWhere((s) => specOf<SpaceInstanceSpec>(s).templateRef?.name === name);
          }),
          clusters.onChange((e) => {
            if (!clusterChangeMatters(e)) return;
            const name = e.object.metadata.name;
            queueWhere((s) => specOf<SpaceInstanceSpec>(s).clusterRef?.cluster === name);
          }),
        ];
      },
    });
  }

  private async reconcile(key: string): Promise<void> {
    const [namespace = "", name = ""] = key.split("/");
    const space = await this.registry.store("spaceinstances").read(namespace, name);
    if (!space) return;
    if (space.metadata.deletionTimestamp) return this.finalize(key, space);
    const clusterName = specOf<SpaceInstanceSpec>(space).clusterRef?.cluster ?? "";
    const cluster = await this.registry.store("clusters").read(undefined, clusterName);
    if (!cluster) {
      // Queued again when a cluster of that name is created.
      const message = `cluster "${clusterName}" does not exist on the platform`;
      return this.report(space, { phase: "Failed", reason: "ClusterNotFound", message });
    }
    const templateName = specOf<SpaceInstanceSpec>(space).templateRef?.name;
    const template = templateName ? this.informers.for("spacetemplates").get(undefined, templateName) : undefined;
    const body = spaceBody(space, template);
    if ("reason" in body) return this.report(space, { phase: "Failed", ...body });
    const desired = desiredSpace(space, body);
    const previous = statusOf<SpaceInstanceStatus>(space).objects ?? [];
    let result: Awaited<ReturnType<typeof syncSpace>>;
    const where = clusterNamed(clusterName);
    try {
      const api = await this.clusterApi(cluster);
      result = await syncSpace(api, where, space, this.claimOf(space), desired, previous, this.timeoutMs);
    } catch (err) {
      const e = classifyError(err, where);
      // A config secret missing or invalid waits for its fix (a spec change) or the next resync.
      result = { phase: isUnreachable(e) ? "Pending" : "Failed", reason: e.reason, message: "", objects: [] };
      result.message = clusterCannotBeUsed(clusterName, e.reason);
      if (isUnreachable(e)) result.unreachable = e;
    }
    const { unreachable, waiting, ...report } = result;
    // While the cluster cannot be asked, the objects last seen stay in status.
    await this.report(
      space,
      unreachable
        ? { ...report, message: clusterCannotBeUsed(clusterName, unreachable.reason), objects: undefined }
        : report,
    );
    // Thrown after the status shows it: the queue retries the space with backoff.
    if (unreachable) throw unreachable;
    if (waiting) this.wiring.addAfter(key, this.namespacePollMs);
  }

  /** A space being deleted: its namespace goes from the cluster first, then its finalizer. */
  private async finalize(key: string, space: KubeObject): Promise<void> {
    if (!(space.metadata.finalizers ?? []).includes(SPACE_FINALIZER)) return;
    const namespace = spaceNamespaceOf(space);
    const clusterName = specOf<SpaceInstanceSpec>(space).clusterRef?.cluster ?? "";
    const cluster = await this.registry.store("clusters").read(undefined, clusterName);
    if (!cluster) {
      return this.report(space, {
        phase: "Deleting",
        reason: "ClusterNotFound",
        message: `cluster "${clusterName}" does not exist on the platform, so namespace "${namespace}" cannot be removed; remove the finalizer ${SPACE_FINALIZER} to drop this record alone (docs/spaces.md)`,
      });
    }
    let outcome: { gone: boolean; error?: ClusterConnectionError };
    const where = clusterNamed(clusterName);
    try {
      const api = await this.clusterApi(cluster);
      const claim = this.claimOf(space);
      // An imported namespace was there before the space and stays after it.
      outcome = statusOf<SpaceInstanceStatus>(space).imported
        ? await releaseImportedNamespace(api, where, space, claim, namespace, this.timeoutMs)
        : await removeOwnedNamespace(api, where, namespace, this.timeoutMs, claim);
    } catch (err) {
      outcome = { gone: false, error: classifyError(err, where) };
    }
    if (outcome.gone) return this.dropFinalizer(space);
    const e = outcome.error;
    await this.report(space, {
      phase: "Deleting",
      reason: e ? e.reason : "NamespaceTerminating",
      message: e
        ? clusterCannotBeUsed(clusterName, e.reason)
        : `waiting for namespace "${namespace}" to be deleted on the cluster`,
    });
    if (e) throw e; // retried with backoff
    this.wiring.addAfter(key, this.namespacePollMs);
  }

  /** Which namespace the space holds (namespace-claim.ts), judged against the other spaces. */
  private claimOf(space: KubeObject) {
    const spaces = this.informers.for("spaceinstances");
    const projects = this.informers.for("projects");
    return namespaceClaim(
      space,
      spaceLabels(space),
      () => spaces.list(),
      (project) => projects.get(undefined, project)?.metadata.uid,
    );
  }

  /** A client for the space's cluster. */
  private async clusterApi(cluster: KubeObject) {
    const client = await clusterClient(this.registry, cluster, this.endpoints);
    return ClusterObjectClient.for(client.kubeConfig);
  }

  private async dropFinalizer(space: KubeObject): Promise<void> {
    if (!this.wiring.running) return;
    await updateUnlessGone(
      this.registry.store("spaceinstances"),
      space,
      { subresource: "", fieldManager: FIELD_MANAGER },
      removeFinalizer(SPACE_FINALIZER),
    );
  }

  private async report(space: KubeObject, report: SpaceReport): Promise<void> {
    if (!this.wiring.running) return;
    await updateUnlessGone(
      this.registry.store("spaceinstances"),
      space,
      { subresource: "status", fieldManager: FIELD_MANAGER },
      (obj) => {
        const next = nextStatus(obj, report, new Date());
        if (!next) return undefined;
        obj.status = next;
        return obj;
      },
    );
  }
}

/**
 * How messages name the space's cluster: by its name on the platform, never its address (a
 * space's reader may not read its Cluster).
 */
function clusterNamed(cluster: string): string {
  return JSON.stringify(cluster);
}

function keyOf(space: KubeObject): string {
  return `${space.metadata.namespace}/${space.metadata.name}`;
}
