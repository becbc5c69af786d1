import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { parse } from "yaml";
import { API_PREFIX } from "../../api/object.js";
import { VIRTUAL_CLUSTER_FINALIZER } from "../../kinds/virtual-cluster-instance/template-fields.js";
import type { VirtualClusterInstanceStatus } from "../../kinds/virtual-cluster-instance/virtual-cluster-instance-status.js";
import { putSecret } from "../../testing/cluster-status.js";
import { documentedYamlBlocks } from "../../testing/documented-rights.js";
import { EtcdCluster } from "../../testing/etcd-cluster.js";
import { postObject } from "../../testing/gateway-fixture.js";
import { type KubeAuditEvent, KubeControlPlane } from "../../testing/kube-control-plane.js";
import { type ReplicaChild, spawnReplica } from "../../testing/replica-child.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../../testing/test-server.js";
import { waitFor } from "../../testing/wait-for.js";
import { WatchClient } from "../../testing/watch-client.js";
import { FIELD_MANAGER } from "./deploy-instance.js";
import { INSTANCE_LABEL } from "./desired-instance.js";

/**
 * Two platform replicas on one etcd deploying virtual clusters onto one real cluster
 * (docs/virtual-clusters.md, "Lifecycle", "Several replicas"): the leader, a child process, is killed
 * (SIGKILL) while instances deploy and while one is being deleted; the other replica takes over
 * and finishes each exactly once. What the cluster holds is read from the cluster itself: the
 * objects' uids and managedFields, the `<name>-certs` Secrets' data, and kube-apiserver's audit
 * log of every write (who created, patched or deleted what).
 */

const BOOTSTRAP_KEY = "vc-replicas-admin-key-0123456789abcdefghijklm";
/** Settings both replicas run with: the cluster's address is loopback here. */
const REPLICA_CONFIG = { allowLocalEndpoints: true, clusterCheckIntervalMs: 10_000 };
const LEADER_ELECTION = { ttlSeconds: 2, retryMs: 100 };
const INSTANCES = `${GROUP_PATH}/namespaces/p-web/virtualclusterinstances`;
const EVENTS = `${API_PREFIX}/api/v1/namespaces/p-web/events`;
/** Who the platform is on the cluster: ServiceAccount platform/platform. */
const PLATFORM_USER = "system:serviceaccount:platform:platform";
/** Deployed before the kill and Ready after it. */
const DEPLOYED = ["one", "two", "three"];
/** Deleted before the kill, gone after it. */
const DELETED = "gone";
/** Created just before the kill: its deploy may be cut short by it. */
const LATE = "late";
/** The kinds the default template deploys, as `kubectl get` names them, and their API resources. */
const TEMPLATE_KINDS: Record<string, string> = {
  ServiceAccount: "serviceaccounts",
  Role: "roles",
  RoleBinding: "rolebindings",
  Secret: "secrets",
  Service: "services",
  StatefulSet: "statefulsets",
};
const HOLD_FINALIZER = "test.platform/hold";
/** Polls allowed per wait: this test's waits span a leader's lease running out and the new leader's first pass. */
const TAKEOVER_ATTEMPTS = 900;

interface ClusterObject {
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    uid: string;
    resourceVersion: string;
    managedFields?: Array<{ manager: string; operation: string; subresource?: string }>;
  };
  data?: Record<string, string>;
}

/** A platform Event, as far as the test reads it. */
interface PlatformEvent {
  involvedObject?: { name?: string };
  reason?: string;
  count?: number;
}

/**
 * An object as the audit log names it: resource, namespace and name. A Namespace's own requests
 * carry its name as their namespace too (their path is /api/v1/namespaces/NAME), so it is left out.
 */
const keyOf = (resource: string | undefined, namespace: string | undefined, name: string | undefined) =>
  resource === "namespaces" ? `namespaces/${name}` : `${resource}/${namespace ?? ""}/${name}`;
const auditKey = (o: ClusterObject) =>
  keyOf(o.kind === "Namespace" ? "namespaces" : TEMPLATE_KINDS[o.kind], o.metadata.namespace, o.metadata.name);
const digestOf = (data: unknown) => createHash("sha256").update(JSON.stringify(data)).digest("hex");

