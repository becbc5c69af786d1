import { admissionPlugins } from "../admission/plugins.js";
import type { IdentityIndex } from "../auth/identity-index.js";
import type { PlatformAuthorizer } from "../authz/authorizer.js";
import { servedEventResource } from "../events/event-visibility.js";
import { listHolders, NAMESPACE_CLAIM_GUARDS } from "../kinds/held-namespaces.js";
import { allResourceTypes } from "../kinds/index.js";
import { PROJECT_QUOTA_GUARDS } from "../kinds/project/project-quotas.js";
import { AdmissionChain } from "../registry/admission.js";
import { Registry } from "../registry/registry.js";
import { systemContext } from "../registry/request-context.js";
import type { Storage } from "../storage/interface.js";
import type { VirtualClusterCaStore } from "../virtualclusters/ca-store.js";
import type { ServerConfig } from "./config.js";
import { forwardedAuthority } from "./forwarded-authority.js";
import type { loadKeys } from "./keys.js";

type Keys = Awaited<ReturnType<typeof loadKeys>>;

/**
 * The registry of every kind of the management group, and the core group's (`/api/v1`: Events),
 * with the one admission chain (src/admission/plugins.ts). The kinds
 * and the admission plugins need the authorizer and the identity index, which are built from the
 * registry afterwards: they reach them through `authorizer()` and `identity()`, called only once
 * requests run; the kept virtual cluster CAs, which live in the registry, likewise (`cas()`).
 */
export function assembleRegistry(
  config: ServerConfig,
  storage: Storage,
  keys: Pick<Keys, "cipher" | "signer">,
  authorizer: () => PlatformAuthorizer,
  identity: () => IdentityIndex,
  cas: () => VirtualClusterCaStore,
): { registry: Registry; core: Registry; admission: AdmissionChain } {
  const { cipher, signer } = keys;
  const kinds = (config.kinds ?? allResourceTypes)({
    cipher,
    secretDataReaders: { mayReadData: (user, obj, resource) => authorizer().canReadSecretData(user, obj, resource) },
    tokenIssuer: {
      issue: (claims, ttl) =>
        signer.signToken(
          { sub: claims.sub, subjectKind: claims.subjectKind, scope: claims.scope, groups: claims.groups },
          ttl,
        ),
      maxTtlSeconds: config.maxTokenTtlSeconds ?? 86400,
    },
    instanceCas: { issue: (instance) => cas().issue(instance) },
  });
  const admission = new AdmissionChain(
    admissionPlugins({
      ...forwardedAuthority(authorizer, identity),
      owners: {
        resourceTypes: () => registry.resourceTypes(),
        read: (rt, ns, n) => registry.store(rt.plural).read(ns, n),
      },
      read: (resource, ns, name) => registry.store(resource).read(ns, name),
      projects: (name) => registry.store("projects").read(undefined, name),
      quotas: {
        listInstances: async (resource, namespace) => {
          const list = await registry.store(resource).list(systemContext(), namespace, {});
          return { items: list.items, revision: Number(list.metadata.resourceVersion) };
        },
        guards: () => registry.keptKeys(PROJECT_QUOTA_GUARDS),
      },
      claims: {
        listHolders: (cluster) => listHolders(registry, cluster),
        guards: () => registry.keptKeys(NAMESPACE_CLAIM_GUARDS),
      },
      uidOf: async (kind, ns, name) => (await registry.storeOfKind(kind)?.read(ns, name))?.metadata.uid,
      maxKeyTtlSeconds: config.maxKeyTtlSeconds,
      allowLocalEndpoints: config.allowLocalEndpoints === true,
    }),
  );
  const registry = new Registry(storage, kinds, admission);
  const core = new Registry(storage, [servedEventResource({ registry: () => registry, authorizer })], admission);
  return { registry, core, admission };
}
