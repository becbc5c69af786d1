import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { parse } from "yaml";
import { INGRESS_SUFFIX_ANNOTATION } from "../api/endpoint-annotations.js";
import { putSecret } from "../testing/cluster-status.js";
import { DOCUMENTED_ADDRESS, type DocsWorkspace, DocumentedPage, docsWorkspace } from "../testing/documented-page.js";
import type { ShellRun } from "../testing/documented-shell.js";
import { postObject } from "../testing/gateway-fixture.js";
import { KubeControlPlane } from "../testing/kube-control-plane.js";
import {
  applyDocumentedPlatformRights,
  REAL_CLUSTER_RESYNC_MS,
  waitForAuthorizer,
} from "../testing/platform-on-control-plane.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";
import { waitFor } from "../testing/wait-for.js";

/**
 * The shell examples of docs/virtual-clusters.md, run as written, in page order, by bash in a
 * directory whose `data` is the server's data directory (as `platform start --data-dir ./data`
 * makes it). Only the server's address is put in for the page's `https://127.0.0.1:8443`, as the
 * page says to. The connected cluster `prod` the page assumes is the real test control plane,
 * holding the rights docs/gateway.md lists; its pods are made ready by the kubelet stand-in (no
 * container runs here).
 */

const DOC = "docs/virtual-clusters.md";
const INSTANCES = `${GROUP_PATH}/namespaces/p-web/virtualclusterinstances`;

