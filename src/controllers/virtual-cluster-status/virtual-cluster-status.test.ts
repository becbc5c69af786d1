import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createCertificateAuthority } from "../../crypto/certificates.js";
import type {
  InstanceCondition,
  VirtualClusterInstanceStatus,
} from "../../kinds/virtual-cluster-instance/virtual-cluster-instance-status.js";
import { postObject } from "../../testing/gateway-fixture.js";
import {
  importDevVirtualCluster,
  virtualClusterService,
  virtualClusterWorkload,
} from "../../testing/imported-virtual-cluster.js";
import { KubeControlPlane } from "../../testing/kube-control-plane.js";
import { applyDocumentedPlatformRights, REAL_CLUSTER_RESYNC_MS } from "../../testing/platform-on-control-plane.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../../testing/test-server.js";
import { waitFor } from "../../testing/wait-for.js";

/**
 * Virtual cluster instance status on a real control plane (docs/clusters.md, "Instance status"):
 * the platform's account holds exactly the rights docs/gateway.md lists, read from the page;
 * the workloads' ready replicas are computed by kube-controller-manager's own StatefulSet and
 * Deployment controllers from pods the kubelet stand-in reports ready (no container runs).
 */

/** Polls an instance until its status matches: bounded, as a guard against hanging, not a timing assertion. */
async function waitForInstance(
  server: TestServer,
  name: string,
  want: (s: VirtualClusterInstanceStatus) => boolean,
): Promise<VirtualClusterInstanceStatus> {
  let last: VirtualClusterInstanceStatus = {};
  for (let i = 0; i < 600; i++) {
    const res = await server.request("GET", `${GROUP_PATH}/namespaces/p-web/virtualclusterinstances/${name}`);
    last = res.json?.status ?? {};
    if (want(last)) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`instance p-web/${name} never reached the expected status; last: ${JSON.stringify(last)}`);
}

const condition = (s: VirtualClusterInstanceStatus, type: string): InstanceCondition | undefined =>
  s.conditions?.find((c) => c.type === type);

