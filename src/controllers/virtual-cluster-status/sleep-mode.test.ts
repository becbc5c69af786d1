import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { VIRTUAL_CLUSTER_ENDPOINT_ANNOTATION } from "../../api/endpoint-annotations.js";
import { createCertificateAuthority } from "../../crypto/certificates.js";
import type { VirtualClusterInstanceStatus } from "../../kinds/virtual-cluster-instance/virtual-cluster-instance-status.js";
import { runCli } from "../../testing/cli-run.js";
import { FakeClusterApiServer } from "../../testing/fake-cluster-apiserver.js";
import { accessKey, postObject } from "../../testing/gateway-fixture.js";
import { importDevVirtualCluster } from "../../testing/imported-virtual-cluster.js";
import { KubeControlPlane } from "../../testing/kube-control-plane.js";
import { applyDocumentedPlatformRights, REAL_CLUSTER_RESYNC_MS } from "../../testing/platform-on-control-plane.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../../testing/test-server.js";
import { waitFor } from "../../testing/wait-for.js";
import { SLEEPING_REPLICAS_ANNOTATION } from "./sleep-scaling.js";

/**
 * Sleep mode on a real control plane (docs/virtual-clusters.md, "Sleep mode"): the platform's
 * account holds exactly the rights docs/gateway.md lists; the StatefulSet's ready replicas are
 * kube-controller-manager's, from pods the kubelet stand-in reports ready. The virtual cluster's
 * own API server (what the gateway forwards to once it is awake) is a stand-in that answers with
 * the virtual cluster's CA, since no pod runs here.
 */

const INSTANCE = `${GROUP_PATH}/namespaces/p-web/virtualclusterinstances`;
/** The gateway's wait for a sleeping virtual cluster, shorter than the default for the test. */
const WAKE_LIMIT_MS = 15_000;