/** Writes as a line each, for a failure's message: who, what, the answer's code. */
const summarized = (writes: KubeAuditEvent[]) =>
  writes
    .map((e) => `\n  ${e.user.username} ${e.verb} ${e.objectRef?.subresource ?? ""} ${e.responseStatus?.code}`)
    .join("");
const eventKey = (e: KubeAuditEvent) => keyOf(e.objectRef?.resource, e.objectRef?.namespace, e.objectRef?.name);

describe("virtual clusters on two replicas on one etcd, deploying onto one real cluster", { timeout: 300_000 }, () => {
  let kube: KubeControlPlane;
  let etcd: EtcdCluster;
  let leader: ReplicaChild;
  let follower: TestServer;
  const dirs: string[] = [];

  const statusOf = async (name: string): Promise<VirtualClusterInstanceStatus> =>
    (await follower.request("GET", `${INSTANCES}/${name}`)).json?.status ?? {};
  const waitForStatus = (name: string, check: (s: VirtualClusterInstanceStatus) => boolean) =>
    waitFor(`status of instance ${name}`, () => statusOf(name), check, TAKEOVER_ATTEMPTS);
  const create = (name: string) =>
    postObject(follower, "namespaces/p-web/virtualclusterinstances", {
      metadata: { name },
      spec: { clusterRef: { cluster: "prod" }, templateRef: { name: "default" } },
    });
  /** The instance's Namespace and every object labelled as its own, as the cluster has them. */
  const objectsOf = async (name: string): Promise<ClusterObject[]> => {
    const ns = `p-web-v-${name}`;
    const listed = await kube.kubectl(
      "get",
      Object.keys(TEMPLATE_KINDS).join(","),
      "-n",
      ns,
      "-l",
      `${INSTANCE_LABEL}=${name}`,
      "-o",
      "json",
      "--show-managed-fields",
    );
    const namespace = JSON.parse(
      await kube.kubectl("get", "namespace", ns, "-o", "json", "--show-managed-fields"),
    ) as ClusterObject;
    return [namespace, ...(JSON.parse(listed).items as ClusterObject[])];
  };
  const certsOf = (objects: ClusterObject[], name: string) => {
    const certs = objects.find((o) => o.kind === "Secret" && o.metadata.name === `${name}-certs`);
    assert.ok(certs, `the ${name}-certs Secret`);
    return certs;
  };

  before(async () => {
    [kube, etcd] = await Promise.all([KubeControlPlane.start({ audit: true }), EtcdCluster.start(1)]);
    // The leader alone first, so it is the one elected; the follower gets a copy of its data
    // directory: every replica holds the same keys (docs/deployment.md), or it could not read the
    // CAs the other kept.
    const leaderDir = mkdtempSync(join(tmpdir(), "platform-vc-leader-"));
    const followerDir = mkdtempSync(join(tmpdir(), "platform-vc-follower-"));
    dirs.push(leaderDir, followerDir);
    leader = spawnReplica(etcd.url, { bootstrapKey: BOOTSTRAP_KEY, dataDir: leaderDir, config: REPLICA_CONFIG });
    await leader.ready;
    await waitFor("the child replica to lead", async () => leader.running, Boolean, TAKEOVER_ATTEMPTS);
    cpSync(leaderDir, followerDir, { recursive: true });
    follower = await startTestServer({
      ...REPLICA_CONFIG,
      dataDir: followerDir,
      storage: etcd.url,
      bootstrapKey: BOOTSTRAP_KEY,
      leaderElection: LEADER_ELECTION,
    });

    // The documented rights include the example grant to a team, in namespace team-a.
    for (const ns of ["platform", "team-a"]) await kube.kubectl("create", "namespace", ns);
    const platform = await kube.serviceAccount("platform", "platform");
    const [platformRights] = documentedYamlBlocks();
    const [deployRights] = documentedYamlBlocks(
      "docs/gateway.md",
      "### What the platform needs to deploy virtual clusters",
    );
    assert.ok(platformRights && deployRights, "docs/gateway.md shows the platform's rights");
    await kube.apply(platformRights);
    await kube.apply(deployRights);
    await postObject(follower, "projects", { metadata: { name: "web" }, spec: {} });
    await putSecret(follower, "prod", platform.kubeconfig());
    await postObject(follower, "clusters", { metadata: { name: "prod" }, spec: { config: { secretName: "prod" } } });
  });
  after(async () => {
    leader?.kill();
    await follower?.stop();
    await kube?.stop();
    await etcd?.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("the leader killed while instances deploy and one is deleted: the other replica ends each once, objects and CA as they were", async () => {
    // Deployed by the leader. No pod is ready before the kubelet stand-in starts: they stay Deploying.
    for (const name of [...DEPLOYED, DELETED]) await create(name);
    for (const name of [...DEPLOYED, DELETED]) await waitForStatus(name, (s) => s.phase === "Deploying");
    const firstDeployed = new Map<string, ClusterObject[]>();
    for (const name of [...DEPLOYED, DELETED]) firstDeployed.set(name, await objectsOf(name));

    // A delete the leader begins: its objects and namespace deleted, the namespace held
    // Terminating by a ConfigMap with a finalizer of the test's until the test lets it go.
    await kube.apply(
      JSON.stringify({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "hold", namespace: `p-web-v-${DELETED}`, finalizers: [HOLD_FINALIZER] },
      }),
    );
    const list = await follower.request("GET", INSTANCES);
    const watch = new WatchClient(
      follower,
      `${INSTANCES}?watch=true&resourceVersion=${list.json.metadata.resourceVersion}`,
      follower.adminKey,
    );
    try {
      assert.equal((await follower.request("DELETE", `${INSTANCES}/${DELETED}`)).status, 200);
      await waitForStatus(DELETED, (s) => s.phase === "Deleting" && s.reason === "NamespaceTerminating");

      await create(LATE);
      assert.equal(follower.controllers.runningControllers().includes("virtualcluster-status"), false);
      leader.kill();
      await leader.exited;
      await waitFor(
        "the follower to take over",
        async () => follower.controllers.runningControllers(),
        (running) => running.includes("virtualcluster-status"),
        TAKEOVER_ATTEMPTS,
      );
      await kube.startKubelet();
      for (const name of [...DEPLOYED, LATE]) await waitForStatus(name, (s) => s.phase === "Ready");
      // By now the new leader has looked at every instance (it queues them all when it starts): the
      // one being deleted is kept while its namespace is.
      const held = await follower.request("GET", `${INSTANCES}/${DELETED}`);
      assert.equal(held.status, 200, held.text);
      assert.equal(held.json.status.reason, "NamespaceTerminating");

      await kube.kubectl(
        "patch",
        "configmap",
        "hold",
        "-n",
        `p-web-v-${DELETED}`,
        "--type=json",
        "-p",
        '[{"op":"remove","path":"/metadata/finalizers"}]',
      );
      await watch.until((events) => events.some((e) => e.type === "DELETED" && e.object.metadata.name === DELETED));
    } finally {
      watch.close();
    }
    // The finalizer let go once, and the record went once, last.
    const changes = watch.events.filter((e) => e.object.metadata.name === DELETED);
    const holds = changes.map(
      (e) => e.type !== "DELETED" && !!e.object.metadata.finalizers?.includes(VIRTUAL_CLUSTER_FINALIZER),
    );
    const releases = holds.filter((held, i) => i > 0 && holds[i - 1] && !held).length;
    const summary = JSON.stringify(changes.map((e) => [e.type, e.object.metadata.finalizers]));
    assert.equal(holds[0], true, summary);
    assert.equal(releases, 1, summary);
    assert.deepEqual(
      changes.filter((e) => e.type === "DELETED"),
      [changes.at(-1)],
      summary,
    );
    assert.equal(
      (await kube.kubectl("get", "namespace", `p-web-v-${DELETED}`, "--ignore-not-found", "-o", "name")).trim(),
      "",
    );

    // Kube configs point at the cluster's ingress suffix: given only now, as the platform then also
    // tries to reach each virtual cluster there (no name resolves; nothing runs in the pods).
    const patched = await follower.request("PATCH", `${GROUP_PATH}/clusters/prod`, {
      contentType: "application/merge-patch+json",
      body: { metadata: { annotations: { "management.platform/ingress-suffix": "vc.example.test" } } },
    });
    assert.equal(patched.status, 200, patched.text);
    const audit = await kube.auditEvents();
    const writesTo = (o: ClusterObject) => audit.filter((e) => eventKey(e) === auditKey(o));
    for (const name of [...DEPLOYED, LATE]) {
      const objects = await objectsOf(name);
      const status = await statusOf(name);
      // One set of objects: what the cluster holds is what the instance says was deployed.
      assert.deepEqual(
        objects
          .filter((o) => o.kind !== "Namespace")
          .map((o) => `${o.kind}/${o.metadata.name}`)
          .sort(),
        (status.deployed?.objects ?? []).map((o) => `${o.kind}/${o.name}`).sort(),
      );
      for (const o of objects) {
        const writes = writesTo(o);
        const what = `${name}: ${auditKey(o)}: ${summarized(writes)}`;
        // Created once (a server-side apply that creates answers 201), never deleted, written by the platform alone.
        assert.equal(writes.filter((e) => e.responseStatus?.code === 201).length, 1, what);
        assert.deepEqual(
          writes.filter((e) => e.verb === "delete"),
          [],
          what,
        );
        assert.deepEqual(
          writes.filter((e) => e.user.username !== PLATFORM_USER && e.objectRef?.subresource !== "status"),
          [],
          what,
        );
        // The cluster's own record of its fields' owners: the platform's one field manager, and
        // the workload's controller writing its status.
        const fields = o.metadata.managedFields ?? [];
        assert.ok(
          fields.some((f) => f.manager === FIELD_MANAGER && f.operation === "Apply"),
          `${name}: ${auditKey(o)}`,
        );
        for (const f of fields) {
          const owner = `${f.manager} ${f.operation} ${f.subresource ?? ""}`.trim();
          assert.ok(
            owner === `${FIELD_MANAGER} Apply` || (f.operation === "Update" && f.subresource === "status"),
            `${name}: ${auditKey(o)}: ${owner}`,
          );
        }
      }
      // One CA: the certs Secret the leader wrote was never written again, and holds the CA the
      // platform signs the instance's kube configs with.
      const certs = certsOf(objects, name);
      const first = firstDeployed.get(name);
      if (first) {
        const firstCerts = certsOf(first, name);
        // Compared by digest: a failure's message shows no CA key.
        assert.equal(digestOf(certs.data), digestOf(firstCerts.data), `${name}-certs`);
        assert.equal(certs.metadata.resourceVersion, firstCerts.metadata.resourceVersion, `${name}-certs`);
        // Each object the same one, never made again.
        assert.deepEqual(
          objects.map((o) => `${auditKey(o)} ${o.metadata.uid}`).sort(),
          first.map((o) => `${auditKey(o)} ${o.metadata.uid}`).sort(),
        );
      }
      const kubeconfig = await follower.request("POST", `${INSTANCES}/${name}/kubeconfig`, {
        body: { apiVersion: "management.platform/v1", kind: "VirtualClusterInstanceKubeConfig", spec: {} },
      });
      assert.equal(kubeconfig.status, 201, kubeconfig.text);
      const config = parse(kubeconfig.json.status.kubeConfig);
      assert.equal(
        digestOf(config.clusters[0].cluster["certificate-authority-data"]),
        digestOf(certs.data?.["ca.crt"]),
        `${name}: the kube config's CA`,
      );
    }

    // The deleted instance's objects and namespace: created once, deleted once, by the platform.
    for (const o of firstDeployed.get(DELETED) ?? []) {
      const writes = writesTo(o);
      const what = `${DELETED}: ${auditKey(o)}: ${summarized(writes)}`;
      assert.equal(writes.filter((e) => e.responseStatus?.code === 201).length, 1, what);
      const deletes = writes.filter((e) => e.verb === "delete");
      assert.equal(deletes.length, 1, what);
      assert.equal(deletes[0]?.user.username, PLATFORM_USER, what);
    }

    // Ready exactly once each: one Event, counted once, whichever replica wrote it.
    const readyEvents = await waitFor(
      "an Event for each Ready instance",
      async () => (await follower.request("GET", EVENTS)).json.items as PlatformEvent[],
      (items) =>
        [...DEPLOYED, LATE].every((name) =>
          items.some((e) => e.involvedObject?.name === name && e.reason === "WorkloadReady"),
        ),
      TAKEOVER_ATTEMPTS,
    );
    for (const name of [...DEPLOYED, LATE]) {
      const ready = readyEvents.filter((e) => e.involvedObject?.name === name && e.reason === "WorkloadReady");
      assert.deepEqual(
        ready.map((e) => e.count ?? 1),
        [1],
        name,
      );
    }
  });
});
