/**
 * Which requests' bodies the audit log may keep (AuditLog.bodiesAuditable): those the generic
 * resource handler serves, resolved as it resolves them (resource-path.ts: the same decoding, so
 * no spelling of a path reaches a kind the audit log takes for another), to a kind whose bodies
 * carry no secret value, and no subresource. Everything else (the console's sign-in, single
 * sign-on, the backup, a custom subresource such as accesskeys or kubeconfig) is logged without
 * bodies, whatever the audit policy's level.
 */
import { API_PREFIX } from "../api/object.js";
import type { Registry } from "../registry/registry.js";
import type { ResourceType } from "../registry/resource-type.js";
import { resolveResourcePath } from "./resource-path.js";

/**
 * Whether the bodies of a request may be logged: the server resolves the path as its handler
 * will. Until the audit log is told (and for every request it does not serve from a resource
 * handler), no. Defined here, below the audit log, which the server lends it to.
 */
export type BodiesAuditable = (method: string, url: string) => boolean;

/** A registry served under `prefix` (ending in `/`), as the generic handler serves it. */
export interface ServedRegistry {
  prefix: string;
  registry: Registry;
}

export function auditableBodies(served: readonly ServedRegistry[], reviews: Registry): BodiesAuditable {
  // The review kinds (kubectl auth can-i, whoami): one create-only collection each, no names.
  const reviewPaths = new Set(
    reviews.resourceTypes().map((rt) => `${API_PREFIX}/apis/${rt.group}/${rt.version}/${rt.plural}`),
  );
  return (_method, url) => {
    const path = url.split("?", 1)[0] ?? "";
    if (reviewPaths.has(path)) return true;
    for (const { prefix, registry } of served) {
      if (!path.startsWith(prefix)) continue;
      try {
        const { rt, subresource } = resolveResourcePath(registry, path.slice(prefix.length));
        return subresource === "" && !carriesSecrets(rt);
      } catch {
        return false; // not served (404) or undecodable (400): nothing to log of it
      }
    }
    return false;
  };
}

/** A kind that declares secret fields (ResourceType.secretFields: shared secret data, access keys, endpoint tokens). */
function carriesSecrets(rt: ResourceType): boolean {
  return (rt.secretFields?.length ?? 0) > 0;
}