describe("docs/virtual-clusters.md: its shell examples run as written", () => {
  let kube: KubeControlPlane;
  let server: TestServer;
  let workspace: DocsWorkspace;
  const page = new DocumentedPage(
    DOC,
    () => workspace,
    () => [[DOCUMENTED_ADDRESS, server.url]],
  );

  /**
   * Runs the page's block containing `marker` after the setup block's variables, as a reader who
   * pasted the setup block first; fails the test when any command in it fails. A block the page
   * tells the connected cluster's admin to run goes to that cluster (`onCluster`), with its
   * admin's kube config instead of the platform's.
   */
  function runBlock(marker: string, { onCluster = false } = {}): Promise<ShellRun> {
    return onCluster
      ? page.run(marker, { env: { KUBECONFIG: kube.adminKubeconfig } })
      : page.run(marker, { prelude: page.variables("export KUBECONFIG=data/admin.kubeconfig") });
  }

  /** One value of a Secret on the cluster, decoded. */
  const secretValue = async (namespace: string, name: string, key: string) =>
    Buffer.from(
      await kube.kubectl("get", "secret", name, "-n", namespace, "-o", `jsonpath={.data.${key}}`),
      "base64",
    ).toString();
  const instance = async (name: string) => (await server.request("GET", `${INSTANCES}/${name}`)).json;

  before(async () => {
    [kube, server] = await Promise.all([
      KubeControlPlane.start(),
      startTestServer({ clusterCheckIntervalMs: REAL_CLUSTER_RESYNC_MS, allowLocalEndpoints: true }),
    ]);
    const platform = await applyDocumentedPlatformRights(kube, true);
    await kube.startKubelet();
    // The connected cluster `prod`, as docs/clusters.md connects one (with the ingress suffix the
    // kube config example needs).
    await putSecret(server, "prod", platform.kubeconfig());
    await postObject(server, "clusters", {
      metadata: { name: "prod", annotations: { [INGRESS_SUFFIX_ANNOTATION]: "vcluster.example.com" } },
      spec: { config: { secretName: "prod" } },
    });

    workspace = await docsWorkspace(server, "platform-vc-docs-");
  });
  after(async () => {
    await server?.stop();
    await kube?.stop();
  });

  it("the setup and a template of one's own: the project and both versions of tiny are there", async () => {
    await runBlock("export KUBECONFIG=data/admin.kubeconfig");
    const listed = await runBlock("kubectl get virtualclustertemplates");
    assert.match(listed.stdout, /^default\s+1\.0\.0\s/m);
    await runBlock("kind: VirtualClusterTemplate");
    const tiny = (await server.request("GET", `${GROUP_PATH}/virtualclustertemplates/tiny`)).json;
    assert.deepEqual(
      tiny.spec.versions.map((v: { version: string }) => v.version),
      ["1.0.0", "1.1.0"],
    );
  });

  it("the cluster admin's patch for templates writing other kinds gives the platform's account those kinds", async () => {
    const canI = () =>
      kube.kubectl(
        "auth",
        "can-i",
        "patch",
        "configmaps",
        "-n",
        "p-web-v-dev",
        "--as=system:serviceaccount:platform:platform",
      );
    await assert.rejects(
      canI(),
      (e: { stdout?: string }) => e.stdout?.trim() === "no",
      "the documented deploy rights leave ConfigMaps out",
    );
    await runBlock('"resources": ["configmaps"]', { onCluster: true });
    // The cluster's authorizer sees the patched role through its own watch, a moment after the write.
    await waitForAuthorizer(
      (...args) => kube.kubectl(...args),
      true,
      "patch",
      "configmaps",
      "-n",
      "p-web-v-dev",
      "--as=system:serviceaccount:platform:platform",
    );
  });

  it("an instance of tiny lands where the page says; as the page warns, it deploys no virtual cluster", async () => {
    const run = await runBlock('templateRef: {name: tiny, version: "1.0.0"}');
    const printed = page.block('templateRef: {name: tiny, version: "1.0.0"}').match(/^# (\{.*\})$/m)?.[1];
    assert.ok(printed, "the page shows what kubectl prints");
    // kubectl create says what it made; the get prints the line the page shows.
    assert.deepEqual(JSON.parse(run.stdout.trim().split("\n").at(-1) ?? ""), JSON.parse(printed));
    const failed = await waitFor(
      "dev's deployed phase",
      async () => (await instance("dev")).status ?? {},
      (s) => s.phase === "Failed",
    );
    assert.equal(failed.reason, "ServiceNotFound", JSON.stringify(failed));
    assert.equal(failed.deployed?.template, "tiny");
    assert.equal(await secretValue("p-web-v-dev", "dev-hello", "say"), "hi");
  });

  it("a second instance in dev's namespace is refused as the page shows it", async () => {
    const marker = "metadata: {name: dev-again";
    const run = await page.run(marker, {
      prelude: page.variables("export KUBECONFIG=data/admin.kubeconfig"),
      exitCode: 1,
    });
    const shown = page.block(marker).match(/^# (Error from server \(Conflict\): .*)$/m)?.[1];
    assert.ok(shown, "the page shows kubectl's refusal");
    assert.equal(run.stderr.trim(), shown);
    assert.equal((await server.request("GET", `${INSTANCES}/dev-again`)).status, 404);
  });

  it("an instance created without an owner is its creator's", async () => {
    const run = await runBlock("metadata: {name: mine");
    // The page shows alice's; here the admin created it.
    assert.deepEqual(JSON.parse(run.stdout.trim().split("\n").at(-1) ?? ""), { user: "admin" });
  });

  it("the CLI's example creates an instance of the default template, waits for Ready, lists and deletes it", async () => {
    const run = await runBlock("platform list templates");
    assert.match(run.stdout, /^vcluster qa created in project web$/m);
    assert.match(run.stderr, /^vcluster qa: Ready /m);
    assert.match(run.stdout, /^qa\s+prod\s+Ready\s+default\s/m);
    assert.match(run.stdout, /^vcluster qa in project web deleted$/m);
    await waitFor(
      "qa to go",
      async () => (await server.request("GET", `${INSTANCES}/qa`)).status,
      (s) => s === 404,
    );
  });

  it("an inline template is deployed as the page shows it", async () => {
    await runBlock("metadata: {name: experiment");
    const ready = await waitFor(
      "experiment to be deployed",
      async () => (await instance("experiment")).status ?? {},
      (s) => s.deployed !== undefined,
    );
    assert.equal(ready.deployed.template ?? "", "");
    assert.equal(await secretValue("p-web-v-experiment", "experiment-note", "project"), "web");
  });

  it("the default template's images: the page's patch lists the mirror beside the shipped image", async () => {
    const options = async () => {
      const template = await server.request("GET", `${GROUP_PATH}/virtualclustertemplates/default`);
      return template.json.spec.versions[0].parameters.find((p: { name: string }) => p.name === "image").options;
    };
    assert.deepEqual(await options(), ["ghcr.io/loft-sh/vcluster-oss"]);
    await runBlock("kubectl patch virtualclustertemplate default");
    assert.deepEqual(await options(), ["ghcr.io/loft-sh/vcluster-oss", "registry.example.com/mirror/vcluster-oss"]);
  });

  it("the project's template rules apply, and refuse another template with the page's message", async () => {
    await runBlock("kubectl patch project web");
    const refused = await server.request("POST", INSTANCES, {
      body: {
        metadata: { name: "other" },
        spec: { clusterRef: { cluster: "prod" }, templateRef: { name: "default" } },
      },
    });
    assert.equal(refused.status, 422, refused.text);
    const quoted = readFileSync(DOC, "utf8")
      .match(/`(spec\.templateRef\.name: Forbidden: template "default"[^`]*)`/)?.[1]
      ?.replace(/\s*\n\s*/g, " ");
    assert.ok(quoted, "the page quotes the refusal");
    assert.ok(refused.json.message.includes(quoted), `${refused.json.message}\ndoes not say\n${quoted}`);
  });

  it("the kube config example writes one for dev, at its ingress address, without asking the cluster", async () => {
    await runBlock("/kubeconfig");
    const config = parse(readFileSync(join(workspace.dir, "dev.kubeconfig"), "utf8"));
    assert.equal(config.clusters[0].cluster.server, "https://dev.web.vcluster.example.com");
  });

  it("a client's status write keeps what the platform deployed, and the controller writes its phase again", async () => {
    const run = await runBlock("--subresource status");
    assert.match(run.stdout, /^1\.0\.0 /m, "status.deployed kept");
    await waitFor(
      "the controller's phase again",
      async () => (await instance("dev")).status ?? {},
      (s) => s.reason === "ServiceNotFound",
    );
  });

  it("a template change redeploys the instance following the newest version, not the pinned one", async () => {
    await runBlock('"version": "2.0.0"');
    const ci = await waitFor(
      "ci on 2.0.0",
      async () => (await instance("ci")).status ?? {},
      (s) => s.deployed?.version === "2.0.0",
    );
    assert.equal(ci.deployed.template, "tiny");
    assert.equal(await secretValue("p-web-v-ci", "ci-hello", "say"), "hello, again");
    assert.equal((await instance("dev")).status?.deployed?.version, "1.0.0");
  });

  it("the rights inside and sleep mode examples run: access rules, sleepAfter, sleep and wake by hand", async () => {
    await runBlock("clusterRole: view}");
    const withAccess = await instance("dev");
    assert.deepEqual(
      withAccess.spec.access.map((r: { users?: string[]; teams?: string[] }) => [
        ...(r.users ?? []),
        ...(r.teams ?? []),
      ]),
      [["alice"], ["qa"]],
    );
    await runBlock('"sleepAfter":3600');
    assert.equal((await instance("dev")).spec.sleepAfter, 3600);
    const slept = await runBlock("platform sleep vcluster dev");
    assert.match(slept.stdout, /^vcluster dev in project web is going to sleep$/m);
    assert.match(slept.stdout, /^vcluster dev in project web is waking up$/m);
    // The curl lines print the Status each action answers.
    assert.match(slept.stdout, /"message":"virtual cluster instance p-web\/dev is going to sleep"/);
  });

  it("the endpoint settings the page shows are written as shown", async () => {
    await runBlock("management.platform/virtual-cluster-endpoint=https://dev.vc.example.com");
    const annotations = (await instance("dev")).metadata.annotations ?? {};
    assert.equal(annotations["management.platform/virtual-cluster-endpoint"], "https://dev.vc.example.com");
    const prod = (await server.request("GET", "/kubernetes/management/apis/management.platform/v1/clusters/prod")).json;
    assert.equal(prod.metadata.annotations[INGRESS_SUFFIX_ANNOTATION], "vcluster.example.com");
  });

  it("force removal as the page shows it: with its cluster gone the delete waits, and the patch drops the record alone", async () => {
    const gone = await server.request("DELETE", `${GROUP_PATH}/clusters/prod`);
    assert.equal(gone.status, 200, gone.text);
    const deleted = await server.request("DELETE", `${INSTANCES}/dev`);
    assert.equal(deleted.status, 200, deleted.text);
    const waiting = await waitFor(
      "dev to wait for its cluster",
      async () => (await instance("dev")).status ?? {},
      (s) => s.phase === "Deleting" && s.reason === "ClusterNotFound",
    );
    // The status says what the page does: remove the finalizer to drop the record alone.
    assert.match(
      waiting.message,
      /remove the finalizer management\.platform\/virtual-cluster-cleanup to drop this record alone/,
    );
    await runBlock('"path":"/metadata/finalizers"');
    await waitFor(
      "dev to go",
      async () => (await server.request("GET", `${INSTANCES}/dev`)).status,
      (s) => s === 404,
    );
    // The record alone: what was deployed stays on the cluster.
    assert.equal(
      (await kube.kubectl("get", "secret", "dev-hello", "-n", "p-web-v-dev", "-o", "name")).trim(),
      "secret/dev-hello",
    );
  });

  it("every shell example of the page was run, but the two it marks as other users' requests (their refusals)", () => {
    assert.deepEqual(page.leftOut(), []);
    assert.equal(page.notRunReasons().length, 2);
  });
});
