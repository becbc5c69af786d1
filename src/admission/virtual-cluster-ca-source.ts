import { isDeepStrictEqual } from "node:util";
import { errors } from "../api/errors.js";
import { GROUP } from "../api/object.js";
import { type Authorizer, platformAttributes } from "../authz/contract.js";
import { caSourceOf, namespaceStanding } from "../kinds/virtual-cluster-instance/ca-source.js";
import { type AdmissionAttributes, type AdmissionPlugin, isServerWrite } from "../registry/admission.js";
import type { UserInfo } from "../registry/request-context.js";
import type { ClaimSource } from "./namespace-claims.js";
import type { ObjectReader } from "./references.js";
import { platformResource, writesTo } from "./resource-match.js";

const INSTANCES = platformResource("virtualclusterinstances");

/**
 * Who may point an instance without a template at a virtual cluster (the rule and why:
 * kinds/virtual-cluster-instance/ca-source.ts). Asked of a create (a move's too, which arrives in
 * its new project) and of an update that changes where the CA is read from; any other update, and
 * an instance whose CA the platform keeps, is not asked, so instances stored before the rule stay
 * writable for their other fields. 403 naming the rule; never the holder of a namespace, nor its
 * project.
 */
export class VirtualClusterCaSourceAdmission implements AdmissionPlugin {
  readonly name = "VirtualClusterCaSource";

  constructor(
    private readonly authz: Pick<Authorizer, "authorize">,
    private readonly read: ObjectReader,
    private readonly claims: Pick<ClaimSource, "listHolders">,
  ) {}

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (!writesTo(attrs, INSTANCES) || attrs.subresource !== "") return;
    if ((attrs.operation !== "CREATE" && attrs.operation !== "UPDATE") || isServerWrite(attrs)) return;
    const source = caSourceOf(attrs.object);
    if (!source) return;
    if (attrs.operation === "UPDATE" && attrs.oldObject && isDeepStrictEqual(caSourceOf(attrs.oldObject), source)) {
      return;
    }
    const { items } = await this.claims.listHolders(source.cluster);
    const standing = namespaceStanding(items, source, attrs.object.metadata.namespace ?? "");
    const name = attrs.object.metadata.name ?? "";
    if (standing === "its project's space") return;
    if (standing === "another project's") {
      throw errors.forbidden(
        INSTANCES,
        name,
        `namespace ${JSON.stringify(source.namespace)} on cluster ${JSON.stringify(source.cluster)} belongs to another project: an instance without a template stands only for a virtual cluster in a namespace of its own project (to reach that one, ask its project)`,
      );
    }
    if (await this.administers(attrs.user, source.cluster)) return;
    throw errors.forbidden(
      INSTANCES,
      name,
      `User ${JSON.stringify(attrs.user.name)} cannot administer resource "clusters" in API group "${GROUP}" (cluster ${JSON.stringify(source.cluster)}), which an instance without a template needs unless a space of its project holds its namespace ${JSON.stringify(source.namespace)} there: the platform signs its users' certificates with the CA of the virtual cluster spec.clusterRef names; deploy one from a template, run it in a space of the project, or ask who administers the cluster to import it`,
    );
  }

  private async administers(user: UserInfo, cluster: string): Promise<boolean> {
    const object = await this.read("clusters", undefined, cluster);
    const decision = await this.authz.authorize(
      user,
      platformAttributes("administer", "clusters", { name: cluster, object }),
    );
    return decision.allowed;
  }
}
