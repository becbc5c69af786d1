import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request as httpsRequest } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { documentedYamlBlocks } from "../testing/documented-rights.js";
import { type KubectlTarget, kubectlAt } from "../testing/gateway-fixture.js";
import { type InPodServer, startServerInPod } from "../testing/in-pod-server.js";
import { KubeControlPlane } from "../testing/kube-control-plane.js";
import { callAsAdmin } from "../testing/server-process.js";
import { GROUP_PATH } from "../testing/test-server.js";
import { waitFor } from "../testing/wait-for.js";

/**
 * `spec.local: true` on a real Kubernetes control plane: the platform runs as if in a pod of the
 * cluster (its ServiceAccount's token file and KUBERNETES_SERVICE_HOST/PORT, see
 * testing/in-pod-server.ts), that ServiceAccount holds the rights docs/gateway.md lists, and the
 * Cluster needs no kubeconfig: the health check and the gateway use the pod's identity.
 */
describe("a local cluster (spec.local: true) from inside a pod of it", () => {
  let kube: KubeControlPlane;
  let server: InPodServer;
  let gateway: KubectlTarget;
  let aliceKey: string;
  const dir = mkdtempSync(join(tmpdir(), "platform-in-pod-"));

  const api = async (method: string, path: string, body?: unknown) => {
    const res = await callAsAdmin(server, false, method, `${GROUP_PATH}/${path}`, body);
    return { status: res.status, json: JSON.parse(res.text) };
  };
  const create = async (path: string, body: unknown) => {
    const res = await api("POST", path, body);
    assert.equal(res.status, 201, JSON.stringify(res.json));
    return res.json;
  };
  /** Polls the Cluster until its status matches: a guard against hanging, not a timing assertion. */
  const waitForStatus = async (name: string, want: (s: Record<string, unknown>) => boolean) => {
    let last: Record<string, unknown> = {};
    for (let i = 0; i < 600; i++) {
      last = (await api("GET", `clusters/${name}`)).json.status ?? {};
      if (want(last)) return last;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.fail(`cluster ${name} never reached the expected status; last: ${JSON.stringify(last)}`);
  };

  /**
   * A token of the pod's ServiceAccount bound to a Secret of that name (created here): deleting the
   * Secret revokes the token, as the end of its lifetime would.
   */
  const boundToken = async (secret: string) => {
    await kube.kubectl("create", "secret", "generic", secret, "-n", "platform");
    const args = ["create", "token", "platform", "-n", "platform", "--bound-object-kind=Secret"];
    return (await kube.kubectl(...args, `--bound-object-name=${secret}`)).trim();
  };

  /** The API server's answer to `GET /version` with `token`: 401 once the token is no longer valid. */
  const versionStatus = (token: string) =>
    new Promise<number>((resolve, reject) => {
      const req = httpsRequest(
        `${kube.url}/version`,
        { ca: kube.caPem, agent: false, headers: { authorization: `Bearer ${token}` } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.end();
    });

  before(async () => {
    kube = await KubeControlPlane.start();
    for (const ns of ["platform", "team-a", "web"]) await kube.kubectl("create", "namespace", ns);
    await kube.serviceAccount("platform", "platform");
    const [platformRights, teamExample] = documentedYamlBlocks();
    await kube.apply(platformRights!);
    await kube.apply(teamExample!);
    const token = await boundToken("token-1");
    server = await startServerInPod(kube, dir, token, "platform", ["--allow-local-endpoints"]);
    gateway = { url: `${server.url}/kubernetes/cluster/here`, caPem: server.caPem, dir };
    await create("users", { metadata: { name: "alice" }, spec: { groups: ["qa"] } });
    await create("teams", { metadata: { name: "devs" }, spec: { users: ["alice"] } });
    aliceKey = (await create("ownedaccesskeys", { metadata: { generateName: "alice-" }, spec: { user: "alice" } })).spec
      .key;
  });
  after(async () => {
    if (server) {
      server.child.kill("SIGTERM");
      await server.exited;
    }
    await kube?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("the health check connects with the pod's ServiceAccount to KUBERNETES_SERVICE_HOST", async () => {
    await create("clusters", {
      metadata: { name: "here" },
      spec: { local: true, access: [{ verbs: ["use"], users: ["alice"] }] },
    });
    const status = await waitForStatus("here", (s) => s.phase !== undefined && s.phase !== "Pending");
    assert.equal(status.reason, "Connected", JSON.stringify(status));
    assert.equal(status.message, `connected to Kubernetes ${kube.version} at ${kube.url}`);
  });

  it("the gateway forwards as the caller, impersonated by the pod's ServiceAccount", async () => {
    const who = JSON.parse((await kubectlAt(gateway, aliceKey, ["auth", "whoami", "-o", "json"])).stdout);
    assert.equal(who.status.userInfo.username, "alice");
    assert.deepEqual([...who.status.userInfo.groups].sort(), ["platform:team:devs", "qa", "system:authenticated"]);
    await kube.kubectl("create", "configmap", "settings", "-n", "web", "--from-literal=a=1");
    const got = await kubectlAt(gateway, aliceKey, ["get", "configmap", "settings", "-n", "web", "-o", "json"]);
    assert.equal(JSON.parse(got.stdout).data.a, "1");
    await assert.rejects(
      kubectlAt(gateway, aliceKey, ["get", "configmaps", "-n", "default"]),
      /User "alice" cannot list resource "configmaps" in API group "" in the namespace "default"/,
    );
  });

  it("the pod's ServiceAccount losing its rights is what the cluster refuses", async () => {
    await kube.kubectl("delete", "clusterrolebinding", "platform-gateway-impersonator");
    try {
      let last = "";
      for (let i = 0; i < 300 && !/cannot impersonate/.test(last); i++) {
        last = await kubectlAt(gateway, aliceKey, ["get", "configmaps", "-n", "web"]).then(
          () => "",
          (err: { stderr?: string }) => String(err.stderr),
        );
        if (!last) await new Promise((r) => setTimeout(r, 100));
      }
      assert.match(last, /User "system:serviceaccount:platform:platform" cannot impersonate resource "users"/);
    } finally {
      await kube.apply(documentedYamlBlocks()[0]!);
    }
  });

  it("a rotated token file is used once it changes, as the kubelet rotates it", async () => {
    const settings = () =>
      kubectlAt(gateway, aliceKey, ["get", "configmap", "settings", "-n", "web", "-o", "name"]).then(
        (r) => r.stdout.trim(),
        (err: { stderr?: string }) => String(err.stderr),
      );
    // The impersonation right given back by the test before: the cluster's authorizer sees the
    // binding through its own watch, so the gateway is waited for, not asked once.
    await waitFor("the gateway forwarding again", settings, (v) => v === "configmap/settings");
    const tokenFile = join(server.serviceAccountDir, "token");
    const oldToken = readFileSync(tokenFile, "utf8");
    // The kubelet writes a new token; the old one then stops being valid.
    writeFileSync(tokenFile, await boundToken("token-2"));
    await kube.kubectl("delete", "secret", "token-1", "-n", "platform");
    // kube-apiserver remembers tokens it accepted for a while: wait until it refuses the old one.
    for (let i = 0; i < 600 && (await versionStatus(oldToken)) !== 401; i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(await versionStatus(oldToken), 401, "the old token is revoked");
    assert.equal(await settings(), "configmap/settings");
  });
});
