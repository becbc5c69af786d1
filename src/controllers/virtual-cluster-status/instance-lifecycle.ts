import { type KubeObject, specOf, statusOf } from "../../api/object.js";
import {
  type ClusterConnectionError,
  classifyError,
  clusterCannotBeUsed,
  clusterClient,
} from "../../clusters/cluster-connection.js";
import { isUnreachable, type ObjectRef } from "../../clusters/cluster-objects.js";
import type { EndpointPolicy } from "../../clusters/endpoint-policy.js";
import { ClusterObjectClient } from "../../clusters/object-client.js";
import type { CertificateAndKey } from "../../crypto/certificates.js";
import { VIRTUAL_CLUSTER_FINALIZER } from "../../kinds/virtual-cluster-instance/template-fields.js";
import type { VirtualClusterInstanceSpec } from "../../kinds/virtual-cluster-instance/virtual-cluster-instance.js";
import type { VirtualClusterInstanceStatus } from "../../kinds/virtual-cluster-instance/virtual-cluster-instance-status.js";
import type { Registry } from "../../registry/registry.js";
import type { NamespaceClaim } from "../spaces/namespace-claim.js";
import { withoutCaKey } from "./ca-key-echo.js";
import { deployInstance, removeInstance } from "./deploy-instance.js";
import { desiredInstance, instanceNamespaceOf, templateContentOf } from "./desired-instance.js";
import type { DeployOutcome } from "./instance-status.js";

/**
 * The deploy and the delete of an instance made from a template (docs/virtual-clusters.md,
 * "Lifecycle"), for the status controller, which writes what they return. The messages name
 * the cluster by its name on the platform, never its address (an instance's reader may not
 * read its Cluster); the rendered objects hold the CA key and go nowhere but the cluster.
 */

/** The kept CA of an instance (ca-store.ts). */
export interface InstanceCas {
  forInstance(instance: KubeObject): Promise<CertificateAndKey | undefined>;
}

export interface LifecycleDeps {
  registry: Registry;
  cas: InstanceCas;
  timeoutMs: number;
  /** Where the platform may connect: a cluster the policy forbids is never called. */
  endpoints: EndpointPolicy;
  /** The instance's template, when it names one (from the informer). */
  templateOf(name: string): KubeObject | undefined;
  /** Which namespace the instance holds, judged against the other instances (namespace-claim.ts). */
  claimOf(instance: KubeObject): NamespaceClaim;
}

/** What a deploy means for the status; `retry` when the cluster could not be used (the observation says so). */
export type DeployStep = { outcome?: DeployOutcome; unreachable?: ClusterConnectionError; waiting?: boolean };

export async function deployStep(deps: LifecycleDeps, instance: KubeObject): Promise<DeployStep> {
  const clusterName = specOf<VirtualClusterInstanceSpec>(instance).clusterRef?.cluster ?? "";
  // No cluster: the observation reports it.
  const cluster = clusterName ? await deps.registry.store("clusters").read(undefined, clusterName) : undefined;
  if (!cluster) return {};
  const ca = await deps.cas.forInstance(instance);
  if (!ca) {
    const message = "the platform keeps no certificate authority for this instance; create it again";
    return { outcome: { ok: false, reason: "CertificateAuthorityNotFound", message } };
  }
  const refName = specOf<{ templateRef?: { name: string } }>(instance).templateRef?.name;
  const desired = desiredInstance(instance, refName ? deps.templateOf(refName) : undefined, ca);
  if ("reason" in desired) return { outcome: { ok: false, ...desired } };
  const previous = deployedObjects(instance);
  const where = clusterNamed(clusterName);
  try {
    const api = await clusterApi(deps.registry, cluster, deps.endpoints);
    const result = await deployInstance(
      api,
      where,
      instance,
      deps.claimOf(instance),
      desired,
      previous,
      deps.timeoutMs,
    );
    if (result.ok) {
      const objects = result.objects.map(({ apiVersion, kind, name }) => ({ apiVersion, kind, name }));
      return { outcome: { ok: true, deployed: { ...desired.deployed, objects }, namespaceUID: result.namespaceUID } };
    }
    if (result.unreachable) return { unreachable: result.unreachable };
    // "Kind name: the cluster's words": the words may quote the rendered object, CA key and all.
    const failed = result.message.slice(0, Math.max(0, result.message.indexOf(":")));
    const message = withoutCaKey(result.message, ca, failed);
    return { outcome: { ok: false, reason: result.reason, message }, waiting: result.waiting };
  } catch (err) {
    const e = classifyError(err, where);
    if (isUnreachable(e)) return { unreachable: e };
    return { outcome: { ok: false, reason: e.reason, message: clusterCannotBeUsed(clusterName, e.reason) } };
  }
}

