import { errors } from "../api/errors.js";
import { API_VERSION, type KubeObject } from "../api/object.js";
import type { IdentityIndex } from "../auth/identity-index.js";
import type { Registry } from "../registry/registry.js";
import type { SubresourceHandler } from "./resource-handler.js";
import { requestInfoVerb } from "./resource-verbs.js";
import { send } from "./respond.js";

/**
 * `GET users/{name}/accesskeys` and `GET teams/{name}/accesskeys`: that subject's keys, as
 * an OwnedAccessKeyList, never with their values (the kind's present() hides spec.key).
 */
export function accessKeySubresources(
  registry: Registry,
  identity: IdentityIndex,
): Array<[string, SubresourceHandler]> {
  const handler =
    (field: "user" | "team"): SubresourceHandler =>
    async ({ request, reply, ctx, path, format, authorize }) => {
      // Another method: its verb authorized first, as kube-apiserver does, then 405.
      await authorize({ verb: requestInfoVerb(request.method, path) });
      if (request.method !== "GET") throw errors.methodNotAllowed();
      const name = path.name ?? "";
      await identity.sync();
      const owner = field === "user" ? identity.user(name) : identity.team(name);
      if (!owner) throw errors.notFound({ group: path.rt.group, resource: path.rt.plural }, name);
      const keys = registry.store("ownedaccesskeys");
      const items: KubeObject[] = identity.keys
        .list()
        .filter((k) => k.spec?.[field] === name)
        .sort((a, b) => (a.metadata.name ?? "").localeCompare(b.metadata.name ?? ""))
        .map((k) => keys.present(k, ctx));
      return send(reply, 200, { apiVersion: API_VERSION, kind: "OwnedAccessKeyList", metadata: {}, items }, format);
    };
  return [
    ["users/accesskeys", handler("user")],
    ["teams/accesskeys", handler("team")],
  ];
}
