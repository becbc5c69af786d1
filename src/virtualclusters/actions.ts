import { stringify } from "yaml";
import { INGRESS_SUFFIX_ANNOTATION } from "../api/endpoint-annotations.js";
import { errors, fieldError } from "../api/errors.js";
import { API_VERSION, GROUP, isPlainObject, type KubeObject, nowTimestamp } from "../api/object.js";
import { createClientCertificate } from "../crypto/certificates.js";
import type { EventRecorder } from "../events/event-recorder.js";
import {
  type Authorize,
  authorizeClusterUse,
  decodeBody,
  decodeObjectOf,
  isAllowed,
  refusedMethod,
} from "../instance-actions/action-request.js";
import { notFoundOnCluster } from "../instance-actions/cluster-calls.js";
import { type ImportRequest, importTarget, readImportSource } from "../instance-actions/import-target.js";
import { type MovableKind, moveToProjectAction } from "../instance-actions/move-to-project.js";
import { projectOfNamespace } from "../kinds/project/project.js";
import { VIRTUAL_CLUSTER_FINALIZER } from "../kinds/virtual-cluster-instance/template-fields.js";
import { impersonationOf } from "../registry/impersonation-identity.js";
import type { Registry } from "../registry/registry.js";
import { systemContext } from "../registry/request-context.js";
import type { SubresourceHandler } from "../server/resource-handler.js";
import { send } from "../server/respond.js";
import type { VirtualClusterCaStore } from "./ca-store.js";
import { ingressEndpoint } from "./ingress-host.js";
import { virtualClusterCa } from "./reach.js";
import { findVirtualClusterService, readVirtualClusterCa } from "./remote.js";
import { requestSleep, wakeUp } from "./sleep-state.js";

const DAY_SECONDS = 86_400;
const YEAR_SECONDS = 365 * DAY_SECONDS;
const VCI = { group: GROUP, resource: "virtualclusterinstances" };
const CLUSTERS = { group: GROUP, resource: "clusters" };
const IMPORT_REQUEST: ImportRequest = {
  requestKind: "ProjectImportVirtualCluster",
  sourceField: "sourceVirtualCluster",
  required: ["name", "namespace", "cluster"],
};

/**
 * POST .../projects/{target}/migratevirtualclusterinstance (docs/clusters.md, "Moving an instance
 * to another project"): what was deployed keeps running. The moved instance keeps its status: its
 * CA (`caID`, or an imported one's service UID) and the UID of its namespace on the cluster, by
 * which the controller knows that namespace is still its own and re-labels it for the target.
 */
const MOVABLE_INSTANCES: MovableKind = {
  resource: "virtualclusterinstances",
  kind: "VirtualClusterInstance",
  requestKind: "ProjectMigrateVirtualClusterInstance",
  sourceField: "sourceVirtualClusterInstance",
  noun: "virtual cluster instance",
  cleanupFinalizer: VIRTUAL_CLUSTER_FINALIZER,
};

export interface VirtualClusterActionDeps {
  registry: Registry;
  /** The kept CAs of imported virtual clusters. */
  cas: VirtualClusterCaStore;
  /** Reports imports (src/events). */
  events?: EventRecorder;
}

/** Registers the kubeconfig, import and migrate actions in the server's subresource map. */
export function registerVirtualClusterActions(
  subresources: Map<string, SubresourceHandler>,
  deps: VirtualClusterActionDeps,
): void {
  const { cas } = deps;
  subresources.set("virtualclusterinstances/kubeconfig", kubeconfigAction(deps.registry, cas));
  subresources.set("projects/importvirtualcluster", importAction(deps.registry, cas, deps.events));
  subresources.set("projects/migratevirtualclusterinstance", moveToProjectAction(deps.registry, MOVABLE_INSTANCES));
  subresources.set("virtualclusterinstances/sleep", sleepAction(deps.registry, requestSleep, "is going to sleep"));
  subresources.set("virtualclusterinstances/wakeup", sleepAction(deps.registry, wakeUp, "is waking up"));
}

// ---- kubeconfig ------------------------------------------------------------------------------

