import { isDeepStrictEqual } from "node:util";
import { errors } from "../api/errors.js";
import { GROUP, type KubeObject, specOf } from "../api/object.js";
import { ADMINISTER_VERB } from "../authz/authorizer.js";
import { type Authorizer, platformAttributes } from "../authz/contract.js";
import { ALL_CLUSTERS } from "../kinds/cluster-selection.js";
import { type AdmissionAttributes, type AdmissionPlugin, isServerWrite } from "../registry/admission.js";
import type { ObjectReader } from "./references.js";
import { platformPlural } from "./resource-match.js";

/** The kinds whose objects write RBAC into the clusters their `spec.clusters` names. */
const GRANTING = new Set(["clusteraccesses", "clusterroletemplates"]);

/**
 * A ClusterAccess or ClusterRoleTemplate writes roles and bindings inside the clusters it names,
 * so creating one, or changing its spec, needs `administer` on each of those clusters, as they are
 * before and after the change (taking a grant away from a cluster is administering it too).
 * `"*"` reaches every cluster, present and future: it needs `administer` on clusters as a whole,
 * which no access rule on a single cluster grants. Deleting one only takes rights away.
 */
export class ClusterAccessGrantsAdmission implements AdmissionPlugin {
  readonly name = "ClusterAccessGrants";

  constructor(
    private readonly authz: Pick<Authorizer, "authorize">,
    private readonly read: ObjectReader,
  ) {}

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (isServerWrite(attrs) || attrs.operation === "DELETE") return;
    const resource = platformPlural(attrs);
    if (resource === undefined || !GRANTING.has(resource)) return;
    const { object: obj, oldObject: old } = attrs;
    if (old && isDeepStrictEqual(obj.spec, old.spec)) return;
    const clusters = new Set([...clustersOf(old), ...clustersOf(obj)]);
    for (const cluster of [...clusters].sort()) {
      if (await this.administers(attrs, cluster)) continue;
      const which = cluster === ALL_CLUSTERS ? "every cluster" : `cluster "${cluster}"`;
      throw errors.forbidden(
        { group: GROUP, resource },
        obj.metadata.name ?? "",
        `User "${attrs.user.name}" cannot ${ADMINISTER_VERB} resource "clusters" in API group "${GROUP}" (${which}), which writing roles and bindings into it needs`,
      );
    }
  }

  private async administers(attrs: AdmissionAttributes, cluster: string): Promise<boolean> {
    const all = cluster === ALL_CLUSTERS;
    // A cluster that does not exist yet: only who administers clusters as a whole may name it.
    const object = all ? undefined : await this.read("clusters", undefined, cluster);
    const decision = await this.authz.authorize(
      attrs.user,
      platformAttributes(ADMINISTER_VERB, "clusters", { name: all ? "" : cluster, object }),
    );
    return decision.allowed;
  }
}

function clustersOf(obj: KubeObject | undefined): string[] {
  return obj ? (specOf<{ clusters: string[] }>(obj).clusters ?? []) : [];
}
