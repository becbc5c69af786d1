import { errors, type GroupResource } from "../api/errors.js";
import { GROUP, type KubeObject } from "../api/object.js";
import { ADMINISTER_VERB, ownsSpace } from "../authz/authorizer.js";
import { type Authorizer, platformAttributes } from "../authz/contract.js";
import type { UserInfo } from "../registry/request-context.js";
import type { ObjectReader } from "./references.js";

/** Who may do what only the holders of an instance or of its cluster may: spaces and virtual cluster instances alike. */

/**
 * Whether `user` owns the instance (a space, a virtual cluster instance) or holds administer on
 * it: who may give any role inside it. On create, the access rules being written do not count for
 * their writer, or anyone allowed to create one could give themselves administer with it.
 */
export async function administersInstance(
  authz: Pick<Authorizer, "authorize">,
  user: UserInfo,
  resource: "spaceinstances" | "virtualclusterinstances",
  instance: KubeObject,
  creating: boolean,
): Promise<boolean> {
  if (ownsSpace(user, instance)) return true;
  const decision = await authz.authorize(
    user,
    platformAttributes(ADMINISTER_VERB, resource, {
      namespace: instance.metadata.namespace,
      name: instance.metadata.name,
      object: creating ? { ...instance, spec: { ...instance.spec, access: [] } } : instance,
    }),
  );
  return decision.allowed;
}

/**
 * An inline spec.template decides what runs on the cluster it deploys to, so writing one needs
 * `administer` on that cluster (none named: on clusters as a whole); 403 naming the instance and
 * `advice` otherwise.
 */
export async function requireInlineTemplateRight(
  deps: { authz: Pick<Authorizer, "authorize">; read: ObjectReader },
  user: UserInfo,
  instance: { resource: GroupResource; name: string; advice: string },
  cluster: string | undefined,
): Promise<void> {
  const object = cluster ? await deps.read("clusters", undefined, cluster) : undefined;
  const decision = await deps.authz.authorize(
    user,
    platformAttributes(ADMINISTER_VERB, "clusters", { name: cluster, object }),
  );
  if (decision.allowed) return;
  const which = cluster ? `cluster ${JSON.stringify(cluster)}` : "every cluster";
  throw errors.forbidden(
    instance.resource,
    instance.name,
    `User "${user.name}" cannot ${ADMINISTER_VERB} resource "clusters" in API group "${GROUP}" (${which}), which an inline spec.template needs: ${instance.advice}`,
  );
}