function kubeconfigAction(registry: Registry, cas: VirtualClusterCaStore): SubresourceHandler {
  return async ({ request, reply, ctx, path, format, raw, authorize }) => {
    const name = path.name!;
    let ttlGiven: unknown;
    if (request.method === "POST") {
      const body = decodeObjectOf(request.headers["content-type"], raw, "VirtualClusterInstanceKubeConfig");
      ttlGiven = isPlainObject(body.spec) ? body.spec.certificateTTL : undefined;
    } else if (request.method === "GET") {
      if (path.namespace !== undefined) throw errors.methodNotAllowed();
      ttlGiven = (request.query as Record<string, unknown>).certificateTTL;
    } else {
      throw await refusedMethod(path, request.method, authorize);
    }
    const ttl = parseCertificateTtl(ttlGiven, name, request.method === "GET");

    const instance = await findInstance(registry, path.namespace, name, authorize);
    if (!instance) {
      // Callers who may not use instances learn nothing about which exist.
      await authorize({ verb: "use", namespace: path.namespace ?? "" });
      throw errors.notFound(VCI, name);
    }
    const namespace = instance.metadata.namespace!;
    await authorize({ verb: "use", namespace, object: instance });

    const ref = (instance.spec?.clusterRef ?? {}) as { cluster?: string; namespace?: string; virtualCluster?: string };
    if (!ref.cluster) {
      throw errors.unprocessable(`virtual cluster instance ${namespace}/${name} has no spec.clusterRef.cluster`);
    }
    const cluster = await registry.store("clusters").read(undefined, ref.cluster);
    if (!cluster) throw errors.notFound(CLUSTERS, ref.cluster);
    // The certificate is signed with the cluster's credentials: only for who may use that cluster.
    await authorizeClusterUse(authorize, ref.cluster, cluster);
    const suffix = cluster.metadata.annotations?.[INGRESS_SUFFIX_ANNOTATION];
    if (!suffix) {
      throw errors.unprocessable(
        `cluster "${ref.cluster}" has no ingress suffix (annotation ${INGRESS_SUFFIX_ANNOTATION}), so virtual cluster ${namespace}/${name} has no endpoint a kube config could point to`,
      );
    }
    // The CA the platform made for the instance or kept when importing it, else the cluster's
    // copy, read as the gateway reads it (never from another project's namespace).
    const ca = await virtualClusterCa(registry, cas, instance, (n) => (n === ref.cluster ? cluster : undefined));
    // The same identity the gateway impersonates, so bindings of a team (platform:team:<team>) work here too.
    const identity = impersonationOf(ctx.user);
    const cert = await createClientCertificate(ca, {
      commonName: identity.user,
      organizations: [...identity.groups],
      validitySeconds: ttl === 0 ? YEAR_SECONDS : ttl,
    });
    const project = projectOfNamespace(namespace) ?? namespace;
    const contextName = `vcluster_${name}_${project}`;
    const kubeConfig = stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [
        {
          name: contextName,
          cluster: {
            server: ingressEndpoint(name, project, suffix),
            "certificate-authority-data": Buffer.from(ca.certPem).toString("base64"),
          },
        },
      ],
      users: [
        {
          name: contextName,
          user: {
            "client-certificate-data": Buffer.from(cert.certPem).toString("base64"),
            "client-key-data": Buffer.from(cert.keyPem).toString("base64"),
          },
        },
      ],
      contexts: [{ name: contextName, context: { cluster: contextName, user: contextName } }],
      "current-context": contextName,
      preferences: {},
    });
    const result = {
      apiVersion: API_VERSION,
      kind: "VirtualClusterInstanceKubeConfig",
      metadata: { name, namespace, creationTimestamp: nowTimestamp() },
      spec: ttlGiven === undefined ? {} : { certificateTTL: ttl },
      status: { kubeConfig },
    };
    return send(reply, request.method === "POST" ? 201 : 200, result, format, ctx.warnings);
  };
}

/** absent: one day; a non-negative integer (a JSON number in a body, digits in a query); anything else 422. */
function parseCertificateTtl(value: unknown, name: string, fromQuery: boolean): number {
  if (value === undefined) return DAY_SECONDS;
  const n = fromQuery && typeof value === "string" && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 0) {
    throw errors.invalid("VirtualClusterInstanceKubeConfig", GROUP, name, [
      fieldError(
        "FieldValueInvalid",
        "spec.certificateTTL",
        "must be a non-negative integer number of seconds",
        Array.isArray(value) ? value.join(",") : value,
      ),
    ]);
  }
  return n;
}

/**
 * The instance in `namespace`, or (cluster-wide GET form) the one instance of that name in any
 * project namespace that the caller may use: instances of other projects are neither chosen nor
 * named (a 409 lists only the usable ones, which the caller may see).
 */
async function findInstance(registry: Registry, namespace: string | undefined, name: string, authorize: Authorize) {
  const store = registry.store("virtualclusterinstances");
  if (namespace !== undefined) return store.read(namespace, name);
  const all = await store.list(systemContext(), undefined, { fieldSelector: `metadata.name=${name}` });
  const matches: KubeObject[] = [];
  for (const o of all.items) {
    if (projectOfNamespace(o.metadata.namespace) !== undefined && (await allowed(authorize, "use", o, "kubeconfig")))
      matches.push(o);
  }
  if (matches.length > 1) {
    throw errors.conflict(
      VCI,
      name,
      `${matches.length} virtual cluster instances have this name (in ${matches.map((m) => m.metadata.namespace).join(", ")}); use POST .../namespaces/{namespace}/virtualclusterinstances/${name}/kubeconfig`,
    );
  }
  return matches[0];
}

/** Whether the caller holds `verb` on the instance or its `subresource`. */
function allowed(authorize: Authorize, verb: string, instance: KubeObject, subresource: string): Promise<boolean> {
  return isAllowed(authorize, {
    verb,
    resource: "virtualclusterinstances",
    subresource,
    namespace: instance.metadata.namespace ?? "",
    name: instance.metadata.name ?? "",
    object: instance,
  });
}

