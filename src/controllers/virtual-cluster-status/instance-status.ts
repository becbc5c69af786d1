import { isDeepStrictEqual } from "node:util";
import { clusterCannotBeUsed } from "../../clusters/cluster-connection.js";
import {
  CONDITION_CLUSTER_REACHABLE,
  CONDITION_READY,
  INSTANCE_PHASES,
  type InstanceCondition,
  type InstanceDeployed,
  type InstancePhase,
  type InstanceSleep,
  type InstanceWorkload,
  type VirtualClusterInstanceStatus,
} from "../../kinds/virtual-cluster-instance/virtual-cluster-instance-status.js";
import { withTransitionTime } from "../condition-times.js";
import type { Observation, VirtualClusterPlace } from "./observation.js";

/**
 * From what was found on the cluster to an instance's status: pure functions, so each case is
 * tested alone; a deployed instance's deploy outcome (Deploying, Failed) and its delete
 * (Deleting) are cases here too. docs/clusters.md ("Instance status") describes the result.
 */

/** The phase with its reason and message, one case per observation. */
export interface PhaseVerdict {
  readonly phase: InstancePhase;
  readonly reason: string;
  readonly message: string;
}

/**
 * The phase an observation means. A cluster that cannot be used now says nothing about the
 * virtual cluster, which is most likely still running as it was: the phase stays the last one
 * observed (Pending before any), and the reason says why it is not current.
 */
export function instancePhase(o: Observation, previousPhase: string | undefined, sleep?: InstanceSleep): PhaseVerdict {
  switch (o.found) {
    case "NoCluster":
      return { phase: "Pending", reason: "ClusterNotSet", message: "spec.clusterRef.cluster names no cluster" };
    case "ClusterNotFound":
      return {
        phase: "Failed",
        reason: "ClusterNotFound",
        message: `cluster "${o.cluster}" does not exist on the platform`,
      };
    case "ClusterUnavailable":
      // The reason only: the details (the server's address, the cluster's own words) are the
      // Cluster's, which not everyone who may read the instance may read.
      return {
        phase: isPhase(previousPhase) ? previousPhase : "Pending",
        reason: o.reason,
        message: clusterCannotBeUsed(o.cluster, o.reason),
      };
    case "ServiceNotFound":
      return {
        phase: "Failed",
        reason: "ServiceNotFound",
        message: `no service ${o.where.name} labelled app=vcluster in namespace ${o.where.namespace} on cluster "${o.where.cluster}"`,
      };
    case "ServiceReplaced":
      return {
        phase: "Failed",
        reason: "ServiceReplaced",
        message: `service ${placeName(o.where)} has UID ${o.uid}, not ${o.imported} as when it was imported: the virtual cluster was made again; import it again`,
      };
    case "WorkloadNotFound":
      return {
        phase: "Failed",
        reason: "WorkloadNotFound",
        message: `neither a StatefulSet nor a Deployment ${placeName(o.where)}`,
      };
    case "Workload":
      return sleepPhase(o, sleep) ?? workloadPhase(o.where, o.workload, o.current);
  }
}

/**
 * Sleep mode's phases (docs/virtual-clusters.md, "Sleep mode"): meant to sleep (status.sleep),
 * the instance is Sleeping, from the moment the platform decided it; woken while its workload
 * still carries the replicas it had, it is Pending until the controller has scaled it back.
 */
function sleepPhase(
  o: Observation & { found: "Workload" },
  sleep: InstanceSleep | undefined,
): PhaseVerdict | undefined {
  const w = o.workload;
  const what = `${w.kind} ${placeName(o.where)}`;
  if (sleep) {
    const why =
      sleep.reason === "Idle"
        ? "no request through the gateway for spec.sleepAfter seconds"
        : "put to sleep on request";
    if (w.replicas > 0) {
      return { phase: "Sleeping", reason: "FallingAsleep", message: `${what} is being scaled to 0: ${why}` };
    }
    return {
      phase: "Sleeping",
      reason: sleep.reason === "Idle" ? "Idle" : "SleepRequested",
      message: `${what} is asleep (scaled to 0) since ${sleep.since}: ${why}; a request through the gateway or the wakeup action wakes it`,
    };
  }
  if (o.sleepingReplicas === undefined) return undefined;
  return {
    phase: "Pending",
    reason: "WakingUp",
    message: `${what} is being scaled back to ${o.sleepingReplicas} replicas`,
  };
}

