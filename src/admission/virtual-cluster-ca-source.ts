import { isDeepStrictEqual } from "node:util";
import { errors } from "../api/errors.js";
import { GROUP, type KubeObject, specOf, statusOf } from "../api/object.js";
import { ADMINISTER_VERB } from "../authz/authorizer.js";
import type { Authorizer } from "../authz/contract.js";
import { isDeployed } from "../kinds/virtual-cluster-instance/template-fields.js";
import type { VirtualClusterInstanceSpec } from "../kinds/virtual-cluster-instance/virtual-cluster-instance.js";
import type { VirtualClusterInstanceStatus } from "../kinds/virtual-cluster-instance/virtual-cluster-instance-status.js";
import { type AdmissionAttributes, type AdmissionPlugin, isServerWrite } from "../registry/admission.js";
import type { ObjectReader } from "./references.js";
import { platformResource, writesTo } from "./resource-match.js";

const INSTANCES = platformResource("virtualclusterinstances");

/**
 * An instance that is neither deployed from a template nor imported names a virtual cluster
 * someone else runs on the cluster (`spec.clusterRef`): the platform reads that virtual cluster's
 * CA from the cluster with the cluster's own credentials, signs the kube configs and the gateway's
 * certificates of the instance's users with it, and binds its owner to `cluster-admin` inside.
 * Pointing one at a virtual cluster is therefore taking it over, as an import is: it needs
 * `administer` on the cluster (403 otherwise), on create and whenever `spec.clusterRef` or
 * `spec.external` changes. An instance whose CA the platform keeps (made for it, or kept at its
 * import: its status says which) reads nothing from the cluster and is not asked again, so a move
 * of an imported instance to another project needs no more than before.
 */
export class VirtualClusterCaSourceAdmission implements AdmissionPlugin {
  readonly name = "VirtualClusterCaSource";

  constructor(
    private readonly authz: Pick<Authorizer, "authorize">,
    private readonly read: ObjectReader,
  ) {}

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (!writesTo(attrs, INSTANCES) || attrs.subresource !== "" || attrs.operation === "DELETE") return;
    if (isServerWrite(attrs)) return;
    const { object: obj, oldObject: old } = attrs;
    if (isDeployed(obj) || hasKeptCa(old ?? obj)) return;
    if (old && !pointerChanged(obj, old)) return;
    const cluster = specOf<VirtualClusterInstanceSpec>(obj).clusterRef?.cluster;
    if (!cluster) return;
    const decision = await this.authz.authorize(attrs.user, {
      verb: ADMINISTER_VERB,
      apiGroup: GROUP,
      resource: "clusters",
      subresource: "",
      namespace: "",
      name: cluster,
      resourceRequest: true,
      object: await this.read("clusters", undefined, cluster),
    });
    if (decision.allowed) return;
    throw errors.forbidden(
      INSTANCES,
      obj.metadata.name ?? "",
      `User "${attrs.user.name}" cannot ${ADMINISTER_VERB} resource "clusters" in API group "${GROUP}" (cluster ${JSON.stringify(cluster)}), which an instance not deployed from a template needs: the platform signs its users' certificates with the CA of the virtual cluster spec.clusterRef names; deploy one from a template, or ask who administers the cluster to import it`,
    );
  }
}

/** Whether the platform keeps the instance's CA (made at create, or kept at import). */
function hasKeptCa(obj: KubeObject): boolean {
  const status = statusOf<VirtualClusterInstanceStatus>(obj);
  return Boolean(status.caID || status.serviceUID);
}

/** Whether the write changes which virtual cluster the instance stands for. */
function pointerChanged(obj: KubeObject, old: KubeObject): boolean {
  const now = specOf<VirtualClusterInstanceSpec>(obj);
  const before = specOf<VirtualClusterInstanceSpec>(old);
  return !isDeepStrictEqual(now.clusterRef, before.clusterRef) || now.external !== before.external;
}
