import { type FieldError, fieldError } from "../../api/errors.js";
import type { KubeObject } from "../../api/object.js";
import type { Registry } from "../../registry/registry.js";
import type { RequestContext } from "../../registry/request-context.js";
import type { StoreHooks } from "../../registry/store.js";
import { type Authorizer, allowAllAuthorizer } from "../../server/authorizer.js";

/**
 * Setting `blockOwnerDeletion: true` on an ownerReference lets a dependent hold up its owner's
 * foreground deletion, so it needs `delete` permission on the owner (Kubernetes'
 * OwnerReferencesPermissionEnforcement; the seed answers 422). Only references the client
 * newly sets are checked; ones the server's own strategies add are not, since this runs on
 * the body as sent. The server's own identity is not asked about.
 */
export class OwnerReferencesAdmission {
  authorizer: Authorizer = allowAllAuthorizer;
  registry?: Registry;

  readonly hooks: StoreHooks = {
    admit: (_rt, obj, old, ctx) => this.check(obj, old, ctx),
  };

  async check(obj: KubeObject, old: KubeObject | undefined, ctx: RequestContext): Promise<FieldError[]> {
    if (ctx.user.credential?.type === "Internal") return [];
    const before = new Set(
      (old?.metadata.ownerReferences ?? []).filter((r) => r.blockOwnerDeletion === true).map((r) => r.uid),
    );
    const errs: FieldError[] = [];
    for (const ref of obj.metadata.ownerReferences ?? []) {
      if (ref?.blockOwnerDeletion !== true || before.has(ref.uid)) continue;
      const entry = this.registry?.resourceTypes().find((rt) => rt.kind === ref.kind);
      const refused = (why: string) =>
        errs.push(
          fieldError(
            "FieldValueForbidden",
            "metadata.ownerReferences",
            `cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't delete: ${ref.kind}, ${ref.name}${why}`,
          ),
        );
      if (!entry || ref.apiVersion !== `${entry.group}/${entry.version}`) {
        refused(" (unknown kind)");
        continue;
      }
      const namespace = entry.namespaced ? (obj.metadata.namespace ?? "") : "";
      const attrs = {
        verb: "delete",
        apiGroup: entry.group,
        resource: entry.plural,
        subresource: "",
        namespace,
        name: ref.name,
        resourceRequest: true,
      };
      let decision = await this.authorizer.authorize(ctx.user, attrs);
      if (!decision.allowed && this.authorizer.needsObject?.(ctx.user, attrs)) {
        const owner = await this.registry?.store(entry.plural).read(namespace || undefined, ref.name);
        if (owner) decision = await this.authorizer.authorize(ctx.user, { ...attrs, object: owner });
      }
      if (!decision.allowed) refused("");
    }
    return errs;
  }
}
