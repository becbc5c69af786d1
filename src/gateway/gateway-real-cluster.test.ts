import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { writeFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { parse } from "yaml";
import { createCertificateAuthority } from "../crypto/certificates.js";
import { putSecret, waitForStatus } from "../testing/cluster-status.js";
import {
  documentedYamlBlocks,
  eachRightRemoved,
  type Manifest,
  manifests,
  toYaml,
} from "../testing/documented-rights.js";
import {
  accessKey,
  KUBECTL,
  type KubectlTarget,
  kubectlAt,
  postObject,
  writeKubeconfig,
} from "../testing/gateway-fixture.js";
import { KubeControlPlane, type KubeUser } from "../testing/kube-control-plane.js";
import { REAL_CLUSTER_RESYNC_MS } from "../testing/platform-on-control-plane.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";

/**
 * The gateway and the virtual cluster actions against a real Kubernetes control plane
 * (docs/testing.md), connected with exactly the rights docs/gateway.md tells a cluster admin to
 * grant, applied from the docs as written: the cluster's RBAC decides what each platform user
 * may do through `/kubernetes/cluster/prod`, the cluster sees only the impersonated identity,
 * and every documented right is needed. What needs a running pod (exec, logs, port-forward)
 * stays on the stand-in in gateway-kubectl.test.ts: no kubelet runs here, only its stand-in,
 * which reports pods ready without running them.
 */

const PROD = "/kubernetes/cluster/prod";
const SUFFIX = "vcluster.example.test";

/** Polls until `check` holds: a guard against hanging, not a timing assertion (RBAC changes reach the authorizer through a watch). */
async function eventually(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`never happened: ${what}`);
}