function workloadPhase(where: VirtualClusterPlace, w: InstanceWorkload, current: boolean): PhaseVerdict {
  const counts = `${w.readyReplicas} of ${w.replicas} replicas ready`;
  const what = `${w.kind} ${placeName(where)}`;
  if (!current) {
    return {
      phase: "Pending",
      reason: "WorkloadNotReady",
      message: `${what}: its controller has not seen its latest spec yet (${counts})`,
    };
  }
  if (w.replicas === 0) return { phase: "Pending", reason: "ScaledToZero", message: `${what} is scaled to 0 replicas` };
  if (w.readyReplicas < w.replicas)
    return { phase: "Pending", reason: "WorkloadNotReady", message: `${what}: ${counts}` };
  return { phase: "Ready", reason: "WorkloadReady", message: `${what}: ${counts}` };
}

/** The conditions an observation means, without their transition times. */
export function instanceConditions(o: Observation, verdict: PhaseVerdict): InstanceCondition[] {
  const reachable: InstanceCondition =
    o.found === "ClusterNotFound" || o.found === "ClusterUnavailable" || o.found === "NoCluster"
      ? { type: CONDITION_CLUSTER_REACHABLE, status: "False", reason: verdict.reason, message: verdict.message }
      : {
          type: CONDITION_CLUSTER_REACHABLE,
          status: "True",
          reason: "Connected",
          message: `connected to cluster "${o.where.cluster}"`,
        };
  // Unknown, not the kept phase: nobody saw the workload this time.
  const readyStatus = o.found === "ClusterUnavailable" ? "Unknown" : verdict.phase === "Ready" ? "True" : "False";
  const ready: InstanceCondition = {
    type: CONDITION_READY,
    status: readyStatus,
    reason: verdict.reason,
    message: verdict.message,
  };
  return [reachable, ready];
}

/** What the deploy before the observation did, for a deployed instance (deploy-instance.ts). */
export type DeployOutcome =
  | { readonly ok: true; readonly deployed: InstanceDeployed; readonly namespaceUID?: string }
  | { readonly ok: false; readonly reason: string; readonly message: string };

/**
 * The phase of a deployed instance: a deploy that failed is Failed with its reason (what was
 * deployed before stays, and so does status.deployed); one that succeeded is Deploying until its
 * workload's controller counts it ready.
 */
export function deployedPhase(verdict: PhaseVerdict, deploy: DeployOutcome | undefined): PhaseVerdict {
  if (!deploy) return verdict;
  if (!deploy.ok) return { phase: "Failed", reason: deploy.reason, message: deploy.message };
  if (verdict.phase === "Pending" && verdict.reason === "WorkloadNotReady") return { ...verdict, phase: "Deploying" };
  return verdict;
}

/** The status of an instance being deleted: Deleting, with why it is not gone yet. */
export function deletingStatus(
  previous: VirtualClusterInstanceStatus,
  reason: string,
  message: string,
): VirtualClusterInstanceStatus {
  const next = { ...previous, phase: "Deleting", reason, message };
  return isDeepStrictEqual(next, previous) ? previous : next;
}

/**
 * The status to write: the previous one with the observation's phase, reason, message,
 * conditions and workload, and after a deploy what it deployed and into which namespace (its
 * UID). Fields it does not own (serviceUID) stay. A condition keeps its
 * lastTransitionTime while its status stays the same (Kubernetes' convention); the workload last
 * read stays while the cluster cannot be used. Equal to `previous` when nothing changed.
 */
export function nextStatus(
  previous: VirtualClusterInstanceStatus,
  o: Observation,
  now: string,
  deploy?: DeployOutcome,
): VirtualClusterInstanceStatus {
  const verdict = deployedPhase(instancePhase(o, previous.phase, previous.sleep), deploy);
  const next: VirtualClusterInstanceStatus = {
    ...previous,
    phase: verdict.phase,
    reason: verdict.reason,
    message: verdict.message,
    conditions: instanceConditions(o, verdict).map((c) => withTransitionTime(c, previous.conditions, now)),
  };
  if (deploy?.ok) next.deployed = deploy.deployed;
  if (deploy?.ok && deploy.namespaceUID) {
    next.namespaceUID = deploy.namespaceUID;
    // The UID says which namespace is the instance's from now on (namespace-claim.ts).
    delete next.movedFromProjectUID;
    delete next.movedFromProject;
  }
  if (o.found === "Workload") next.workload = o.workload;
  else if (o.found !== "ClusterUnavailable") delete next.workload;
  return isDeepStrictEqual(next, previous) ? previous : next;
}

function isPhase(phase: string | undefined): phase is InstancePhase {
  return phase !== undefined && (INSTANCE_PHASES as readonly string[]).includes(phase);
}

function placeName(where: VirtualClusterPlace): string {
  return `${where.namespace}/${where.name} on cluster "${where.cluster}"`;
}
