import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { VirtualClusterInstanceStatus } from "../../kinds/virtual-cluster-instance/virtual-cluster-instance-status.js";
import { nextStatus } from "./instance-status.js";
import type { Observation } from "./observation.js";

const where = { cluster: "prod", namespace: "team-a", name: "dev" };
const T1 = "2026-12-07T01:00:00Z";
const T2 = "2026-12-07T01:05:00Z";
const T3 = "2026-12-07T01:10:00Z";

function running(readyReplicas: number, replicas = 2, current = true): Observation {
  return { found: "Workload", where, workload: { kind: "StatefulSet", name: "dev", replicas, readyReplicas }, current };
}
const unreachable: Observation = {
  found: "ClusterUnavailable",
  cluster: "prod",
  reason: "ClusterUnreachable",
  message: "cannot reach the cluster at https://prod:6443: ECONNREFUSED",
};
const conditionsOf = (s: VirtualClusterInstanceStatus) =>
  Object.fromEntries((s.conditions ?? []).map((c) => [c.type, `${c.status} ${c.reason} ${c.lastTransitionTime}`]));

describe("an instance's status from what was found on its cluster", () => {
  it("every replica ready is Ready, with the counts; the imported service's UID stays", () => {
    const s = nextStatus({ phase: "Ready", serviceUID: "u1" }, running(2), T1);
    assert.equal(s.phase, "Ready");
    assert.equal(s.reason, "WorkloadReady");
    assert.equal(s.message, 'StatefulSet team-a/dev on cluster "prod": 2 of 2 replicas ready');
    assert.equal(s.serviceUID, "u1");
    assert.deepEqual(s.workload, { kind: "StatefulSet", name: "dev", replicas: 2, readyReplicas: 2 });
    assert.deepEqual(conditionsOf(s), {
      ClusterReachable: `True Connected ${T1}`,
      Ready: `True WorkloadReady ${T1}`,
    });
  });

  it("the same observation again is the same status object: nothing to write, times unchanged", () => {
    const s = nextStatus({}, running(2), T1);
    assert.equal(nextStatus(s, running(2), T2), s);
  });

  it("fewer replicas ready is Pending with the counts; only the condition that changed gets a new time", () => {
    const ready = nextStatus({}, running(2), T1);
    const s = nextStatus(ready, running(1), T2);
    assert.equal(s.phase, "Pending");
    assert.equal(s.reason, "WorkloadNotReady");
    assert.match(s.message ?? "", /1 of 2 replicas ready/);
    assert.deepEqual(conditionsOf(s), {
      ClusterReachable: `True Connected ${T1}`,
      Ready: `False WorkloadNotReady ${T2}`,
    });
    // Still not ready, with other counts: the message follows, the transition time does not.
    const later = nextStatus(s, running(0), T3);
    assert.match(later.message ?? "", /0 of 2 replicas ready/);
    assert.equal(conditionsOf(later).Ready, `False WorkloadNotReady ${T2}`);
  });

  it("scaled to zero is Pending ScaledToZero", () => {
    const s = nextStatus({}, running(0, 0), T1);
    assert.equal(s.phase, "Pending");
    assert.equal(s.reason, "ScaledToZero");
  });

  it("a workload whose controller has not seen its latest spec is not Ready, whatever its counts", () => {
    const s = nextStatus({}, running(2, 2, false), T1);
    assert.equal(s.phase, "Pending");
    assert.equal(s.reason, "WorkloadNotReady");
    assert.match(s.message ?? "", /has not seen its latest spec/);
  });

  it("a cluster that cannot be used keeps the last phase and workload; Ready becomes Unknown", () => {
    const ready = nextStatus({ serviceUID: "u1" }, running(2), T1);
    const s = nextStatus(ready, unreachable, T2);
    assert.equal(s.phase, "Ready");
    assert.equal(s.reason, "ClusterUnreachable");
    assert.equal(s.message, 'cluster "prod" cannot be used (ClusterUnreachable); the Cluster\'s status says why');
    assert.doesNotMatch(JSON.stringify(s), /ECONNREFUSED|https:/, "the cluster's details stay on the Cluster");
    assert.deepEqual(s.workload, ready.workload);
    assert.deepEqual(conditionsOf(s), {
      ClusterReachable: `False ClusterUnreachable ${T2}`,
      Ready: `Unknown ClusterUnreachable ${T2}`,
    });
    // Before anything was observed, the phase is Pending.
    assert.equal(nextStatus({}, unreachable, T1).phase, "Pending");
  });

  it("a cluster gone from the platform is Failed ClusterNotFound, and the workload counts go", () => {
    const ready = nextStatus({ serviceUID: "u1" }, running(2), T1);
    const s = nextStatus(ready, { found: "ClusterNotFound", cluster: "prod" }, T2);
    assert.equal(s.phase, "Failed");
    assert.equal(s.reason, "ClusterNotFound");
    assert.equal(s.message, 'cluster "prod" does not exist on the platform');
    assert.equal(s.workload, undefined);
    assert.equal(s.serviceUID, "u1");
    assert.equal(conditionsOf(s).ClusterReachable, `False ClusterNotFound ${T2}`);
  });

  it("the Service gone, replaced, or no workload is Failed with the reason", () => {
    assert.equal(nextStatus({}, { found: "ServiceNotFound", where }, T1).reason, "ServiceNotFound");
    const replaced = nextStatus({}, { found: "ServiceReplaced", where, uid: "u2", imported: "u1" }, T1);
    assert.equal(replaced.phase, "Failed");
    assert.match(replaced.message ?? "", /has UID u2, not u1/);
    const none = nextStatus({}, { found: "WorkloadNotFound", where }, T1);
    assert.deepEqual([none.phase, none.reason], ["Failed", "WorkloadNotFound"]);
  });

  it("no cluster named is Pending ClusterNotSet", () => {
    const s = nextStatus({}, { found: "NoCluster" }, T1);
    assert.deepEqual([s.phase, s.reason], ["Pending", "ClusterNotSet"]);
  });

  describe("sleep mode", () => {
    const sleep = { since: T1, reason: "Idle" };

    it("meant to sleep and scaled to zero is Sleeping, the reason saying whether idle or asked", () => {
      const idle = nextStatus({ sleep }, running(0, 0), T2);
      assert.equal(idle.phase, "Sleeping");
      assert.equal(idle.reason, "Idle");
      assert.match(
        idle.message ?? "",
        /asleep \(scaled to 0\) since 2026-12-07T01:00:00Z: no request through the gateway/,
      );
      assert.deepEqual(idle.sleep, sleep, "the sleep state is kept");
      assert.equal(conditionsOf(idle).Ready, `False Idle ${T2}`);
      const asked = nextStatus({ sleep: { since: T1, reason: "Requested" } }, running(0, 0), T2);
      assert.equal(asked.reason, "SleepRequested");
    });

    it("meant to sleep while replicas still run is Sleeping FallingAsleep (never counted as running)", () => {
      const s = nextStatus({ sleep }, running(2), T2);
      assert.equal(s.phase, "Sleeping");
      assert.equal(s.reason, "FallingAsleep");
    });

    it("woken while the workload still carries its kept replicas is Pending WakingUp", () => {
      const o: Observation = { ...running(0, 0), sleepingReplicas: 2 } as Observation;
      const s = nextStatus({ phase: "Sleeping" }, o, T2);
      assert.equal(s.phase, "Pending");
      assert.equal(s.reason, "WakingUp");
      assert.match(s.message ?? "", /being scaled back to 2 replicas/);
    });

    it("scaled to zero by someone else (no kept replicas, not meant to sleep) stays ScaledToZero", () => {
      assert.equal(nextStatus({}, running(0, 0), T1).reason, "ScaledToZero");
    });
  });
});