describe("cluster gateway and virtual clusters on a real Kubernetes cluster", () => {
  let kube: KubeControlPlane;
  let server: TestServer;
  /** The ServiceAccount docs/gateway.md grants the platform its rights. */
  let platformSa: KubeUser;
  let gateway: KubectlTarget;
  let grants: Manifest[];
  const keys: Record<string, string> = {};
  let vcCa: { certPem: string; keyPem: string };

  const kubectl = (token: string, ...args: string[]) => kubectlAt(gateway, token, args);
  /** kubectl's stderr when it fails (the cluster's refusal), or a failed assertion when it succeeds. */
  const refusal = async (token: string, ...args: string[]) => {
    try {
      await kubectl(token, ...args);
    } catch (err) {
      return String((err as { stderr?: string }).stderr);
    }
    assert.fail(`kubectl ${args.join(" ")} was allowed`);
  };
  const importVc = (importName: string) =>
    server.request("POST", `${GROUP_PATH}/projects/web/importvirtualcluster`, {
      body: {
        apiVersion: "management.platform/v1",
        kind: "ProjectImportVirtualCluster",
        metadata: { name: "web" },
        sourceVirtualCluster: { name: "dev", namespace: "team-a", cluster: "prod", importName },
      },
    });
  const kubeConfigOf = (name: string) =>
    server.request("POST", `${GROUP_PATH}/namespaces/p-web/virtualclusterinstances/${name}/kubeconfig`, {
      body: { apiVersion: "management.platform/v1", kind: "VirtualClusterInstanceKubeConfig", spec: {} },
    });

  before(async () => {
    [kube, server] = await Promise.all([
      KubeControlPlane.start(),
      startTestServer({ allowLocalEndpoints: true, clusterCheckIntervalMs: REAL_CLUSTER_RESYNC_MS }),
    ]);
    for (const ns of ["platform", "team-a", "web"]) await kube.kubectl("create", "namespace", ns);
    platformSa = await kube.serviceAccount("platform", "platform");
    const [platformRights, teamExample] = documentedYamlBlocks();
    assert.ok(platformRights && teamExample, "docs/gateway.md shows the platform's rights and a team's grant");
    grants = manifests(platformRights);
    await kube.apply(platformRights);
    await kube.apply(teamExample);

    // A virtual cluster as docs/clusters.md describes it, running: Service `dev` labelled
    // app=vcluster, its CA, and its workload. The workload is a Deployment, so the instance status
    // reads both workload kinds (a StatefulSet first) and needs both documented rights; the
    // kubelet stand-in makes its pod ready.
    await kube.startKubelet();
    await kube.kubectl("create", "deployment", "dev", "-n", "team-a", "--image=registry.k8s.io/pause:3.10");
    vcCa = await createCertificateAuthority("dev-vcluster-ca", 1);
    await kube.apply(
      toYaml({
        apiVersion: "v1",
        kind: "List",
        items: [
          {
            apiVersion: "v1",
            kind: "Service",
            metadata: { name: "dev", namespace: "team-a", labels: { app: "vcluster" } },
            spec: { ports: [{ port: 443 }] },
          },
          {
            apiVersion: "v1",
            kind: "Secret",
            metadata: { name: "dev-certs", namespace: "team-a" },
            stringData: { "ca.crt": vcCa.certPem, "ca.key": vcCa.keyPem },
          },
        ],
      }),
    );

    await postObject(server, "users", { metadata: { name: "alice" }, spec: { groups: ["qa"] } });
    await postObject(server, "users", { metadata: { name: "bob" }, spec: {} });
    await postObject(server, "teams", { metadata: { name: "devs" }, spec: { users: ["alice"] } });
    await postObject(server, "projects", { metadata: { name: "web" }, spec: {} });
    await putSecret(server, "prod", platformSa.kubeconfig());
    await postObject(server, "clusters", {
      metadata: { name: "prod", annotations: { "management.platform/ingress-suffix": SUFFIX } },
      spec: { config: { secretName: "prod" }, access: [{ verbs: ["use"], users: ["alice", "bob"] }] },
    });
    await kube.kubectl("rollout", "status", "deployment/dev", "-n", "team-a", "--timeout=120s");
    keys.alice = await accessKey(server, "alice");
    keys.bob = await accessKey(server, "bob");
    gateway = { url: `${server.url}${PROD}`, caPem: server.caPem ?? "", dir: server.dataDir };
  });
  after(async () => {
    await server?.stop();
    await kube?.stop();
  });

  it("with the documented rights the cluster is Connected", async () => {
    const status = await waitForStatus(server, "prod", (s) => s.phase === "Initialized");
    assert.equal(status.reason, "Connected");
  });

  describe("what the cluster's RBAC grants a platform user, through the gateway", () => {
    it("apply, get, list and delete in the namespace the team's RoleBinding covers", async () => {
      const manifest = toYaml({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "settings", namespace: "web" },
        data: { a: "1" },
      });
      const file = `${server.dataDir}/settings.yaml`;
      writeFileSync(file, manifest);
      const applied = await kubectl(keys.alice!, "apply", "-f", file);
      assert.match(applied.stdout, /configmap\/settings created/);
      // Written to the real cluster.
      const stored = JSON.parse(await kube.kubectl("get", "configmap", "settings", "-n", "web", "-o", "json"));
      assert.equal(stored.data.a, "1");

      const got = await kubectl(keys.alice!, "get", "configmap", "settings", "-n", "web", "-o", "json");
      assert.equal(JSON.parse(got.stdout).data.a, "1");
      const listed = await kubectl(keys.alice!, "get", "configmaps", "-n", "web", "-o", "name");
      assert.ok(listed.stdout.split("\n").includes("configmap/settings"), listed.stdout);
      const deleted = await kubectl(keys.alice!, "delete", "configmap", "settings", "-n", "web");
      assert.match(deleted.stdout, /configmap "settings" deleted/);
      await assert.rejects(kube.kubectl("get", "configmap", "settings", "-n", "web"), /NotFound/);
    });

    it("watch streams the cluster's changes as they happen", async () => {
      const file = writeKubeconfig(gateway.dir, gateway.url, gateway.caPem, keys.alice!);
      const args = [`--kubeconfig=${file}`, "get", "configmaps", "-n", "web", "-w", "--watch-only", "-o", "name"];
      const child = spawn(KUBECTL, args);
      let out = "";
      child.stdout.on("data", (c: Buffer) => {
        out += c.toString();
      });
      try {
        // Created until the watch (opened at some moment after the spawn) sees one of them.
        let n = 0;
        await eventually("the watch shows a ConfigMap created by the cluster admin", async () => {
          await kube.kubectl("create", "configmap", `watched-${++n}`, "-n", "web");
          await new Promise((r) => setTimeout(r, 200));
          return /configmap\/watched-\d+/.test(out);
        });
      } finally {
        child.kill();
      }
    });

    it("what RBAC does not grant is refused by the cluster, naming the impersonated user", async () => {
      const elsewhere = await refusal(keys.alice!, "get", "configmaps", "-n", "default");
      assert.match(
        elsewhere,
        /configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "default"/,
      );
      const clusterWide = await refusal(keys.alice!, "get", "namespaces");
      assert.match(clusterWide, /User "alice" cannot list resource "namespaces"/);
      // bob may use the cluster on the platform, but holds no RoleBinding on it.
      const bob = await refusal(keys.bob!, "get", "configmaps", "-n", "web");
      assert.match(bob, /User "bob" cannot list resource "configmaps" in API group "" in the namespace "web"/);
      const raw = await server.request("GET", `${PROD}/api/v1/namespaces/web/configmaps`, { token: keys.bob! });
      assert.equal(raw.status, 403, raw.text);
      assert.equal(raw.json.kind, "Status");
      assert.equal(raw.json.reason, "Forbidden");
    });

    it("a scoped key is held to its scope before anything reaches the cluster", async () => {
      const readConfigMaps = await accessKey(server, "alice", {
        rules: [
          { cluster: "prod", verbs: ["get", "list", "watch"], resources: [{ group: "", resources: ["configmaps"] }] },
        ],
      });
      const listed = await kubectl(readConfigMaps, "get", "configmaps", "-n", "web", "-o", "name");
      assert.match(listed.stdout, /configmap\/kube-root-ca.crt/);
      // RBAC would allow these; the key's scope does not.
      for (const args of [
        ["get", "secrets", "-n", "web"],
        ["delete", "configmap", "kube-root-ca.crt", "-n", "web"],
      ]) {
        const refused = await refusal(readConfigMaps, ...args);
        assert.match(refused, /the access key's scope does not allow this request/, refused);
      }
      const otherCluster = await accessKey(server, "alice", { rules: [{ cluster: "elsewhere" }] });
      assert.match(await refusal(otherCluster, "get", "configmaps", "-n", "web"), /scope/);
      const projectOnly = await accessKey(server, "alice", { projects: [{ project: "web" }] });
      assert.match(await refusal(projectOnly, "get", "configmaps", "-n", "web"), /scope/);
    });

    it("kubectl auth can-i answers from the cluster's RBAC for the caller", async () => {
      const can = (token: string, ...args: string[]) =>
        kubectl(token, "auth", "can-i", ...args).then(
          (r) => r.stdout.trim(),
          (err: { stdout?: string }) => String(err.stdout).trim(),
        );
      assert.equal(await can(keys.alice!, "create", "configmaps", "-n", "web"), "yes");
      assert.equal(await can(keys.alice!, "delete", "deployments.apps", "-n", "web"), "yes");
      assert.equal(await can(keys.alice!, "create", "configmaps", "-n", "default"), "no");
      assert.equal(await can(keys.alice!, "impersonate", "users"), "no");
      assert.equal(await can(keys.bob!, "get", "configmaps", "-n", "web"), "no");
    });

    it("the cluster sees only the impersonated identity: the user, her groups and teams, never the platform's account", async () => {
      const who = JSON.parse((await kubectl(keys.alice!, "auth", "whoami", "-o", "json")).stdout);
      assert.equal(who.status.userInfo.username, "alice");
      assert.deepEqual([...who.status.userInfo.groups].sort(), ["platform:team:devs", "qa", "system:authenticated"]);
      assert.equal(who.status.userInfo.extra, undefined);
      // Impersonation headers of the caller's own are refused before anything reaches the cluster.
      const asMaster = await server.request("GET", `${PROD}/api/v1/namespaces/default/configmaps`, {
        token: keys.alice!,
        headers: { "impersonate-group": "system:masters" },
      });
      assert.equal(asMaster.status, 403, asMaster.text);
      assert.match(asMaster.json.message, /alice/);
      // An admin's `kubectl --as` reaches the cluster as that platform user.
      const asBob = JSON.parse(
        (await kubectlAt(gateway, server.adminKey, ["--as", "bob", "auth", "whoami", "-o", "json"])).stdout,
      );
      assert.equal(asBob.status.userInfo.username, "bob");
    });
  });

  describe("virtual clusters on the real cluster", () => {
    it("import finds the Service and keeps the CA from the `<name>-certs` Secret", async () => {
      const res = await importVc("dev");
      assert.equal(res.status, 201, res.text);
      const uid = await kube.kubectl("get", "service", "dev", "-n", "team-a", "-o", "jsonpath={.metadata.uid}");
      const instance = await server.request("GET", `${GROUP_PATH}/namespaces/p-web/virtualclusterinstances/dev`);
      assert.equal(instance.json.status.serviceUID, uid);
      assert.equal(instance.json.status.phase, "Ready");

      const kc = await kubeConfigOf("dev");
      assert.equal(kc.status, 201, kc.text);
      const doc = parse(kc.json.status.kubeConfig);
      assert.equal(
        Buffer.from(doc.clusters[0].cluster["certificate-authority-data"], "base64").toString(),
        vcCa.certPem,
      );
      const cert = new X509Certificate(Buffer.from(doc.users[0].user["client-certificate-data"], "base64"));
      assert.ok(cert.verify(new X509Certificate(vcCa.certPem).publicKey), "signed by the virtual cluster's CA");
    });

    it("a Service without the app=vcluster label is no virtual cluster: 404", async () => {
      await kube.kubectl("create", "service", "clusterip", "plain", "--tcp=443", "-n", "team-a");
      const res = await server.request("POST", `${GROUP_PATH}/projects/web/importvirtualcluster`, {
        body: {
          apiVersion: "management.platform/v1",
          kind: "ProjectImportVirtualCluster",
          metadata: { name: "web" },
          sourceVirtualCluster: { name: "plain", namespace: "team-a", cluster: "prod" },
        },
      });
      assert.equal(res.status, 404, res.text);
      assert.match(res.json.message, /virtual cluster team-a\/plain was not found on cluster "prod"/);
    });
  });

  describe("the rights docs/gateway.md tells a cluster admin to grant", () => {
    /**
     * Each thing the platform does with the cluster's credentials, and whether it works now:
     * the gateway (impersonation), the health check (services in the management namespace),
     * finding a virtual cluster (services in its namespace: a second import of `dev` reaches
     * the "already imported" answer only after finding it), reading a virtual cluster's CA (the
     * kube config of an instance that was not imported reads its `<name>-certs` Secret), and
     * its status (the status controller reads its Service and looks for its StatefulSet, then
     * its Deployment: `dev` has neither, so both reads happen; ClusterReachable is True only when
     * every read was allowed).
     */
    const failingOperations = async (): Promise<string[]> => {
      const failing: string[] = [];
      const gw = await server.request("GET", `${PROD}/api/v1/namespaces/web/configmaps`, { token: keys.alice! });
      if (gw.status !== 200) failing.push(`gateway ${gw.status}`);
      const cluster = await server.request("GET", `${GROUP_PATH}/clusters/prod`);
      if (cluster.json.status?.reason !== "Connected") failing.push(`health ${cluster.json.status?.reason}`);
      const again = await importVc("dev-again");
      if (again.status !== 409) failing.push(`import ${again.status}`);
      const kc = await kubeConfigOf("direct");
      if (kc.status !== 201) failing.push(`kubeconfig ${kc.status}`);
      const direct = await server.request("GET", `${GROUP_PATH}/namespaces/p-web/virtualclusterinstances/direct`);
      const reachable = direct.json.status?.conditions?.find((c: { type: string }) => c.type === "ClusterReachable");
      if (reachable?.status !== "True") failing.push(`instance status ${reachable?.reason}`);
      return failing;
    };

    before(async () => {
      const created = await server.request("POST", `${GROUP_PATH}/namespaces/p-web/virtualclusterinstances`, {
        body: {
          metadata: { name: "direct" },
          spec: { clusterRef: { cluster: "prod", namespace: "team-a", virtualCluster: "dev" } },
        },
      });
      assert.equal(created.status, 201, created.text);
      // Its status is the status controller's, written after the create: its first look at the
      // cluster is waited for (whatever it found), or the checks below could read no status yet.
      await eventually("the status controller's first look at instance direct", async () => {
        const direct = await server.request("GET", `${GROUP_PATH}/namespaces/p-web/virtualclusterinstances/direct`);
        return direct.json.status?.conditions?.some((c: { type: string }) => c.type === "ClusterReachable") === true;
      });
    });

    it("are enough: everything the platform does with the cluster works", async () => {
      assert.deepEqual(await failingOperations(), []);
    });

    it("are all needed: taking any one away breaks something, and putting it back mends it", async () => {
      const variants = eachRightRemoved(grants);
      assert.ok(variants.length >= 5, variants.map((v) => v.missing).join("; "));
      for (const variant of variants) {
        await kube.apply(toYaml(variant.role));
        let broken: string[] = [];
        await eventually(`something breaks without ${variant.missing}`, async () => {
          broken = await failingOperations();
          return broken.length > 0;
        });
        await kube.apply(toYaml(variant.original));
        await eventually(`everything works again with ${variant.missing}`, async () => {
          return (await failingOperations()).length === 0;
        });
      }
    });

    it("grant nothing more: no other Secret, no writes, no ServiceAccount impersonation", async () => {
      const can = (...args: string[]) =>
        platformSa.kubectl("auth", "can-i", ...args).then(
          (out) => out.trim(),
          (err: { stdout?: string }) => String(err.stdout).trim(),
        );
      assert.equal(await can("get", "secrets", "-n", "team-a"), "yes");
      for (const denied of [
        ["get", "secrets", "-n", "platform"],
        ["get", "secrets", "-n", "default"],
        ["list", "secrets", "-n", "team-a"],
        ["watch", "secrets", "-n", "team-a"],
        ["get", "secrets", "-A"],
        ["create", "services", "-n", "team-a"],
        ["delete", "configmaps", "-n", "web"],
        ["impersonate", "serviceaccounts", "-n", "kube-system"],
        ["create", "clusterrolebindings"],
      ]) {
        assert.equal(await can(...denied), "no", `the platform's account may ${denied.join(" ")}`);
      }
    });
  });

  describe("when the cluster cannot be used", () => {
    it("an API server that is down gives 503 ClusterUnreachable, and the gateway recovers when it is back", async () => {
      await kube.stopApiServer();
      try {
        const down = await server.request("GET", `${PROD}/api/v1/namespaces/web/configmaps`, { token: keys.alice! });
        assert.equal(down.status, 503, down.text);
        assert.equal(down.json.kind, "Status");
        assert.match(down.json.message, /cannot be used \(ClusterUnreachable\)/);
      } finally {
        await kube.startApiServer();
      }
      // Ready (/readyz) is not yet every answer as before: just after a start, the cluster's
      // authenticator and authorizer may refuse the platform's account for a moment.
      let stdout = "";
      await eventually("the gateway forwarding again", async () => {
        stdout = await kubectl(keys.alice!, "get", "configmaps", "-n", "web", "-o", "name").then(
          (r) => r.stdout,
          () => "",
        );
        return stdout !== "";
      });
      assert.match(stdout, /configmap\/kube-root-ca.crt/);
    });

    it("credentials the cluster stops accepting give 503 Unauthorized, not the cluster's 401", async () => {
      const doomed = await kube.serviceAccount("platform", "doomed");
      await kube.grant(doomed, { clusterRole: "platform-gateway-impersonator" });
      await putSecret(server, "doomed", doomed.kubeconfig());
      await postObject(server, "clusters", {
        metadata: { name: "doomed" },
        spec: { config: { secretName: "doomed" }, access: [{ verbs: ["use"], users: ["alice"] }] },
      });
      const get = () =>
        server.request("GET", "/kubernetes/cluster/doomed/api/v1/namespaces/web/configmaps", { token: keys.alice! });
      // The account's impersonation right reaches the cluster's authorizer through its watch.
      await eventually("the new account's credentials working", async () => (await get()).status === 200);
      await kube.kubectl("delete", "serviceaccount", "doomed", "-n", "platform");
      // kube-apiserver remembers a token it accepted for a while after it is revoked.
      await eventually("the revoked token is refused", async () => (await get()).status !== 200);
      const res = await get();
      assert.equal(res.status, 503, res.text);
      assert.match(res.json.message, /^cluster "doomed" cannot be used \(Unauthorized\)/);
    });
  });
});