describe("sleep mode: idle virtual clusters scaled to zero, woken by a request or by hand", () => {
  let kube: KubeControlPlane;
  let server: TestServer;
  let vcluster: FakeClusterApiServer;
  /** alice may use the instance; bob may only read it. */
  let alice: string;
  let bob: string;

  async function status(name = "dev"): Promise<VirtualClusterInstanceStatus> {
    const res = await server.request("GET", `${INSTANCE}/${name}`);
    assert.equal(res.status, 200, res.text);
    return res.json.status ?? {};
  }

  /** Polls until the status matches: bounded, as a guard against hanging, not a timing assertion. */
  async function waitForStatus(
    want: (s: VirtualClusterInstanceStatus) => boolean,
  ): Promise<VirtualClusterInstanceStatus> {
    let last: VirtualClusterInstanceStatus = {};
    for (let i = 0; i < 600; i++) {
      last = await status();
      if (want(last)) return last;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.fail(`never reached the expected status; last: ${JSON.stringify(last)}`);
  }

  const statefulSet = (path: string) =>
    kube.kubectl("get", "statefulset", "dev", "-n", "team-a", "-o", `jsonpath={${path}}`);

  const sleepingReplicasPath = `.metadata.annotations.${SLEEPING_REPLICAS_ANNOTATION.replace(/[./]/g, "\\$&")}`;

  const patchInstance = (spec: Record<string, unknown>) =>
    server.request("PATCH", `${INSTANCE}/dev`, { body: { spec }, contentType: "application/merge-patch+json" });

  const throughGateway = (token: string) =>
    server.request("GET", "/kubernetes/project/web/virtualcluster/dev/api/v1/namespaces/default/pods", { token });

  before(async () => {
    [kube, server] = await Promise.all([
      KubeControlPlane.start(),
      startTestServer({
        clusterCheckIntervalMs: REAL_CLUSTER_RESYNC_MS,
        allowLocalEndpoints: true,
        sleepMode: { activityFlushMs: 200, wakeLimitMs: WAKE_LIMIT_MS },
      }),
    ]);
    await kube.startKubelet();
    const platform = await applyDocumentedPlatformRights(kube, false);

    const ca = await createCertificateAuthority("dev-vcluster-ca", 1);
    vcluster = await FakeClusterApiServer.start({ ca, clientCa: ca });
    vcluster.add("pods", "default", "inside-vc");
    await importDevVirtualCluster(server, kube, platform, ca);
    const patched = await server.request("PATCH", `${INSTANCE}/dev`, {
      body: {
        metadata: { annotations: { [VIRTUAL_CLUSTER_ENDPOINT_ANNOTATION]: vcluster.url } },
        spec: {
          access: [
            { verbs: ["use", "get"], users: ["alice"] },
            { verbs: ["get"], users: ["bob"] },
          ],
        },
      },
      contentType: "application/merge-patch+json",
    });
    assert.equal(patched.status, 200, patched.text);
    for (const name of ["alice", "bob"]) await postObject(server, "users", { metadata: { name }, spec: {} });
    alice = await accessKey(server, "alice");
    bob = await accessKey(server, "bob");
    await waitForStatus((s) => s.phase === "Ready");
  });
  after(async () => {
    await server?.stop();
    await vcluster?.stop();
    await kube?.stop();
  });

  it("idle for spec.sleepAfter seconds, it sleeps: its workload scaled to zero, the replicas it had kept on it", async () => {
    assert.equal((await patchInstance({ sleepAfter: 1 })).status, 200);
    const asleep = await waitForStatus((s) => s.phase === "Sleeping" && s.workload?.replicas === 0);
    assert.equal(asleep.reason, "Idle");
    assert.equal(asleep.sleep?.reason, "Idle");
    assert.match(asleep.message ?? "", /StatefulSet team-a\/dev on cluster "prod" is asleep \(scaled to 0\)/);
    assert.equal(asleep.conditions?.find((c) => c.type === "Ready")?.status, "False");
    assert.equal(await statefulSet(".spec.replicas"), "0");
    assert.equal(await statefulSet(sleepingReplicasPath), "1");
    // It stays asleep, to be woken by the tests below.
    assert.equal((await patchInstance({ sleepAfter: null })).status, 200);
  });

  it("a user without use on the instance is refused everywhere, and wakes nothing", async () => {
    const asleep = await status();
    assert.equal(asleep.phase, "Sleeping");
    for (const action of ["sleep", "wakeup"]) {
      const res = await server.request("POST", `${INSTANCE}/dev/${action}`, { body: {}, token: bob });
      assert.equal(res.status, 403, res.text);
      // Nor do they learn which instances exist.
      const absent = await server.request("POST", `${INSTANCE}/nothing/${action}`, { body: {}, token: bob });
      assert.equal(absent.status, 403, absent.text);
    }
    const forwarded = await throughGateway(bob);
    assert.equal(forwarded.status, 403, forwarded.text);
    await server.gateway.activity.flush();
    const after = await status();
    assert.deepEqual(after.sleep, asleep.sleep, "still meant to sleep");
    assert.equal(after.lastActivity, asleep.lastActivity, "a refused request is no activity");
    assert.equal(await statefulSet(".spec.replicas"), "0");
  });

  it("a request through the gateway wakes it and waits until it is Ready, then is answered", async () => {
    const res = await throughGateway(alice);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      res.json.items.map((p: { metadata: { name: string } }) => p.metadata.name),
      ["inside-vc"],
    );
    const awake = await status();
    assert.equal(awake.phase, "Ready", "answered only once Ready");
    assert.equal(awake.sleep, undefined);
    assert.ok(awake.lastActivity, "the wake-up counts as activity");
    assert.equal(await statefulSet(".spec.replicas"), "1");
    assert.equal(await statefulSet(sleepingReplicasPath), "", "the kept replicas are forgotten");
  });

  it("each request through the gateway is recorded as activity, written in batches", async () => {
    const before = Date.parse((await status()).lastActivity ?? "");
    // Timestamps have whole seconds: the next request is in a later second than the last record.
    while (Math.floor(Date.now() / 1000) <= Math.floor(before / 1000)) await new Promise((r) => setTimeout(r, 50));
    const sent = Math.floor(Date.now() / 1000) * 1000;
    assert.equal((await throughGateway(alice)).status, 200);
    await server.gateway.activity.flush();
    const recorded = Date.parse((await status()).lastActivity ?? "");
    assert.ok(recorded >= sent, `lastActivity ${recorded} is the request's time (${sent}) or later`);
  });

  it("sleep and wakeup by hand (the API, and the CLI's commands) need use: asleep, then Ready again", async () => {
    const slept = await server.request("POST", `${INSTANCE}/dev/sleep`, { body: {}, token: alice });
    assert.equal(slept.status, 200, slept.text);
    assert.equal(slept.json.message, "virtual cluster instance p-web/dev is going to sleep");
    assert.equal(slept.json.metadata?.resourceVersion, undefined, "the answer is a Status, not the instance");
    const asleep = await waitForStatus((s) => s.phase === "Sleeping" && s.workload?.replicas === 0);
    assert.equal(asleep.reason, "SleepRequested");
    assert.equal(await statefulSet(".spec.replicas"), "0");

    const woken = await server.request("POST", `${INSTANCE}/dev/wakeup`, { body: {}, token: alice });
    assert.equal(woken.status, 200, woken.text);
    await waitForStatus((s) => s.phase === "Ready");
    assert.equal(await statefulSet(".spec.replicas"), "1");

    // The CLI: bob is refused with the server's message, alice puts it to sleep and wakes it.
    const home = (user: string) => mkdtempSync(join(tmpdir(), `platform-cli-${user}-`));
    const caFile = join(home("ca"), "ca.pem");
    writeFileSync(caFile, server.caPem ?? "");
    const [aliceHome, bobHome] = [home("alice"), home("bob")];
    for (const [h, key] of [
      [aliceHome, alice],
      [bobHome, bob],
    ] as const) {
      const login = await runCli(h, ["login", server.url, "--access-key", key, "--certificate-authority", caFile]);
      assert.equal(login.code, 0, login.stderr);
    }
    // Every CLI command that reaches the instance's virtual cluster needs use on it, as the API does.
    for (const args of [
      ["sleep", "vcluster", "dev", "--project", "web"],
      ["wakeup", "vcluster", "dev", "--project", "web"],
      ["connect", "vcluster", "dev", "--project", "web", "--print"],
    ]) {
      const refused = await runCli(bobHome, args);
      assert.equal(refused.code, 1, `${args.join(" ")}: ${refused.stdout}`);
      // The kube config action names its subresource.
      assert.match(
        refused.stderr,
        /User "bob" cannot use resource "virtualclusterinstances(\/kubeconfig)?"/,
        args.join(" "),
      );
      assert.equal(refused.stdout, "", "nothing of the instance is printed");
    }
    assert.equal((await status()).phase, "Ready");
    const cliSleep = await runCli(aliceHome, ["sleep", "vcluster", "dev", "--project", "web"]);
    assert.equal(cliSleep.code, 0, cliSleep.stderr);
    assert.equal(cliSleep.stdout, "vcluster dev in project web is going to sleep\n");
    await waitForStatus((s) => s.phase === "Sleeping" && s.workload?.replicas === 0);
    const cliWake = await runCli(aliceHome, ["wakeup", "vcluster", "dev", "--project", "web"]);
    assert.equal(cliWake.code, 0, cliWake.stderr);
    assert.equal(cliWake.stdout, "vcluster dev in project web is waking up\n");
    await waitForStatus((s) => s.phase === "Ready");
  });

  it("a sleeping virtual cluster that cannot wake in time: the request gets 503 with Retry-After; it wakes once its cluster is back", async () => {
    assert.equal((await server.request("POST", `${INSTANCE}/dev/sleep`, { body: {}, token: alice })).status, 200);
    await waitForStatus((s) => s.phase === "Sleeping" && s.workload?.replicas === 0);
    await kube.stopApiServer();
    try {
      const res = await throughGateway(alice);
      assert.equal(res.status, 503, res.text);
      assert.equal(res.headers["retry-after"], String(WAKE_LIMIT_MS / 1000));
      assert.equal(res.json.reason, "ServiceUnavailable");
      assert.match(res.json.message, /virtual cluster p-web\/dev was asleep and is waking up/);
    } finally {
      await kube.startApiServer();
    }
    await waitForStatus((s) => s.phase === "Ready");
    assert.equal(await statefulSet(".spec.replicas"), "1");
  });

  it("idle for spec.deleteAfter seconds, the instance is deleted, with an Event saying why", async () => {
    await postObject(server, "namespaces/p-web/virtualclusterinstances", {
      metadata: { name: "short-lived" },
      spec: { clusterRef: { cluster: "prod", namespace: "team-a" }, deleteAfter: 1 },
    });
    let res = await server.request("GET", `${INSTANCE}/short-lived`);
    for (let i = 0; i < 600 && res.status === 200; i++) {
      await new Promise((r) => setTimeout(r, 100));
      res = await server.request("GET", `${INSTANCE}/short-lived`);
    }
    assert.equal(res.status, 404, res.text);
    // The Event is recorded after the delete: waited for, not read at once (a flush right after
    // the 404 may find it not recorded yet).
    type Event = { reason: string; involvedObject: { name: string }; message: string };
    const idleDeleted = (items: Event[]) =>
      items.find((e) => e.reason === "IdleDeleted" && e.involvedObject.name === "short-lived");
    const events = await waitFor(
      "the IdleDeleted Event about short-lived",
      async () =>
        (await server.request("GET", "/kubernetes/management/api/v1/namespaces/p-web/events")).json?.items ?? [],
      (items: Event[]) => idleDeleted(items) !== undefined,
    );
    assert.match(
      idleDeleted(events)?.message ?? "",
      /without a request through the gateway \(spec.deleteAfter\)/,
      JSON.stringify(events),
    );
  });
});
