import { type FieldError, fieldError } from "../api/errors.js";
import type { KubeObject } from "../api/object.js";
import type { Authorizer } from "../authz/contract.js";
import { type AdmissionAttributes, type AdmissionPlugin, isServerWrite } from "../registry/admission.js";
import { apiVersionOf, type ResourceType } from "../registry/resource-type.js";

/** How the plugin finds an owner's kind and reads the owner (the registry, in the server). */
export interface OwnerSource {
  resourceTypes(): readonly ResourceType[];
  read(rt: ResourceType, namespace: string | undefined, name: string): Promise<KubeObject | undefined>;
}

/**
 * Setting `blockOwnerDeletion: true` on an ownerReference lets a dependent hold up its owner's
 * foreground deletion, so it needs `delete` permission on the owner (Kubernetes'
 * OwnerReferencesPermissionEnforcement; answered with 422). Only references the client newly
 * sets are checked: it runs first in the chain, on the body as sent, before the server's own
 * plugins and strategies add references. The server's own writes are not asked about, nor are
 * kinds that are never stored (tokens, selves), which own nothing.
 */
export class OwnerReferencesAdmission implements AdmissionPlugin {
  readonly name = "OwnerReferencesPermissionEnforcement";

  constructor(
    private readonly authorizer: Authorizer,
    private readonly owners: OwnerSource,
  ) {}

  async admit(attrs: AdmissionAttributes): Promise<FieldError[]> {
    if (isServerWrite(attrs) || attrs.subresource !== "" || attrs.resourceType.virtualCreate) return [];
    const { object: obj, oldObject: old, user } = attrs;
    const before = new Set(
      (old?.metadata.ownerReferences ?? []).filter((r) => r.blockOwnerDeletion === true).map((r) => r.uid),
    );
    const errs: FieldError[] = [];
    for (const ref of obj.metadata.ownerReferences ?? []) {
      if (ref?.blockOwnerDeletion !== true || before.has(ref.uid)) continue;
      // By kind and apiVersion both: a kind name may repeat in another group.
      const entry = this.owners
        .resourceTypes()
        .find((rt) => rt.kind === ref.kind && ref.apiVersion === apiVersionOf(rt));
      const refused = (why: string) =>
        errs.push(
          fieldError(
            "FieldValueForbidden",
            "metadata.ownerReferences",
            `cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't delete: ${ref.kind}, ${ref.name}${why}`,
          ),
        );
      if (!entry) {
        refused(" (unknown kind)");
        continue;
      }
      const namespace = entry.namespaced ? (obj.metadata.namespace ?? "") : "";
      const request = {
        verb: "delete",
        apiGroup: entry.group,
        resource: entry.plural,
        subresource: "",
        namespace,
        name: ref.name,
        resourceRequest: true,
      };
      let decision = await this.authorizer.authorize(user, request);
      if (!decision.allowed && this.authorizer.needsObject?.(user, request)) {
        const owner = await this.owners.read(entry, namespace || undefined, ref.name);
        if (owner) decision = await this.authorizer.authorize(user, { ...request, object: owner });
      }
      if (!decision.allowed) refused("");
    }
    return errs;
  }
}
