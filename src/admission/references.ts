import { errors, fieldError } from "../api/errors.js";
import { GROUP, type KubeObject, specOf } from "../api/object.js";
import type { Owner } from "../api/schema/common.js";
import { type Authorizer, platformAttributes } from "../authz/contract.js";
import { DEFAULT_SECRET_NAMESPACE } from "../clusters/cluster-connection.js";
import type { ClusterSpec } from "../kinds/cluster/cluster.js";
import type { SpaceInstanceSpec } from "../kinds/space-instance/space-instance.js";
import type { VirtualClusterInstanceSpec } from "../kinds/virtual-cluster-instance/virtual-cluster-instance.js";
import { type AdmissionAttributes, type AdmissionPlugin, isServerWrite } from "../registry/admission.js";
import type { UserInfo } from "../registry/request-context.js";
import type { ResourceType } from "../registry/resource-type.js";
import { platformPlural } from "./resource-match.js";

/** Reads an object of this group (undefined when it does not exist). */
export type ObjectReader = (
  resource: string,
  namespace: string | undefined,
  name: string,
) => Promise<KubeObject | undefined>;

/** One object a field names: which field, which object, and the right the writer needs on it. */
export interface Reference {
  field: string;
  resource: string;
  namespace?: string;
  name: string;
  verb: string;
}

/**
 * A field that names another object needs the writer's right on that object (docs/permissions.md,
 * "Fields that name other objects"). Only a reference that is new or changed is checked, so an
 * object someone else pointed somewhere stays writable for its other fields. A validating
 * plugin after the escalation checks, with the object as it will be stored.
 */
export class ReferenceAdmission implements AdmissionPlugin {
  readonly name = "References";

  constructor(
    private readonly authz: Pick<Authorizer, "authorize">,
    private readonly read: ObjectReader,
  ) {}

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (isServerWrite(attrs) || attrs.operation === "DELETE") return;
    // The fields it knows are this group's kinds': a same-named resource elsewhere has other fields.
    const resource = platformPlural(attrs);
    if (resource === undefined) return;
    const { user, object: obj, oldObject: old } = attrs;
    if (resource === "ownedaccesskeys") await this.keySubjectExists(obj, old);
    for (const ref of changedReferences(attrs.resourceType, obj, old))
      await this.requireRight(user, resource, obj, ref);
  }

  /** 403 unless the caller holds `ref.verb` on the named object (a missing object grants nothing but to roles). */
  private async requireRight(user: UserInfo, resource: string, obj: KubeObject, ref: Reference): Promise<void> {
    const target = await this.read(ref.resource, ref.namespace, ref.name);
    const decision = await this.authz.authorize(
      user,
      platformAttributes(ref.verb, ref.resource, { namespace: ref.namespace, name: ref.name, object: target }),
    );
    if (decision.allowed) return;
    const where = ref.namespace ? ` in the namespace "${ref.namespace}"` : "";
    throw errors.forbidden(
      { group: GROUP, resource },
      obj.metadata.name ?? "",
      `User "${user.name}" cannot ${ref.verb} resource "${ref.resource}" in API group "${GROUP}"${where}, which ${ref.field} names`,
    );
  }

  /**
   * A key for a user or team that does not exist is refused (422 on the field, as for any
   * reference that does not resolve): otherwise it would start working for whoever is later
   * created under that name. Checked after escalation, so only callers allowed to name that
   * subject learn whether it exists.
   */
  private async keySubjectExists(obj: KubeObject, old: KubeObject | undefined): Promise<void> {
    const s = obj.spec ?? {};
    for (const [field, resource] of [
      ["user", "users"],
      ["team", "teams"],
    ] as const) {
      const name = s[field];
      if (typeof name !== "string" || !name || (old && old.spec?.[field] === name)) continue;
      if (await this.read(resource, undefined, name)) continue;
      throw errors.invalid("OwnedAccessKey", GROUP, obj.metadata.name ?? "", [
        fieldError("FieldValueInvalid", `spec.${field}`, `no ${resource.slice(0, -1)} of this name exists`, name),
      ]);
    }
  }
}

/** The references of `obj` that `old` did not already have. */
function changedReferences(rt: ResourceType, obj: KubeObject, old: KubeObject | undefined): Reference[] {
  const before = old ? referencesOf(rt, old) : [];
  return referencesOf(rt, obj).filter(
    (r) =>
      !before.some(
        (b) => b.field === r.field && b.resource === r.resource && b.namespace === r.namespace && b.name === r.name,
      ),
  );
}

/** Every reference to another object that needs a right (the table in docs/permissions.md). */
function referencesOf(rt: ResourceType, obj: KubeObject): Reference[] {
  const resource = rt.plural;
  const refs: Reference[] = [];
  if (rt.projectInstance) {
    const cluster = specOf<VirtualClusterInstanceSpec>(obj).clusterRef?.cluster;
    if (typeof cluster === "string" && cluster) {
      refs.push({ field: "spec.clusterRef.cluster", resource: "clusters", name: cluster, verb: "use" });
    }
  }
  if (resource === "spaceinstances") {
    const template = specOf<SpaceInstanceSpec>(obj).templateRef?.name;
    if (typeof template === "string" && template) {
      refs.push({ field: "spec.templateRef.name", resource: "spacetemplates", name: template, verb: "use" });
    }
  }
  if (rt.owner) {
    // Naming an owner one cannot see would attach one's object to a stranger: `get` on the owner.
    const owner = specOf<{ owner: Owner }>(obj).owner;
    if (typeof owner?.user === "string" && owner.user) {
      refs.push({ field: "spec.owner.user", resource: "users", name: owner.user, verb: "get" });
    }
    if (typeof owner?.team === "string" && owner.team) {
      refs.push({ field: "spec.owner.team", resource: "teams", name: owner.team, verb: "get" });
    }
  }
  if (resource === "clusters") {
    const config = specOf<ClusterSpec>(obj).config;
    if (typeof config?.secretName === "string" && config.secretName) {
      const ns = typeof config.secretNamespace === "string" && config.secretNamespace;
      refs.push({
        field: "spec.config.secretName",
        resource: "sharedsecrets",
        namespace: ns || DEFAULT_SECRET_NAMESPACE,
        name: config.secretName,
        verb: "get",
      });
    }
  }
  return refs;
}
