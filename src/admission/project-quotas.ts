import { errors } from "../api/errors.js";
import { GROUP, type KubeObject, specOf } from "../api/object.js";
import type { Owner } from "../api/schema/common.js";
import { projectOfNamespace } from "../kinds/project/project.js";
import {
  countUsed,
  type ProjectQuotas,
  QUOTA_RESOURCES,
  type QuotaLimits,
  quotasCounting,
  quotasOf,
} from "../kinds/project/project-quotas.js";
import type { AdmissionAttributes, AdmissionPlugin } from "../registry/admission.js";
import type { KeptKeys } from "../registry/kept-keys.js";
import type { ProjectLookup } from "./project-instances.js";
import { platformPlural } from "./resource-match.js";

/** What the quota check reads: the instances as stored, and the guard key of each project. */
export interface QuotaSource {
  /** Every instance of `resource` in `namespace`, and the storage revision the list was read at. */
  listInstances(resource: string, namespace: string): Promise<{ items: KubeObject[]; revision: number }>;
  /** The key space of the guards, one entry per project (its value says nothing; its revision is the lock). */
  guards(): Pick<KeptKeys, "get" | "createOp" | "updateOp">;
}

/**
 * How often the count is taken again when a create committed between the list and the guard's
 * read (each retry follows someone else's progress; the bound keeps a request from chasing a
 * long burst forever).
 */
const COUNT_ATTEMPTS = 20;

/**
 * `Project.spec.quotas` (docs/spaces.md#quotas): a create of a SpaceInstance or
 * VirtualClusterInstance in `p-<project>` (also an import or a move into it, which create
 * through the same pipeline) is refused with 403 when it would exceed a quota of the project or
 * of the instance's owner.
 *
 * The count is derived from the stored instances each time, never kept: a delete frees its slot
 * at once and a crash leaks none. What makes two racing creates count right is the project's
 * guard key: the check reads the guard after the list (and counts again if a create committed
 * in between), then adds a write of the guard at the revision it read to the create's own
 * transaction (registry/write-guards.ts). Of two creates that counted the same instances, only
 * the first commits; the second is admitted again on the new count (Store.create), so on the
 * last slot one wins and the other gets the 403. This holds across replicas: the guard is a
 * compare-and-swap in storage, not a lock in memory.
 */
export class ProjectQuotasAdmission implements AdmissionPlugin {
  readonly name = "ProjectQuotas";

  constructor(
    private readonly projects: ProjectLookup,
    private readonly source: QuotaSource,
  ) {}

  async validate(attrs: AdmissionAttributes): Promise<void> {
    const target = await this.quotaTarget(attrs);
    if (!target) return;
    const { resource, projectName, quotas } = target;
    const namespace = attrs.object.metadata.namespace!;
    const counted = quotasCounting(resource, attrs.object);
    if (!counted.length) return;
    const guards = this.source.guards();
    for (let attempt = 0; attempt < COUNT_ATTEMPTS; attempt++) {
      const listed = await this.source.listInstances(resource, namespace);
      const guard = await guards.get(projectName);
      // A create committed after the list was read: its instance may be missing from the count.
      if (guard && guard.revision > listed.revision) continue;
      refuseOverQuota(attrs.object, resource, listed.items, quotas, projectName, counted);
      const note = `${resource}/${attrs.object.metadata.name ?? ""}`;
      attrs.guards.push({
        op: guard ? guards.updateOp(projectName, note, guard.revision) : guards.createOp(projectName, note),
      });
      return;
    }
    throw errors.conflict(
      { group: GROUP, resource },
      attrs.object.metadata.name ?? "",
      `other creates in project "${projectName}" kept changing its quota count; try again`,
    );
  }

  /** The project whose quotas a write is checked against; undefined when none applies. */
  private async quotaTarget(attrs: AdmissionAttributes) {
    if (attrs.operation !== "CREATE" || attrs.subresource !== "" || !attrs.resourceType.projectInstance) return;
    const resource = platformPlural(attrs);
    if (!resource || !QUOTA_RESOURCES.includes(resource)) return;
    const projectName = projectOfNamespace(attrs.object.metadata.namespace);
    if (!projectName) return;
    const project = await this.projects(projectName);
    const quotas = project && quotasOf(project);
    return quotas && { resource, projectName, quotas };
  }
}

/** 403 naming the first quota the new instance would exceed: the project's, then its owner's. */
function refuseOverQuota(
  instance: KubeObject,
  resource: string,
  existing: readonly KubeObject[],
  quotas: ProjectQuotas,
  projectName: string,
  counted: readonly (keyof QuotaLimits)[],
): void {
  const owner = specOf<{ owner?: Owner }>(instance).owner;
  const scopes: Array<{ limits: QuotaLimits | undefined; who: string; owner?: Owner }> = [
    { limits: quotas.project, who: "project quota" },
  ];
  if (owner?.user)
    scopes.push({ limits: quotas.user, who: `user quota for "${owner.user}":`, owner: { user: owner.user } });
  else if (owner?.team)
    scopes.push({ limits: quotas.team, who: `team quota for "${owner.team}":`, owner: { team: owner.team } });
  for (const scope of scopes) {
    for (const name of counted) {
      const limit = scope.limits?.[name];
      if (limit === undefined) continue;
      const used = countUsed(resource, existing, name, scope.owner);
      if (used + 1 > limit) {
        throw errors.forbidden(
          { group: GROUP, resource },
          instance.metadata.name ?? "",
          `${scope.who} ${name}=${limit} reached in project "${projectName}" (${used} used)`,
        );
      }
    }
  }
}