// ---- sleep and wakeup -----------------------------------------------------------------------

/**
 * POST .../virtualclusterinstances/{name}/sleep and .../wakeup: `use` on the instance, as the
 * gateway asks, since a request through it wakes the instance anyway. They set or clear
 * status.sleep (sleep-state.ts); the status controller scales the workload. Answer: a Status
 * Success, never the instance itself (`use` does not include `get`).
 */
function sleepAction(
  registry: Registry,
  change: (registry: Registry, namespace: string, name: string) => Promise<KubeObject | undefined>,
  done: string,
): SubresourceHandler {
  return async ({ request, reply, ctx, path, format, authorize }) => {
    if (request.method !== "POST" || path.namespace === undefined) {
      throw await refusedMethod(path, request.method, authorize);
    }
    const namespace = path.namespace;
    const name = path.name!;
    const instance = await registry.store("virtualclusterinstances").read(namespace, name);
    if (!instance) {
      // Callers who may not use instances learn nothing about which exist.
      await authorize({ verb: "use", namespace, subresource: "" });
      throw errors.notFound(VCI, name);
    }
    // `use` on the instance itself (subresource ""), the very question the gateway asks.
    await authorize({ verb: "use", namespace, object: instance, subresource: "" });
    const changed = await change(registry, namespace, name);
    if (!changed) throw errors.notFound(VCI, name);
    const result = {
      apiVersion: "v1",
      kind: "Status",
      metadata: {},
      status: "Success",
      message: `virtual cluster instance ${namespace}/${name} ${done}`,
      details: { name, group: GROUP, kind: "virtualclusterinstances" },
      code: 200,
    };
    return send(reply, 200, result, format, ctx.warnings);
  };
}

// ---- import ----------------------------------------------------------------------------------

function importAction(registry: Registry, cas: VirtualClusterCaStore, events?: EventRecorder): SubresourceHandler {
  return async ({ request, reply, ctx, path, format, raw, authorize }) => {
    if (request.method !== "POST") throw await refusedMethod(path, request.method, authorize);
    const projectName = path.name!;
    const body = decodeBody(request.headers["content-type"], raw, IMPORT_REQUEST.requestKind);
    const source = readImportSource(body, IMPORT_REQUEST, projectName);
    const { name: vcName, namespace: vcNamespace, cluster: clusterName, importName: instanceName } = source;
    const { namespace, client } = await importTarget(registry, authorize, {
      project: projectName,
      cluster: clusterName,
      resource: "virtualclusterinstances",
      takesOver: "a virtual cluster (its CA signs certificates for anyone inside it)",
    });
    const service = await findVirtualClusterService(client, clusterName, vcNamespace, vcName);
    if (!service) {
      throw notFoundOnCluster(
        `virtual cluster ${vcNamespace}/${vcName} was not found on cluster "${clusterName}" (no service ${vcName} labelled app=vcluster in namespace ${vcNamespace})`,
        vcName,
        "virtualclusters",
      );
    }
    const instances = registry.store("virtualclusterinstances");
    const all = await instances.list(systemContext(), undefined, {});
    const already = all.items.find((o) => o.status?.serviceUID === service.uid);
    if (already) {
      // Named only to who may get it: the instance may be another project's.
      const as = (await allowed(authorize, "get", already, ""))
        ? `as ${already.metadata.namespace}/${already.metadata.name}`
        : "by an instance of another project";
      throw errors.conflict(
        VCI,
        instanceName,
        `virtual cluster ${vcNamespace}/${vcName} on cluster "${clusterName}" (service UID ${service.uid}) is already imported ${as}`,
      );
    }
    const ca = await readVirtualClusterCa(client, clusterName, vcNamespace, vcName);
    // The instance and its CA are written together: never an instance whose CA was lost.
    const [instance] = await registry.transact(ctx, [
      {
        type: "create",
        resource: "virtualclusterinstances",
        namespace,
        body: {
          apiVersion: API_VERSION,
          kind: "VirtualClusterInstance",
          metadata: { name: instanceName },
          spec: {
            clusterRef: { cluster: clusterName, namespace: vcNamespace, virtualCluster: vcName },
            external: true,
          },
        },
        options: { dryRun: false, fieldManager: "platform-import", fieldValidation: "Ignore" },
        status: { phase: "Ready", serviceUID: service.uid },
      },
      // The CA key is the lock on the service UID (ca-store.ts): another import wrote it first,
      // or the last instance was deleted a moment ago and its CA is being removed.
      cas.keepOp(service.uid, ca, () =>
        errors.conflict(
          VCI,
          instanceName,
          `virtual cluster ${vcNamespace}/${vcName} on cluster "${clusterName}" was imported concurrently; try again`,
        ),
      ),
    ]);
    if (instance)
      events?.record(
        instance,
        "Normal",
        "Imported",
        `imported from virtual cluster ${vcNamespace}/${vcName} on cluster ${clusterName}`,
      );
    return send(reply, 201, body, format, ctx.warnings);
  };
}
