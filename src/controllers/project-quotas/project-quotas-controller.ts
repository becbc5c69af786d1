import { isDeepStrictEqual } from "node:util";
import { type KubeObject, statusOf } from "../../api/object.js";
import { projectNamespace, projectOfNamespace } from "../../kinds/project/project.js";
import {
  PROJECT_QUOTA_GUARDS,
  type ProjectQuotasStatus,
  QUOTA_RESOURCES,
  quotaStatus,
  quotasOf,
} from "../../kinds/project/project-quotas.js";
import type { Registry } from "../../registry/registry.js";
import type { SharedInformers } from "../../registry/shared-informers.js";
import { type ControllerLog, silentLog } from "../controller-log.js";
import { ControllerWiring } from "../controller-wiring.js";
import { updateUnlessGone } from "../kept-object-writes.js";
import { WiredController } from "../wired-controller.js";

/**
 * Keeps Project status.quotas current (docs/spaces.md#quotas): used and limit of each quota of
 * spec.quotas, for the project and for each user and team owning an instance in it. The queue's
 * keys are project names: a project's change queues it, an instance's change (created, deleted,
 * moved, its owner or phase changed) queues the project of its namespace. Counted from the shared
 * informers; the status only reports, admission enforces the quotas from storage
 * (src/admission/project-quotas.ts). A write happens only where the answer changed.
 *
 * It also removes a deleted project's quota guard key (write-guards.ts), which admission writes
 * with the project's instances and which no API serves: when the project is gone from storage,
 * at start for every guard whose project is gone (deleted while no replica was leading), and
 * again when an instance write that was in flight during the delete wrote it back (that write
 * queues the project like any instance change).
 */
export class ProjectQuotasController extends WiredController {
  protected readonly wiring: ControllerWiring;

  constructor(
    private readonly registry: Registry,
    private readonly informers: SharedInformers,
    log: ControllerLog = silentLog,
  ) {
    super();
    const projects = informers.for("projects");
    this.wiring = new ControllerWiring({
      controller: "project-quotas",
      log,
      process: (name) => this.reconcile(name),
      informers: [projects, ...QUOTA_RESOURCES.map((r) => informers.for(r))],
      subscribe: (queue) => [
        projects.onChange((e) => queue.add(e.object.metadata.name ?? "")),
        ...QUOTA_RESOURCES.map((resource) =>
          informers.for(resource).onChange((e) => {
            for (const obj of [e.old, e.object]) {
              const project = projectOfNamespace(obj?.metadata.namespace);
              if (project) queue.add(project);
            }
          }),
        ),
      ],
      keys: async () => {
        const names = projects.list().map((project) => project.metadata.name ?? "");
        // Guards of projects deleted while no replica ran this controller.
        for (const { id } of await this.guards.list()) if (!projects.get(undefined, id)) names.push(id);
        return names;
      },
    });
  }

  /** The quota guard keys, one per project (src/admission/project-quotas.ts). */
  private get guards() {
    return this.registry.keptKeys(PROJECT_QUOTA_GUARDS);
  }

  /** Removes the guard of a project that is gone from storage (the informer may lag a create of the same name). */
  private async removeGuardOfDeleted(name: string): Promise<void> {
    if (await this.registry.store("projects").read(undefined, name)) return;
    await this.guards.remove(name);
  }

  /** What status.quotas should say for `project` now; undefined when it sets no quotas. */
  private wanted(project: KubeObject): ProjectQuotasStatus | undefined {
    const quotas = quotasOf(project);
    if (!quotas) return undefined;
    const namespace = projectNamespace(project.metadata.name ?? "");
    const instances = new Map(
      QUOTA_RESOURCES.map((r) => [
        r,
        this.informers
          .for(r)
          .list()
          .filter((o) => o.metadata.namespace === namespace),
      ]),
    );
    return quotaStatus(quotas, instances);
  }

  private async reconcile(name: string): Promise<void> {
    const project = this.informers.for("projects").get(undefined, name);
    if (!project) return this.removeGuardOfDeleted(name);
    const want = this.wanted(project);
    if (isDeepStrictEqual(statusOf<{ quotas?: ProjectQuotasStatus }>(project).quotas, want)) return;
    // Deleted meanwhile: nothing left to keep current.
    await updateUnlessGone(
      this.registry.store("projects"),
      project,
      { subresource: "status", fieldManager: "platform-project-quotas" },
      (obj) => {
        const current = this.wanted(obj);
        const status = { ...statusOf<{ quotas?: ProjectQuotasStatus }>(obj) };
        if (isDeepStrictEqual(status.quotas, current)) return undefined;
        if (current) status.quotas = current;
        else delete status.quotas;
        obj.status = status;
        return obj;
      },
    );
  }
}