/** Where the delete of an instance stands: done (drop the finalizer), or why not yet. */
export type DeleteStep =
  | { done: true }
  | { done: false; reason: string; message: string; error?: ClusterConnectionError };

/**
 * Removes what the platform deployed for the instance, when the namespace is the instance's
 * (never one it did not make, nor another instance's): its labelled objects, then its namespace;
 * and says whether all is gone.
 */
export async function deleteStep(deps: LifecycleDeps, instance: KubeObject): Promise<DeleteStep> {
  const clusterName = specOf<VirtualClusterInstanceSpec>(instance).clusterRef?.cluster ?? "";
  const namespace = instanceNamespaceOf(instance);
  const cluster = clusterName ? await deps.registry.store("clusters").read(undefined, clusterName) : undefined;
  if (!cluster) {
    return {
      done: false,
      reason: "ClusterNotFound",
      message: `cluster "${clusterName}" does not exist on the platform, so what was deployed in namespace "${namespace}" cannot be removed; remove the finalizer ${VIRTUAL_CLUSTER_FINALIZER} to drop this record alone (docs/virtual-clusters.md)`,
    };
  }
  const where = clusterNamed(clusterName);
  try {
    const api = await clusterApi(deps.registry, cluster, deps.endpoints);
    const kinds = [...deployedObjects(instance), ...templateKinds(deps, instance)];
    const claim = deps.claimOf(instance);
    const ns = await removeInstance(api, where, instance, claim, namespace, kinds, deps.timeoutMs);
    if (ns.gone) return { done: true };
    if (ns.error)
      return {
        done: false,
        reason: ns.error.reason,
        message: clusterCannotBeUsed(clusterName, ns.error.reason),
        error: ns.error,
      };
    if (ns.left) return { done: false, reason: ns.left.reason, message: ns.left.message };
    return {
      done: false,
      reason: "NamespaceTerminating",
      message: `waiting for namespace "${namespace}" to be deleted on cluster "${clusterName}"`,
    };
  } catch (err) {
    const e = classifyError(err, where);
    return { done: false, reason: e.reason, message: clusterCannotBeUsed(clusterName, e.reason), error: e };
  }
}

/** The objects the last successful deploy made (status.deployed). */
function deployedObjects(instance: KubeObject): ObjectRef[] {
  return statusOf<VirtualClusterInstanceStatus>(instance).deployed?.objects ?? [];
}

/** The kinds the instance's template writes, for a delete after a deploy that never completed. */
function templateKinds(deps: LifecycleDeps, instance: KubeObject): ObjectRef[] {
  const refName = specOf<{ templateRef?: { name: string } }>(instance).templateRef?.name;
  const found = templateContentOf(instance, refName ? deps.templateOf(refName) : undefined);
  if ("reason" in found) return [];
  const kinds: ObjectRef[] = [];
  for (const o of found.content.objects as Array<{ apiVersion?: unknown; kind?: unknown }>) {
    if (typeof o?.apiVersion === "string" && typeof o.kind === "string") {
      kinds.push({ apiVersion: o.apiVersion, kind: o.kind, name: "" });
    }
  }
  return kinds;
}

async function clusterApi(registry: Registry, cluster: KubeObject, endpoints: EndpointPolicy) {
  const client = await clusterClient(registry, cluster, endpoints);
  return ClusterObjectClient.for(client.kubeConfig);
}

/**
 * How messages name the instance's cluster: by its name on the platform, never its address (an
 * instance's reader may not read its Cluster).
 */
function clusterNamed(cluster: string): string {
  return JSON.stringify(cluster);
}