describe("virtual cluster instance status, read from a real cluster", () => {
  let kube: KubeControlPlane;
  let server: TestServer;

  before(async () => {
    [kube, server] = await Promise.all([
      KubeControlPlane.start(),
      startTestServer({ clusterCheckIntervalMs: REAL_CLUSTER_RESYNC_MS, allowLocalEndpoints: true }),
    ]);
    await kube.startKubelet();
    const platform = await applyDocumentedPlatformRights(kube, false);

    // `dev`: a StatefulSet, imported. `api`: a Deployment, its instance created directly.
    const ca = await createCertificateAuthority("dev-vcluster-ca", 1);
    await importDevVirtualCluster(server, kube, platform, ca, [
      virtualClusterService("api"),
      virtualClusterWorkload("Deployment", "api", 2),
    ]);
    await postObject(server, "namespaces/p-web/virtualclusterinstances", {
      metadata: { name: "api" },
      spec: { clusterRef: { cluster: "prod", namespace: "team-a", virtualCluster: "api" } },
    });
  });
  after(async () => {
    await server?.stop();
    await kube?.stop();
  });

  it("an instance is Ready once its workload's controller counts every replica ready", async () => {
    const dev = await waitForInstance(server, "dev", (s) => s.reason === "WorkloadReady");
    assert.equal(dev.phase, "Ready");
    assert.equal(dev.message, 'StatefulSet team-a/dev on cluster "prod": 1 of 1 replicas ready');
    assert.deepEqual(dev.workload, { kind: "StatefulSet", name: "dev", replicas: 1, readyReplicas: 1 });
    assert.equal(
      dev.serviceUID,
      await kube.kubectl("get", "service", "dev", "-n", "team-a", "-o", "jsonpath={.metadata.uid}"),
    );
    assert.equal(condition(dev, "Ready")?.status, "True");
    assert.equal(condition(dev, "ClusterReachable")?.reason, "Connected");
    assert.ok(condition(dev, "Ready")?.lastTransitionTime);

    // Created, not imported: found by name alone, its workload a Deployment.
    const api = await waitForInstance(server, "api", (s) => s.reason === "WorkloadReady");
    assert.equal(api.phase, "Ready");
    assert.deepEqual(api.workload, { kind: "Deployment", name: "api", replicas: 2, readyReplicas: 2 });
    assert.equal(api.serviceUID, undefined);
  });

  it("scaled to zero it is Pending (an Event says why), and Ready again when scaled back up", async () => {
    await kube.kubectl("scale", "statefulset", "dev", "-n", "team-a", "--replicas=0");
    // Pending as soon as the spec says zero; the last pod goes a moment later.
    const down = await waitForInstance(server, "dev", (s) => s.phase === "Pending" && s.workload?.readyReplicas === 0);
    assert.equal(down.reason, "ScaledToZero");
    assert.deepEqual(down.workload, { kind: "StatefulSet", name: "dev", replicas: 0, readyReplicas: 0 });
    assert.equal(condition(down, "Ready")?.status, "False");
    // The Event is recorded after the status write that changed the reason: waited for, not read
    // at once (a flush right after seeing the status may find it not recorded yet).
    type Event = { reason: string; involvedObject: { name: string }; type: string };
    const scaledToZero = (items: Event[]) =>
      items.find((e) => e.reason === "ScaledToZero" && e.involvedObject.name === "dev");
    const events = await waitFor(
      "the ScaledToZero Event about dev",
      async () =>
        (await server.request("GET", "/kubernetes/management/api/v1/namespaces/p-web/events")).json?.items ?? [],
      (items: Event[]) => scaledToZero(items) !== undefined,
    );
    assert.equal(scaledToZero(events)?.type, "Normal", JSON.stringify(events));

    await kube.kubectl("scale", "statefulset", "dev", "-n", "team-a", "--replicas=2");
    // On the way up, Pending with the counts (each pod of a StatefulSet starts after the one before).
    const up = await waitForInstance(server, "dev", (s) => s.phase === "Ready");
    assert.deepEqual(up.workload, { kind: "StatefulSet", name: "dev", replicas: 2, readyReplicas: 2 });
    assert.match(up.message ?? "", /2 of 2 replicas ready/);
  });

  it("while the cluster is unreachable the last phase stands, Ready is Unknown and the reason says why; then it recovers", async () => {
    await kube.stopApiServer();
    try {
      const down = await waitForInstance(server, "dev", (s) => s.reason === "ClusterUnreachable");
      assert.equal(down.phase, "Ready");
      // The details (address, error) are the Cluster's: not everyone who reads the instance may read them.
      assert.equal(down.message, 'cluster "prod" cannot be used (ClusterUnreachable); the Cluster\'s status says why');
      assert.equal(condition(down, "Ready")?.status, "Unknown");
      assert.equal(condition(down, "ClusterReachable")?.status, "False");
      assert.equal(down.workload?.readyReplicas, 2, "the counts last read stay");
    } finally {
      await kube.startApiServer();
    }
    const back = await waitForInstance(server, "dev", (s) => s.reason === "WorkloadReady");
    assert.equal(condition(back, "Ready")?.status, "True");
    assert.equal(condition(back, "ClusterReachable")?.status, "True");
  });

  it("its Service deleted, it is Failed ServiceNotFound; made again (a new UID), ServiceReplaced", async () => {
    await kube.kubectl("delete", "service", "dev", "-n", "team-a");
    const gone = await waitForInstance(server, "dev", (s) => s.phase === "Failed");
    assert.equal(gone.reason, "ServiceNotFound");
    assert.equal(gone.message, 'no service dev labelled app=vcluster in namespace team-a on cluster "prod"');
    assert.equal(gone.workload, undefined);
    assert.equal(condition(gone, "ClusterReachable")?.status, "True");

    await kube.apply(JSON.stringify(virtualClusterService("dev")));
    const replaced = await waitForInstance(server, "dev", (s) => s.reason === "ServiceReplaced");
    assert.equal(replaced.phase, "Failed");
    assert.match(replaced.message ?? "", /the virtual cluster was made again; import it again/);
    // The created instance finds any Service of its name: unaffected.
    assert.equal((await waitForInstance(server, "api", () => true)).phase, "Ready");
  });

  it("its Cluster deleted from the platform, every instance on it is Failed ClusterNotFound", async () => {
    const res = await server.request("DELETE", `${GROUP_PATH}/clusters/prod`);
    assert.equal(res.status, 200, res.text);
    for (const name of ["dev", "api"]) {
      const s = await waitForInstance(server, name, (x) => x.reason === "ClusterNotFound");
      assert.equal(s.phase, "Failed");
      assert.equal(s.message, 'cluster "prod" does not exist on the platform');
      assert.equal(condition(s, "Ready")?.status, "False");
      assert.equal(s.workload, undefined);
    }
  });
});
