import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type CliRun, loggedInHome, runCli } from "../testing/cli-run.js";
import type { KubeControlPlane } from "../testing/kube-control-plane.js";
import { documentedPlatformRole, startPlatformOnControlPlane } from "../testing/platform-on-control-plane.js";
import { GROUP_PATH, type TestServer, userWithKey } from "../testing/test-server.js";

/**
 * `create|delete vcluster`, `create|delete|list space`, `list vclusters|templates` as a project
 * member runs them, against a real server connected to the real test control plane: the virtual
 * cluster is deployed from the default template, and its StatefulSet becomes ready through
 * kube-controller-manager and pods the kubelet stand-in reports ready (no container runs here).
 */
describe("platform create|delete|list vcluster and space", () => {
  let server: TestServer;
  let kube: KubeControlPlane;
  let home: string;
  const cli = (args: string[]): Promise<CliRun> => runCli(home, args);
  /** `platform create <kind> <name>` in project web on cluster c1, with the flags `more`. */
  const createInWeb = (kind: string, name: string, ...more: string[]) =>
    cli(["create", kind, name, "--project", "web", "--cluster", "c1", ...more]);
  const get = (path: string) => server.request("GET", `${GROUP_PATH}/${path}`);

  before(async () => {
    const started = await startPlatformOnControlPlane({
      cluster: "c1",
      clusterSpec: { access: [{ verbs: ["get", "use"], users: ["alice"] }] },
      kubelet: true,
    });
    ({ kube, server } = started);
    // And the rights docs/spaces.md tells a cluster admin to grant for spaces.
    await kube.grant(started.platform, { rules: documentedPlatformRole("docs/spaces.md") });
    const aliceKey = await userWithKey(server, "alice");
    const post = async (path: string, body: unknown) => {
      const res = await server.request("POST", `${GROUP_PATH}/${path}`, { body });
      assert.equal(res.status, 201, res.text);
    };
    await post("projects", { metadata: { name: "web" }, spec: { members: [{ kind: "User", name: "alice" }] } });
    await post("projects", { metadata: { name: "shop" }, spec: {} });
    // A namespace project web holds as a space (made by hand, imported by the admin): alice may
    // point an instance without a template there (docs/virtual-clusters.md, "Instances without a
    // template"); anywhere else that needs `administer` on the cluster.
    await kube.kubectl("create", "namespace", "vc-home");
    await post("projects/web/importspace", {
      apiVersion: "management.platform/v1",
      kind: "ProjectImportSpace",
      sourceSpace: { name: "vc-home", cluster: "c1", importName: "vc-home" },
    });
    // A number parameter for each template kind, which alice may use.
    const replicas = { name: "replicas", type: "number", default: "1" };
    await post("virtualclustertemplates", {
      metadata: { name: "sized" },
      spec: {
        versions: [
          {
            version: "1.0.0",
            parameters: [replicas],
            objects: [{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" } }],
          },
        ],
        access: [{ verbs: ["get", "use"], users: ["alice"] }],
      },
    });
    await post("spacetemplates", {
      metadata: { name: "sized" },
      spec: {
        parameters: [replicas],
        template: { objects: [{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" } }] },
        access: [{ verbs: ["get", "use"], users: ["alice"] }],
      },
    });
    home = await loggedInHome(server, aliceKey, { prefix: "platform-instances-", reuseKey: true });
  });
  after(async () => {
    await server.stop();
    await kube.stop();
  });

  it("create vcluster sends template, version and parameters, and waits for Ready with a progress line", async () => {
    const r = await createInWeb(
      "vcluster",
      "dev",
      "--template",
      "default",
      "--template-version",
      "1.0.0",
      "--set",
      "serviceType=NodePort",
      "--timeout",
      "2m",
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^vcluster dev created in project web$/m);
    assert.match(r.stderr, /^vcluster dev: Ready \(.*1 of 1 replicas ready\)$/m);
    const stored = (await get("namespaces/p-web/virtualclusterinstances/dev")).json;
    assert.deepEqual(stored.spec.templateRef, { name: "default", version: "1.0.0" });
    assert.deepEqual(stored.spec.parameters, { serviceType: "NodePort" });
    assert.equal(stored.status.phase, "Ready");
  });

  it("create vcluster gives up after --timeout with the last phase and its reason, and keeps the instance", async () => {
    const r = await createInWeb("vcluster", "ghost", "--namespace", "vc-home", "--timeout", "3s");
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stderr, /gave up waiting after 3s, the last phase seen: vcluster ghost: (Pending|Failed)/);
    assert.equal((await get("namespaces/p-web/virtualclusterinstances/ghost")).status, 200);
  });

  it("create vcluster --no-wait returns at once; a bad parameter is the server's field error", async () => {
    const r = await createInWeb("vcluster", "quick", "--namespace", "vc-home", "--no-wait", "-o", "json");
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).metadata.name, "quick");
    assert.equal(r.stderr, "");
    const bad = await createInWeb("vcluster", "bad", "--template", "default", "--set", "serviceType=Nope", "--no-wait");
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /spec\.parameters\.serviceType/);
    const usage = await cli(["create", "vcluster", "bad", "--project", "web", "--set", "serviceType"]);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /--set must be KEY=VALUE/);
  });

  it("a parameter the template lacks, or a value of the wrong type, is refused naming it, for vcluster and space alike", async () => {
    for (const kind of ["vcluster", "space"]) {
      const create = (set: string) => createInWeb(kind, "refused", "--template", "sized", "--set", set);
      const unknown = await create("nosuch=1");
      assert.equal(unknown.code, 1, unknown.stdout);
      assert.match(
        unknown.stderr,
        /spec\.parameters\.nosuch: Unsupported value: "nosuch": the template has no such parameter \(its parameters: replicas\)/,
        kind,
      );
      const wrongType = await create("replicas=many");
      assert.equal(wrongType.code, 1, wrongType.stdout);
      assert.match(wrongType.stderr, /spec\.parameters\.replicas: Invalid value: "many": must be a number/, kind);
    }
    assert.equal((await get("namespaces/p-web/virtualclusterinstances/refused")).status, 404);
    assert.equal((await get("namespaces/p-web/spaceinstances/refused")).status, 404);
  });

  it("list vclusters shows phase and template; list templates the default one", async () => {
    const r = await cli(["list", "vclusters", "--project", "web"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^NAME\s+CLUSTER\s+PHASE\s+TEMPLATE\s+AGE$/m);
    assert.match(r.stdout, /^dev\s+c1\s+Ready\s+default@1\.0\.0\s/m);
    const t = await cli(["list", "templates"]);
    assert.equal(t.code, 0, t.stderr);
    assert.match(t.stdout, /^default\s+1\.0\.0\s+1\.0\.0\s/m);
  });

  it("a project the caller is not a member of refuses them", async () => {
    const r = await cli(["create", "vcluster", "x", "--project", "shop", "--cluster", "c1", "--no-wait"]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /forbidden|cannot create/i);
    const s = await cli(["create", "space", "x", "--project", "shop", "--cluster", "c1"]);
    assert.equal(s.code, 1);
    assert.match(s.stderr, /cannot create/);
  });

  it("create space waits for Ready with a progress line; list and delete it", async () => {
    const c = await createInWeb("space", "web-dev", "--namespace", "web-dev-ns", "--timeout", "2m");
    assert.equal(c.code, 0, c.stderr);
    assert.match(c.stdout, /^space web-dev created in project web$/m);
    assert.match(c.stderr, /^space web-dev: Ready$/m);
    const stored = (await get("namespaces/p-web/spaceinstances/web-dev")).json;
    assert.deepEqual(stored.spec.clusterRef, { cluster: "c1", namespace: "web-dev-ns" });
    assert.deepEqual(stored.spec.owner, { user: "alice" });
    assert.equal(stored.status.phase, "Ready");
    assert.equal(await kube.kubectl("get", "namespace", "web-dev-ns", "-o", "name"), "namespace/web-dev-ns\n");
    const l = await cli(["list", "spaces"]);
    assert.equal(l.code, 0, l.stderr);
    assert.match(l.stdout, /^web\s+web-dev\s+c1\s+web-dev-ns\s+Ready\s/m);
    const d = await cli(["delete", "space", "web-dev", "--project", "web"]);
    assert.equal(d.code, 0, d.stderr);
    assert.match(d.stdout, /^space web-dev in project web deleted$/m);
    const missing = await cli(["delete", "space", "web-dev", "--project", "web"]);
    // Its finalizer keeps it until the space controller removed the namespace; a second delete
    // finds it terminating or gone, never a crash.
    assert.ok(missing.code === 0 || /not found/.test(missing.stderr), missing.stderr);
  });

  it("create space ends its wait on Failed with the reason and message, long before --timeout, and keeps the space", async () => {
    // team-a exists on the cluster and is not the platform's: the space may not take it over.
    const r = await createInWeb("space", "grab", "--namespace", "team-a", "--timeout", "10m", "-o", "json");
    assert.equal(r.code, 1, r.stdout);
    assert.equal(r.stdout, "", "nothing printed as the result of a create that failed");
    const why = 'NamespaceNotOwned: namespace "team-a" already exists on the cluster and was not made by this space';
    assert.match(r.stderr, new RegExp(`^space grab: Failed \\(${why}`, "m"));
    assert.match(r.stderr, new RegExp(`error: space grab: Failed \\(${why}.*\\)\\. It was created and stays`));
    assert.doesNotMatch(r.stderr, /gave up waiting/);
    const stored = (await get("namespaces/p-web/spaceinstances/grab")).json;
    assert.equal(stored.status.phase, "Failed");
    assert.equal(stored.status.reason, "NamespaceNotOwned");
  });

  it("create space --no-wait returns at once; a --timeout that is no duration creates nothing", async () => {
    const r = await createInWeb("space", "quick-space", "--no-wait", "-o", "json");
    assert.equal(r.code, 0, r.stderr);
    const created = JSON.parse(r.stdout);
    assert.equal(created.metadata.name, "quick-space");
    assert.equal(created.status?.phase, undefined, "printed as created, before any controller saw it");
    assert.equal(r.stderr, "");
    const usage = await createInWeb("space", "never", "--timeout", "soon");
    assert.equal(usage.code, 2, usage.stdout);
    assert.match(usage.stderr, /not a duration: "soon"/);
    assert.equal((await get("namespaces/p-web/spaceinstances/never")).status, 404);
  });

  it("delete vcluster removes the instance", async () => {
    const d = await cli(["delete", "vcluster", "quick", "--project", "web"]);
    assert.equal(d.code, 0, d.stderr);
    assert.equal((await get("namespaces/p-web/virtualclusterinstances/quick")).status, 404);
  });
});
