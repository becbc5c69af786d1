import type { KubernetesObject } from "@kubernetes/client-node";
import { errors } from "../api/errors.js";
import { API_VERSION, GROUP, type KubeObject, statusOf } from "../api/object.js";
import type { EndpointPolicy } from "../clusters/endpoint-policy.js";
import { SPACE_LABEL } from "../controllers/spaces/desired-space.js";
import type { EventRecorder } from "../events/event-recorder.js";
import { type Authorize, decodeBody, isAllowed, refusedMethod } from "../instance-actions/action-request.js";
import { call, notFoundOnCluster } from "../instance-actions/cluster-calls.js";
import { type ImportRequest, importTarget, readImportSource } from "../instance-actions/import-target.js";
import { type SpaceInstanceStatus, spaceNamespaceOf } from "../kinds/space-instance/space-instance.js";
import type { KeptKeys } from "../registry/kept-keys.js";
import type { Registry } from "../registry/registry.js";
import { systemContext } from "../registry/request-context.js";
import type { SubresourceHandler } from "../server/resource-handler.js";
import { send } from "../server/respond.js";
import { recordSpaceImported } from "./space-events.js";

const SPACES = { group: GROUP, resource: "spaceinstances" };
const IMPORT_REQUEST: ImportRequest = {
  requestKind: "ProjectImportSpace",
  sourceField: "sourceSpace",
  required: ["name", "cluster"],
};

/**
 * POST .../projects/{project}/importspace (docs/spaces.md, "Import"): a namespace that exists on
 * a cluster becomes a SpaceInstance of the project, marked `status.imported` with the
 * namespace's UID, which is what lets the space controller take it over (it refuses any other
 * namespace it did not make) and what keeps it on the cluster when the space is deleted. The
 * status is the mark, not the spec, because only the platform writes status: nobody can claim
 * a foreign namespace by creating a SpaceInstance that says it was imported.
 *
 * `locks` holds one entry per imported namespace UID, written in the instance's transaction: of
 * two imports of one namespace only the first can write it, however they interleave. `endpoints`
 * is where the platform may connect to look for the namespace (the gateway's policy).
 */
export function importSpaceAction(
  registry: Registry,
  locks: KeptKeys,
  endpoints: EndpointPolicy,
  events?: EventRecorder,
): SubresourceHandler {
  return async ({ request, reply, ctx, path, format, raw, authorize }) => {
    if (request.method !== "POST") throw await refusedMethod(path, request.method, authorize);
    const projectName = path.name!;
    const body = decodeBody(request.headers["content-type"], raw, IMPORT_REQUEST.requestKind);
    const source = readImportSource(body, IMPORT_REQUEST, projectName);
    const { namespace, client } = await importTarget(registry, authorize, endpoints, {
      project: projectName,
      cluster: source.cluster,
      resource: "spaceinstances",
      takesOver: "a namespace (its owner gets admin in it)",
    });
    const found: KubernetesObject | undefined = await call(client, source.cluster, () =>
      client.core.readNamespace({ name: source.name }),
    );
    const uid = found?.metadata?.uid;
    if (!found || !uid) {
      throw notFoundOnCluster(
        `namespace "${source.name}" was not found on cluster "${source.cluster}"`,
        source.name,
        "namespaces",
      );
    }
    const owner = await spaceHolding(registry, source.cluster, source.name, uid);
    if (owner || found.metadata?.labels?.[SPACE_LABEL]) {
      // Named only to who may get it: the space may be another project's.
      const named = owner && (await mayGet(authorize, owner));
      const holder = named ? `space ${owner.metadata.namespace}/${owner.metadata.name}` : "a space";
      throw errors.conflict(
        SPACES,
        source.importName,
        `namespace "${source.name}" on cluster "${source.cluster}" already belongs to ${holder}`,
      );
    }
    // A lock left by a space since deleted (no space holds the namespace now) frees the namespace.
    const stale = await locks.get(uid);
    if (stale) await locks.removeAt(uid, stale.revision);

    const status: SpaceInstanceStatus = { phase: "Pending", namespaceUID: uid, imported: true };
    // Through the create pipeline: admission (the project's allowed clusters, quotas) applies as to any space.
    const [space] = await registry.transact(ctx, [
      {
        type: "create",
        resource: "spaceinstances",
        namespace,
        body: {
          apiVersion: API_VERSION,
          kind: "SpaceInstance",
          metadata: { name: source.importName },
          spec: { clusterRef: { cluster: source.cluster, namespace: source.name } },
        },
        options: { dryRun: false, fieldManager: "platform-import", fieldValidation: "Ignore" },
        status: status as Record<string, unknown>,
      },
      {
        type: "keep",
        keys: locks,
        id: uid,
        value: JSON.stringify({ cluster: source.cluster, namespace: source.name }),
        onExists: () =>
          errors.conflict(
            SPACES,
            source.importName,
            `namespace "${source.name}" on cluster "${source.cluster}" was imported concurrently`,
          ),
      },
    ]);
    if (space) recordSpaceImported(events, space, source);
    return send(reply, 201, body, format, ctx.warnings);
  };
}

function mayGet(authorize: Authorize, space: KubeObject): Promise<boolean> {
  const at = { namespace: space.metadata.namespace ?? "", name: space.metadata.name ?? "" };
  return isAllowed(authorize, { verb: "get", resource: "spaceinstances", subresource: "", ...at, object: space });
}

/** The space that holds a namespace: by its cluster and name, or (imported or moved) by its UID. */
async function spaceHolding(
  registry: Registry,
  cluster: string,
  namespace: string,
  uid: string,
): Promise<KubeObject | undefined> {
  const all = await registry
    .store("spaceinstances")
    .list(systemContext(), undefined, { fieldSelector: `spec.clusterRef.cluster=${cluster}` });
  return all.items.find(
    (s) => spaceNamespaceOf(s) === namespace || statusOf<SpaceInstanceStatus>(s).namespaceUID === uid,
  );
}
