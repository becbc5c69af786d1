import { type Static, Type } from "@sinclair/typebox";
import { type FieldError, fieldError } from "../../api/errors.js";
import { type KubeObject, specOf, statusOf } from "../../api/object.js";
import type { Owner } from "../../api/schema/common.js";

/** The quotas a project may set; each counts instances of one kind in the project's namespace. */
export const QUOTA_NAMES = ["spaceInstances", "virtualClusterInstances", "runningVirtualClusterInstances"] as const;
export type QuotaName = (typeof QUOTA_NAMES)[number];

/**
 * The kept key space of the project quotas' guards, one key per project named after it
 * (src/admission/project-quotas.ts writes them; the project-quotas controller removes a deleted
 * project's).
 */
export const PROJECT_QUOTA_GUARDS = "project-quota-guards";

/**
 * Whether a virtual cluster instance is asleep or going to sleep: put to sleep (status.sleep, set
 * by the sleep action or the idle timer before the workload is scaled down). Clearing it is the
 * wake-up, so the instance counts as running from that write on, while its phase still says
 * Sleeping: the wake is the write that admission checks against the running quota, and the
 * status controller's later writes never change the count.
 */
function sleeping(instance: KubeObject): boolean {
  return statusOf<{ sleep?: unknown }>(instance).sleep !== undefined;
}

/** Which quotas an instance of each resource counts against (a sleeping one is not running). */
const QUOTAS_OF_RESOURCE: Record<string, (instance: KubeObject) => QuotaName[]> = {
  spaceinstances: () => ["spaceInstances"],
  virtualclusterinstances: (instance) =>
    sleeping(instance) ? ["virtualClusterInstances"] : ["virtualClusterInstances", "runningVirtualClusterInstances"],
};

/** The resources that quotas count. */
export const QUOTA_RESOURCES = Object.keys(QUOTAS_OF_RESOURCE);

const quota = (what: string) =>
  Type.Optional(Type.Integer({ minimum: 0, description: `At most this many ${what}; absent: no limit.` }));

const QuotaLimitsSchema = Type.Object(
  {
    spaceInstances: quota("SpaceInstances"),
    virtualClusterInstances: quota("VirtualClusterInstances"),
    runningVirtualClusterInstances: quota("VirtualClusterInstances not sleeping"),
  },
  { description: "Limits on the number of instances." },
);

export const ProjectQuotasSchema = Type.Object(
  {
    project: Type.Optional(Type.Object(QuotaLimitsSchema.properties, { description: "Limits for the whole project." })),
    user: Type.Optional(
      Type.Object(QuotaLimitsSchema.properties, {
        description: "Limits for each user in the project, on the instances it owns (spec.owner.user).",
      }),
    ),
    team: Type.Optional(
      Type.Object(QuotaLimitsSchema.properties, {
        description: "Limits for each team in the project, on the instances it owns (spec.owner.team).",
      }),
    ),
  },
  { description: "How many spaces and virtual cluster instances the project may hold (docs/spaces.md#quotas)." },
);

export type QuotaLimits = Static<typeof QuotaLimitsSchema>;
export type ProjectQuotas = Static<typeof ProjectQuotasSchema>;

const QuotaUsageSchema = Type.Object(
  {
    used: Type.Integer({ description: "Instances counted now." }),
    limit: Type.Integer({ description: "The quota." }),
  },
  { description: "One quota: how much of it is used." },
);
const QuotaUsagesSchema = Type.Record(Type.String(), QuotaUsageSchema, {
  description: "Used and limit, by quota name.",
});

export const ProjectQuotasStatusSchema = Type.Object(
  {
    project: Type.Optional(QuotaUsagesSchema),
    users: Type.Optional(
      Type.Record(Type.String(), QuotaUsagesSchema, { description: "By user, for users owning instances." }),
    ),
    teams: Type.Optional(
      Type.Record(Type.String(), QuotaUsagesSchema, { description: "By team, for teams owning instances." }),
    ),
  },
  { description: "Used and limit of each quota of spec.quotas, kept current by the platform." },
);
export type ProjectQuotasStatus = Static<typeof ProjectQuotasStatusSchema>;

