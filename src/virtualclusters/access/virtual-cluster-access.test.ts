import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type {
  InsideBinding,
  VirtualClusterInstanceStatus,
} from "../../kinds/virtual-cluster-instance/virtual-cluster-instance-status.js";
import { accessKey, postObject, writeKubeconfig } from "../../testing/gateway-fixture.js";
import { importDevVirtualCluster } from "../../testing/imported-virtual-cluster.js";
import { runKubectl } from "../../testing/kube/kubectl.js";
import { KubeControlPlane } from "../../testing/kube-control-plane.js";
import {
  applyDocumentedPlatformRights,
  REAL_CLUSTER_RESYNC_MS,
  refused,
  eventually as retryUntil,
  waitForAuthorizer,
} from "../../testing/platform-on-control-plane.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../../testing/test-server.js";

/**
 * Rights inside a virtual cluster (docs/virtual-clusters.md, "Rights inside the virtual
 * cluster"), on real control planes. No pod runs on this machine, so the virtual cluster's own
 * API server (a kube-apiserver, which a vCluster runs in its pod) is a SECOND real control plane
 * of the test harness, whose CA is the virtual cluster's CA in its `dev-certs` Secret on the
 * host cluster; the host cluster is the first, where the virtual cluster's Service and
 * StatefulSet are, made ready by the kubelet stand-in. The instance is imported, so the platform
 * keeps that CA, and its endpoint annotation points at the stand-in.
 */

/** This file's waits: at most 600 tries of `retryUntil`. */
const eventually = <T>(what: string, attempt: () => Promise<T>) => retryUntil(what, attempt, 600);

const INSTANCE = `${GROUP_PATH}/namespaces/p-web/virtualclusterinstances/dev`;
const GATEWAY_PATH = "/kubernetes/project/web/virtualcluster/dev";

