import { errors, fieldError } from "../api/errors.js";
import { GROUP, type KubeObject, specOf } from "../api/object.js";
import type { Owner } from "../api/schema/common.js";
import { projectOfNamespace } from "../kinds/project/project.js";
import {
  countUsed,
  type ProjectQuotas,
  QUOTA_RESOURCES,
  type QuotaLimits,
  type QuotaName,
  quotasOf,
} from "../kinds/project/project-quotas.js";
import type { AdmissionAttributes, AdmissionPlugin } from "../registry/admission.js";
import type { KeptKeys } from "../registry/kept-keys.js";
import type { ProjectLookup } from "./project-instances.js";
import { type QuotaClaim, quotaClaim, removesOwner } from "./quota-claim.js";
import { platformPlural } from "./resource-match.js";

/** What the quota check reads: the instances as stored, and the guard key of each project. */
export interface QuotaSource {
  /** Every instance of `resource` in `namespace`, and the storage revision the list was read at. */
  listInstances(resource: string, namespace: string): Promise<{ items: KubeObject[]; revision: number }>;
  /** The key space of the guards, one entry per project (its value says nothing; its revision is the lock). */
  guards(): Pick<KeptKeys, "get" | "createOp" | "updateOp">;
}

/**
 * How often the count is taken again when a write committed between the list and the guard's
 * read (each retry follows someone else's progress; the bound keeps a request from chasing a
 * long burst forever).
 */
const COUNT_ATTEMPTS = 20;

/**
 * `Project.spec.quotas` (docs/spaces.md#quotas): a write in `p-<project>` that makes a
 * SpaceInstance or VirtualClusterInstance count against a quota it did not count against before
 * (quota-claim.ts: a create, also an import or a move into the project, which create through the
 * same pipeline; waking a sleeping virtual cluster; a new spec.owner) is refused with 403 when it
 * would exceed a quota of the project or of the instance's owner.
 *
 * The count is derived from the stored instances each time, never kept: a delete frees its slot
 * at once and a crash leaks none. What makes two racing writes count right is the project's
 * guard key: the check reads the guard after the list (and counts again if a write committed
 * in between), then adds a write of the guard at the revision it read to the write's own
 * transaction (registry/write-guards.ts). Of two writes that counted the same instances, only
 * the first commits; the second is admitted again on the new count (Store.create,
 * Store.writeUpdate), so on the last slot one wins and the other gets the 403. This holds across
 * replicas: the guard is a compare-and-swap in storage, not a lock in memory.
 */
export class ProjectQuotasAdmission implements AdmissionPlugin {
  readonly name = "ProjectQuotas";

  constructor(
    private readonly projects: ProjectLookup,
    private readonly source: QuotaSource,
  ) {}

  async validate(attrs: AdmissionAttributes): Promise<void> {
    const resource = quotaResource(attrs);
    if (!resource) return;
    if (removesOwner(attrs)) await this.refuseOwnerRemoval(attrs);
    const claim = quotaClaim(attrs, resource);
    if (!claim) return;
    const target = await this.projectQuotas(attrs);
    if (!target) return;
    const { projectName, quotas } = target;
    const namespace = attrs.object.metadata.namespace!;
    const name = attrs.object.metadata.name ?? "";
    const guards = this.source.guards();
    for (let attempt = 0; attempt < COUNT_ATTEMPTS; attempt++) {
      const listed = await this.source.listInstances(resource, namespace);
      const guard = await guards.get(projectName);
      // A write committed after the list was read: its instance may be missing from the count.
      if (guard && guard.revision > listed.revision) continue;
      // An update counts the others: the instance as stored is what it replaces.
      const others = attrs.operation === "UPDATE" ? listed.items.filter((i) => i.metadata.name !== name) : listed.items;
      refuseOverQuota(attrs.object, resource, others, quotas, projectName, claim);
      const note = `${resource}/${name}`;
      attrs.guards.push({
        op: guard ? guards.updateOp(projectName, note, guard.revision) : guards.createOp(projectName, note),
      });
      return;
    }
    throw errors.conflict(
      { group: GROUP, resource },
      name,
      `other writes in project "${projectName}" kept changing its quota count; try again`,
    );
  }

  /**
   * 422 for an update that takes the owner away in a project with owner quotas: the instance would
   * count against nobody's, and its owner could create another in its place. Giving it to
   * another owner is a claim like any other.
   */
  private async refuseOwnerRemoval(attrs: AdmissionAttributes): Promise<void> {
    const target = await this.projectQuotas(attrs);
    if (!target?.quotas.user && !target?.quotas.team) return;
    throw errors.invalid(attrs.resourceType.kind, attrs.resourceType.group, attrs.object.metadata.name ?? "", [
      fieldError(
        "FieldValueRequired",
        "spec.owner",
        `project "${target.projectName}" sets user or team quotas: an instance keeps an owner (give it to another)`,
      ),
    ]);
  }

  /** The project of the instance's namespace and its quotas; undefined when it sets none. */
  private async projectQuotas(attrs: AdmissionAttributes) {
    const projectName = projectOfNamespace(attrs.object.metadata.namespace);
    if (!projectName) return;
    const project = await this.projects(projectName);
    const quotas = project && quotasOf(project);
    return quotas && { projectName, quotas };
  }
}

/** The resource a write is checked as (spaceinstances, virtualclusterinstances); undefined for any other write. */
function quotaResource(attrs: AdmissionAttributes): string | undefined {
  if (!attrs.resourceType.projectInstance) return;
  // A create of the object itself; an update of it or of its status (a wake-up clears status.sleep).
  if (attrs.operation === "CREATE" ? attrs.subresource !== "" : attrs.operation !== "UPDATE") return;
  const resource = platformPlural(attrs);
  return resource && QUOTA_RESOURCES.includes(resource) ? resource : undefined;
}

/** 403 naming the first quota the claim would exceed: the project's, then its owner's. */
function refuseOverQuota(
  instance: KubeObject,
  resource: string,
  others: readonly KubeObject[],
  quotas: ProjectQuotas,
  projectName: string,
  claim: QuotaClaim,
): void {
  const owner = specOf<{ owner?: Owner }>(instance).owner;
  const scopes: Array<{ limits: QuotaLimits | undefined; who: string; owner?: Owner; claimed: QuotaName[] }> = [
    { limits: quotas.project, who: "project quota", claimed: claim.project },
  ];
  if (owner?.user) {
    const who = `user quota for "${owner.user}":`;
    scopes.push({ limits: quotas.user, who, owner: { user: owner.user }, claimed: claim.owner });
  } else if (owner?.team) {
    const who = `team quota for "${owner.team}":`;
    scopes.push({ limits: quotas.team, who, owner: { team: owner.team }, claimed: claim.owner });
  }
  for (const scope of scopes) {
    for (const name of scope.claimed) {
      const limit = scope.limits?.[name];
      if (limit === undefined) continue;
      const used = countUsed(resource, others, name, scope.owner);
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