/** Non-negative integers only: the schema says so for JSON, this names the field for any other value. */
export function validateQuotas(quotas: ProjectQuotas | undefined): FieldError[] {
  const errs: FieldError[] = [];
  for (const scope of ["project", "user", "team"] as const) {
    const limits = quotas?.[scope] as Record<string, unknown> | undefined;
    for (const [name, value] of Object.entries(limits ?? {})) {
      if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
        errs.push(
          fieldError("FieldValueInvalid", `spec.quotas.${scope}.${name}`, "must be a non-negative integer", value),
        );
      }
    }
  }
  return errs;
}

/** The quotas a project sets (undefined: none). */
export function quotasOf(project: KubeObject): ProjectQuotas | undefined {
  const quotas = specOf<{ quotas?: ProjectQuotas }>(project).quotas;
  const any = quotas && [quotas.project, quotas.user, quotas.team].some((l) => l && Object.keys(l).length > 0);
  return any ? quotas : undefined;
}

/** The owner an instance counts against: spec.owner.user or spec.owner.team. */
export function ownerOf(instance: KubeObject): Owner | undefined {
  return specOf<{ owner?: Owner }>(instance).owner;
}

/** The quotas that one instance of `resource` counts against. */
export function quotasCounting(resource: string, instance: KubeObject): QuotaName[] {
  return QUOTAS_OF_RESOURCE[resource]?.(instance) ?? [];
}

/** How many of `instances` (of `resource`) count against `name`, in all or for one owner. */
export function countUsed(
  resource: string,
  instances: readonly KubeObject[],
  name: QuotaName,
  owner?: { user?: string; team?: string },
): number {
  return instances.filter((i) => {
    if (!quotasCounting(resource, i).includes(name)) return false;
    if (!owner) return true;
    const o = ownerOf(i);
    return owner.user !== undefined ? o?.user === owner.user : o?.team === owner.team;
  }).length;
}

/**
 * status.quotas of a project with `quotas`, from the instances in its namespace by resource:
 * every project-wide quota, and the owner quotas of each user and team owning any instance.
 */
export function quotaStatus(
  quotas: ProjectQuotas,
  instancesByResource: ReadonlyMap<string, readonly KubeObject[]>,
): ProjectQuotasStatus {
  const usage = (limits: QuotaLimits | undefined, owner?: { user?: string; team?: string }) => {
    const out: Record<string, { used: number; limit: number }> = {};
    for (const name of QUOTA_NAMES) {
      const limit = limits?.[name];
      if (limit === undefined) continue;
      let used = 0;
      for (const [resource, instances] of instancesByResource) used += countUsed(resource, instances, name, owner);
      out[name] = { used, limit };
    }
    return out;
  };
  const status: ProjectQuotasStatus = {};
  if (quotas.project && Object.keys(quotas.project).length) status.project = usage(quotas.project);
  const all = [...instancesByResource.values()].flat();
  for (const [scope, key] of [
    ["user", "users"],
    ["team", "teams"],
  ] as const) {
    const limits = quotas[scope];
    if (!limits || !Object.keys(limits).length) continue;
    const owners = [...new Set(all.map((i) => ownerOf(i)?.[scope]).filter((n): n is string => !!n))].sort();
    if (!owners.length) continue;
    status[key] = Object.fromEntries(owners.map((n) => [n, usage(limits, { [scope]: n })]));
  }
  return status;
}

/** The Quotas column of `kubectl get projects -o wide`: `spaceInstances=2/5,…` from status.quotas.project. */
export function projectQuotasCell(project: KubeObject): string {
  const usage = statusOf<{ quotas?: ProjectQuotasStatus }>(project).quotas?.project ?? {};
  return Object.entries(usage)
    .map(([name, u]) => `${name}=${u.used}/${u.limit}`)
    .join(",");
}