describe("rights inside a virtual cluster, applied through its own API server", () => {
  let host: KubeControlPlane;
  let inside: KubeControlPlane;
  let server: TestServer;
  let alice: (...args: string[]) => Promise<string>;
  let bob: (...args: string[]) => Promise<string>;
  let aliceKey: string;
  let bobKey: string;

  const status = async () => (await server.request("GET", INSTANCE)).json?.status as VirtualClusterInstanceStatus;
  const waitForAccess = (want: (access: InsideBinding[]) => boolean) =>
    eventually("the access status", async () => {
      const access = (await status()).access ?? [];
      assert.ok(want(access), JSON.stringify(access));
      return access;
    });
  const setAccess = async (access: unknown[]) => {
    const res = await server.request("PATCH", INSTANCE, {
      body: { spec: { access } },
      contentType: "application/merge-patch+json",
    });
    assert.equal(res.status, 200, res.text);
  };
  /** Who the platform's bindings inside name, by binding. */
  const bindingsInside = async (): Promise<Record<string, string[]>> => {
    const list = JSON.parse(
      await inside.kubectl(
        "get",
        "clusterrolebindings",
        "-l",
        "management.platform/virtual-cluster-access",
        "-o",
        "json",
      ),
    ) as { items: Array<{ metadata: { name: string }; subjects?: Array<{ kind: string; name: string }> }> };
    return Object.fromEntries(
      list.items.map((b) => [b.metadata.name, (b.subjects ?? []).map((s) => `${s.kind}/${s.name}`)]),
    );
  };

  before(async () => {
    [host, inside, server] = await Promise.all([
      KubeControlPlane.start(),
      KubeControlPlane.start(),
      startTestServer({ clusterCheckIntervalMs: REAL_CLUSTER_RESYNC_MS, allowLocalEndpoints: true }),
    ]);
    await host.startKubelet();
    const platform = await applyDocumentedPlatformRights(host, false);
    await importDevVirtualCluster(server, host, platform, inside.ca);
    for (const name of ["alice", "bob"]) await postObject(server, "users", { metadata: { name }, spec: {} });
    const res = await server.request("PATCH", INSTANCE, {
      body: { metadata: { annotations: { "management.platform/virtual-cluster-endpoint": inside.url } } },
      contentType: "application/merge-patch+json",
    });
    assert.equal(res.status, 200, res.text);
    const gateway = `${server.url}${GATEWAY_PATH}`;
    aliceKey = await accessKey(server, "alice");
    const aliceConfig = writeKubeconfig(server.dataDir, gateway, server.caPem ?? "", aliceKey);
    bobKey = await accessKey(server, "bob");
    const bobConfig = writeKubeconfig(server.dataDir, gateway, server.caPem ?? "", bobKey);
    alice = (...args) => runKubectl(aliceConfig, args);
    bob = (...args) => runKubectl(bobConfig, args);
  });
  after(async () => {
    await server?.stop();
    await Promise.all([host?.stop(), inside?.stop()]);
  });

  it("a user with `use` through an access rule is cluster-admin inside, through the gateway", async () => {
    await setAccess([{ verbs: ["use"], users: ["alice"] }]);
    const access = await waitForAccess((a) => a.some((b) => b.subjects.includes("User/alice") && b.applied));
    // With the instance's owner: the admin, who imported it without naming one.
    assert.deepEqual(
      access.find((b) => b.subjects.includes("User/alice")),
      {
        name: "platform:vcluster-access:cluster-admin",
        clusterRole: "cluster-admin",
        subjects: ["User/admin", "User/alice"],
        applied: true,
      },
    );
    assert.equal((await status()).phase, "Ready", "the status controller's fields are kept");
    // The binding is written; the virtual cluster's authorizer sees it a moment later.
    await waitForAuthorizer(alice, true, "create", "namespaces");
    await alice("create", "namespace", "made-by-alice");
    assert.match(await inside.kubectl("get", "namespace", "made-by-alice", "-o", "name"), /namespace\/made-by-alice/);
  });

  it("a user without `use` is refused at the gateway and by the kube config action, and is bound to nothing inside", async () => {
    const atGateway = await server.request("GET", `${GATEWAY_PATH}/api/v1/namespaces`, { token: bobKey });
    assert.equal(atGateway.status, 403, atGateway.text);
    assert.match(atGateway.json.message, /User "bob" cannot use resource "virtualclusterinstances"/);
    assert.match(await refused(bob("create", "namespace", "made-by-bob")), /Forbidden/);
    const kubeconfig = await server.request("POST", `${INSTANCE}/kubeconfig`, {
      body: { apiVersion: "management.platform/v1", kind: "VirtualClusterInstanceKubeConfig", spec: {} },
      token: bobKey,
    });
    assert.equal(kubeconfig.status, 403, kubeconfig.text);
    assert.equal(kubeconfig.json.kind, "Status");
    const bound = await bindingsInside();
    assert.ok(!Object.values(bound).flat().includes("User/bob"), JSON.stringify(bound));
  });

  it("a binding deleted by hand inside the virtual cluster comes back", async () => {
    await inside.kubectl("delete", "clusterrolebinding", "platform:vcluster-access:cluster-admin");
    await eventually("the binding coming back", async () => {
      assert.ok((await bindingsInside())["platform:vcluster-access:cluster-admin"]?.includes("User/alice"));
    });
  });

  it("a rule naming another role binds that role; a removed rule removes its binding, and bindings the platform did not make stay", async () => {
    await inside.kubectl("create", "clusterrolebinding", "hand-made", "--clusterrole=view", "--user=alice");
    await setAccess([{ verbs: ["use"], users: ["alice"], clusterRole: "view" }]);
    await eventually("alice bound to view only", async () => {
      const now = await bindingsInside();
      assert.deepEqual(now["platform:vcluster-access:view"], ["User/alice"]);
      assert.ok(!(now["platform:vcluster-access:cluster-admin"] ?? []).includes("User/alice"));
    });
    // The bindings are changed; the virtual cluster's authorizer sees the change a moment later.
    await waitForAuthorizer(alice, true, "get", "namespaces");
    await waitForAuthorizer(alice, false, "create", "namespaces");
    await alice("get", "namespaces");
    assert.match(await refused(alice("create", "namespace", "second")), /cannot create resource "namespaces"/);

    await setAccess([]);
    await eventually("the view binding going", async () => {
      assert.equal((await bindingsInside())["platform:vcluster-access:view"], undefined);
    });
    await waitForAccess((a) => !a.some((b) => b.clusterRole === "view"));
    assert.match(await inside.kubectl("get", "clusterrolebinding", "hand-made", "-o", "name"), /hand-made/);
    // Without `use`, alice is refused at the gateway too.
    const atGateway = await server.request("GET", `${GATEWAY_PATH}/api/v1/namespaces`, { token: aliceKey });
    assert.equal(atGateway.status, 403, atGateway.text);
    assert.match(atGateway.json.message, /User "alice" cannot use resource "virtualclusterinstances"/);
  });
});
