import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { parse } from "yaml";
import { putSecret } from "../testing/cluster-status.js";
import { DOCUMENTED_ADDRESS, type DocsWorkspace, DocumentedPage, docsWorkspace } from "../testing/documented-page.js";
import { documentedYamlBlocks, manifests } from "../testing/documented-rights.js";
import { shownOutput } from "../testing/documented-shell.js";
import { accessKey, postObject } from "../testing/gateway-fixture.js";
import { KubeControlPlane } from "../testing/kube-control-plane.js";
import { REAL_CLUSTER_RESYNC_MS } from "../testing/platform-on-control-plane.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";
import { waitFor } from "../testing/wait-for.js";

/**
 * The shell examples of the pages about what the platform does on connected clusters
 * (docs/cluster-access.md, docs/clusters.md, docs/spaces.md, docs/project-secrets.md), run as
 * written by bash in a directory whose `data` is the server's data directory, sharing one server
 * and one real control plane: the cluster the pages' worked examples connect. The test puts in
 * only the server's address for `https://127.0.0.1:8443` and the control plane's directory for
 * `/tmp/test-cluster` (README.md's `npm run test-cluster -- --dir /tmp/test-cluster`). What the
 * pages assume a reader did elsewhere (an existing namespace to import, a virtual cluster's
 * Service) the test does through the API or as the cluster's administrator.
 *
 * The order is the order a reader follows the pages in: cluster-access.md's worked example
 * makes the control plane's namespaces, the platform's ServiceAccount and the cluster `dev`;
 * clusters.md connects the same control plane as `prod`, its examples creating project `web`;
 * spaces.md's worked example continues cluster-access.md's; project-secrets.md fills Secrets of
 * the space `web-dev`.
 */

const CLUSTER_DIR_SHOWN = "/tmp/test-cluster";

/** The fenced block (```text, ```yaml) that follows the first line of `doc` containing `marker`. */
function shownBlockAfter(doc: string, marker: string): string {
  const text = readFileSync(doc, "utf8");
  const at = text.indexOf(marker);
  assert.ok(at >= 0, `${doc} has "${marker}"`);
  const block = /```(?:text|yaml)\n([\s\S]*?)```/.exec(text.slice(at));
  assert.ok(block, `${doc} shows output after "${marker}"`);
  return block[1]!;
}

/** Whitespace made one space: a message shown wrapped over comment lines compares with the one printed. */
const oneLine = (s: string) => s.replace(/\s+/g, " ").trim();

/** The lines of an output, each without trailing blanks (a jsonpath with an empty last field ends in one). */
const lines = (s: string) =>
  s
    .trim()
    .split("\n")
    .map((l) => l.trimEnd());

/** The `# …` comment lines right after the line containing `command`, joined, without the `#`. */
function commentsAfter(block: string, command: string): string {
  const lines = block.split("\n");
  const at = lines.findIndex((l) => l.includes(command));
  assert.ok(at >= 0, `the block has "${command}"`);
  const comments: string[] = [];
  for (const line of lines.slice(at + 1)) {
    if (!line.startsWith("# ")) break;
    comments.push(line.slice(2));
  }
  assert.ok(comments.length > 0, `the block shows what "${command}" prints`);
  return oneLine(comments.join(" "));
}

describe("the pages of what the platform does on clusters: their shell examples run as written", () => {
  let kube: KubeControlPlane;
  let server: TestServer;
  let workspace: DocsWorkspace;
  let root: string;
  let clusterDir: string;
  const pageOf = (doc: string) =>
    new DocumentedPage(
      doc,
      () => ({ dir: workspace.dir, env: { ...workspace.env, KUBECONFIG: "data/admin.kubeconfig" } }),
      () => [
        [DOCUMENTED_ADDRESS, server.url],
        [CLUSTER_DIR_SHOWN, clusterDir],
      ],
    );
  const access = pageOf("docs/cluster-access.md");
  const clusters = pageOf("docs/clusters.md");
  const spaces = pageOf("docs/spaces.md");
  const secrets = pageOf("docs/project-secrets.md");
  /** The cluster-access.md variables spaces.md's worked example continues with ($K, $P, $A). */
  const WORKED = 'K="kubectl --kubeconfig';
  /** alice's key: the owner's, for spaces.md's gateway path (the worked example's was printed once). */
  let aliceKey: string;

  const get = async (path: string) => (await server.request("GET", `${GROUP_PATH}/${path}`)).json;

  before(async () => {
    root = mkdtempSync(join(tmpdir(), "platform-cluster-docs-"));
    clusterDir = join(root, "test-cluster");
    [kube, server] = await Promise.all([
      KubeControlPlane.start({ dir: clusterDir }),
      startTestServer({ clusterCheckIntervalMs: REAL_CLUSTER_RESYNC_MS, allowLocalEndpoints: true }),
    ]);
    workspace = await docsWorkspace(server, "platform-cluster-docs-work-");
  });
  after(async () => {
    await server?.stop();
    await kube?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it("cluster-access.md's worked example: the grant reaches alice, drift is repaired, removing it removes its binding", async () => {
    const run = await access.run(WORKED);
    const block = access.block(WORKED);
    assert.match(run.stdout, /^dev\s.*\s2\/2\s/m, "GRANTS 2/2");
    assert.match(run.stdout, /^configmap\/hello created$/m);
    assert.match(run.stdout, /^deployment\.apps\/web created$/m);
    assert.ok(run.stderr.includes(shownOutput(block, "get secrets -n other")), run.stderr);
    assert.ok(run.stderr.includes(shownOutput(block, "managed-by=platform   #")), run.stderr);
    aliceKey = await accessKey(server, "alice");
  });

  it("cluster-access.md's status examples print what the page shows: a failed grant, then a refused list", async () => {
    await postObject(server, "clusteraccesses", {
      metadata: { name: "devs-edit" },
      spec: { clusters: ["dev"], teams: ["devs"], clusterRoleTemplates: ["edit"], namespaces: ["team-a", "team-x"] },
    });
    await waitFor(
      "the grants on dev",
      async () => (await get("clusters/dev")).status?.grants ?? [],
      (g: { applied: boolean; reason?: string }[]) =>
        g.length === 3 && g.filter((e) => e.applied).length === 2 && g.some((e) => e.reason === "NamespaceNotFound"),
    );
    const grants = await access.run(".status.grants[*]");
    assert.deepEqual(lines(grants.stdout), lines(shownBlockAfter(access.doc, ".status.grants[*]")));

    // The cluster's administrator takes listing ClusterRoleBindings from the platform.
    const role = manifests(
      access
        .block(WORKED)
        .match(/^kind: ClusterRole\n[\s\S]*?^EOF$/m)![0]!
        .slice(0, -3),
    )[0]!;
    const limited = structuredClone(role) as { rules: { apiGroups: string[]; resources: string[]; verbs: string[] }[] };
    limited.rules[1]!.resources = ["clusterroles", "rolebindings"];
    limited.rules.push({
      apiGroups: ["rbac.authorization.k8s.io"],
      resources: ["clusterrolebindings"],
      verbs: ["get", "create", "update", "patch", "delete"],
    });
    await kube.apply(JSON.stringify({ apiVersion: "rbac.authorization.k8s.io/v1", ...limited }));
    await waitFor(
      "the refused list on dev",
      async () => (await get("clusters/dev")).status?.grants ?? [],
      (g: { check?: string }[]) => g.some((e) => e.check === "List"),
    );
    const list = await access.run('.status.grants[?(@.check=="List")]');
    assert.deepEqual(lines(list.stdout), lines(shownBlockAfter(access.doc, '.status.grants[?(@.check=="List")]')));
    await kube.apply(JSON.stringify({ apiVersion: "rbac.authorization.k8s.io/v1", ...role }));
    const gone = await server.request("DELETE", `${GROUP_PATH}/clusteraccesses/devs-edit`);
    assert.equal(gone.status, 200, gone.text);
  });

  it("clusters.md: prod is connected with the page's two POSTs and its status shows as the page does", async () => {
    // The reader's kube config of prod: the worked example's ServiceAccount, holding the rights
    // docs/gateway.md lists too.
    const [gatewayRights] = documentedYamlBlocks();
    await kube.apply(gatewayRights!);
    mkdirSync(join(workspace.env.HOME!, ".kube"), { recursive: true });
    copyFileSync(join(clusterDir, "platform-sa.kubeconfig"), join(workspace.env.HOME!, ".kube", "prod.yaml"));
    const setup = clusters.variables("KEY=$(cat data/admin-access-key)");
    await clusters.run("KEY=$(cat data/admin-access-key)");
    await clusters.run("prod-secret.yaml", { prelude: setup });
    const listed = await clusters.run("get clusters -o wide", { prelude: setup });
    // Every column but AGE; dev, the worked example's cluster, is listed too.
    const columns = (output: string) =>
      lines(output)
        .filter((l) => !l.startsWith("dev "))
        .map((l) =>
          l
            .split(/\s{2,}/)
            .slice(0, -1)
            .join("|"),
        );
    assert.deepEqual(columns(listed.stdout), columns(shownBlockAfter(clusters.doc, "get clusters -o wide")));
    await clusters.run('"name":"web"', { prelude: setup });
    assert.deepEqual((await get("projects/web")).spec.allowedClusters, [{ name: "prod" }]);
  });

  it("clusters.md: a virtual cluster on prod is imported, its status and events read, a kube config issued, and it moves", async () => {
    const setup = clusters.variables("KEY=$(cat data/admin-access-key)");
    // A virtual cluster as the page describes one: its Service, its CA's Secret, its StatefulSet
    // with one ready replica (the kubelet stand-in reports its pod ready).
    await kube.startKubelet();
    const ca = kube.ca;
    await kube.apply(
      JSON.stringify({
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
            stringData: { "ca.crt": ca.certPem, "ca.key": ca.keyPem },
          },
          {
            apiVersion: "apps/v1",
            kind: "StatefulSet",
            metadata: { name: "dev", namespace: "team-a" },
            spec: {
              replicas: 1,
              serviceName: "dev",
              selector: { matchLabels: { app: "dev" } },
              template: {
                metadata: { labels: { app: "dev" } },
                spec: { containers: [{ name: "vcluster", image: "vcluster" }] },
              },
            },
          },
        ],
      }),
    );
    const imported = await clusters.run("importvirtualcluster", { prelude: setup });
    assert.equal(JSON.parse(imported.stdout).kind, "ProjectImportVirtualCluster");
    await waitFor(
      "dev-vc ready",
      async () => (await get("namespaces/p-web/virtualclusterinstances/dev-vc")).status ?? {},
      (s) => s.reason === "WorkloadReady",
    );
    const status = await clusters.run("get virtualclusterinstances -n p-web dev-vc -o yaml");
    const shown = parse(shownBlockAfter(clusters.doc, "get virtualclusterinstances -n p-web dev-vc -o yaml")).status;
    const printed = parse(status.stdout).status;
    for (const field of ["phase", "reason", "message"]) assert.equal(printed[field], shown[field], field);
    assert.deepEqual(printed.workload, shown.workload);

    // The Event is recorded after the status write that made it WorkloadReady: waited for before
    // the page's command reads it once.
    await waitFor(
      "the WorkloadReady Event about dev-vc",
      async () =>
        (await server.request("GET", "/kubernetes/management/api/v1/namespaces/p-web/events")).json?.items ?? [],
      (items: { reason: string; involvedObject: { name: string } }[]) =>
        items.some((e) => e.reason === "WorkloadReady" && e.involvedObject.name === "dev-vc"),
    );
    const events = await clusters.run("--field-selector involvedObject.name=dev-vc");
    assert.match(events.stdout, /WorkloadReady/);

    await clusters.run("VirtualClusterInstanceKubeConfig", { prelude: setup });
    const kubeconfig = parse(readFileSync(join(workspace.dir, "dev-vc.kubeconfig"), "utf8"));
    // What the block the page does not run would use: the address, the virtual cluster's CA, a certificate for the admin.
    assert.equal(kubeconfig.clusters[0].cluster.server, "https://dev-vc.web.vcluster.example.com");
    assert.equal(
      Buffer.from(kubeconfig.clusters[0].cluster["certificate-authority-data"], "base64").toString().trim(),
      kube.ca.certPem.trim(),
    );
    const certificate = new X509Certificate(Buffer.from(kubeconfig.users[0].user["client-certificate-data"], "base64"));
    assert.match(certificate.subject, /CN=admin/);
    assert.ok(certificate.checkIssued(new X509Certificate(kube.ca.certPem)));

    await clusters.run("migratevirtualclusterinstance", { prelude: setup });
    assert.equal((await get("namespaces/p-shop/virtualclusterinstances/dev-vc")).metadata.name, "dev-vc");
    // prod is the same control plane as dev: it leaves, so the two never manage the same objects.
    const gone = await server.request("DELETE", `${GROUP_PATH}/clusters/prod`);
    assert.equal(gone.status, 200, gone.text);
  });

  it("spaces.md's worked example: the space is made, repaired, never takes a foreign namespace, and goes", async () => {
    const prelude = access.variables(WORKED);
    const block = spaces.block("metadata: {name: platform-spaces}");
    const run = await spaces.run("metadata: {name: platform-spaces}", { prelude });
    assert.match(run.stdout, /^web-dev\s+dev\s+web-dev\s+Ready\s/m);
    for (const name of [
      "resourcequota/quota",
      "limitrange/limits",
      "rolebinding.rbac.authorization.k8s.io/platform:space-owner",
    ])
      assert.ok(run.stdout.includes(name), `${name} in\n${run.stdout}`);
    assert.match(run.stdout, /^deployment\.apps\/web created$/m);
    assert.match(run.stdout, /spaceinstance\.management\.platform\/grab condition met/);
    assert.ok(run.stderr.includes(shownOutput(block, "get namespace web-dev")), run.stderr);
    assert.equal(shownOutput(block, "delete space grab"), "the namespace taken stays");
    assert.equal((await kube.kubectl("get", "namespace", "taken", "-o", "name")).trim(), "namespace/taken");
  });

  it("spaces.md's CLI example creates, lists and deletes spaces", async () => {
    const block = spaces.block("platform create space web-dev");
    const run = await spaces.run("platform create space web-dev");
    // The page shows what it prints, standard output and error together.
    const shown = block.split("\n").filter((l) => l.startsWith("# space web-dev"));
    assert.deepEqual(
      shown.map((l) => l.slice(2)),
      ["space web-dev created in project web", "space web-dev: no phase yet", "space web-dev: Ready"],
    );
    assert.match(run.stdout, /^space web-dev created in project web$/m);
    assert.match(run.stderr, /^space web-dev: Ready$/m);
    assert.match(run.stdout, /^web-ci\s/m);
    assert.match(run.stdout, /^small\s/m);
    await waitFor(
      "web-dev to go",
      async () => (await server.request("GET", `${GROUP_PATH}/namespaces/p-web/spaceinstances/web-dev`)).status,
      (s) => s === 404,
    );
    // The space the rest of the pages use, as the worked example made it.
    await postObject(server, "namespaces/p-web/spaceinstances", {
      metadata: { name: "web-dev" },
      spec: {
        owner: { team: "devs" },
        clusterRef: { cluster: "dev" },
        templateRef: { name: "small" },
        parameters: { pods: "20" },
      },
    });
    await waitFor(
      "web-dev ready",
      async () => (await get("namespaces/p-web/spaceinstances/web-dev")).status ?? {},
      (s) => s.phase === "Ready",
    );
  });

  it("spaces.md's status, gateway path and key scope examples", async () => {
    const status = await spaces.run("kubectl get spaceinstances -n p-web");
    const header = shownOutput(
      spaces.block("kubectl get spaceinstances -n p-web"),
      "kubectl get spaceinstances -n p-web",
    );
    assert.equal(oneLine(status.stdout.split("\n")[0]!), header);
    assert.match(status.stdout, /"phase":"Ready"/);

    const block = spaces.block("/kubernetes/project/web/space/web-dev");
    const gateway = await spaces.run("/kubernetes/project/web/space/web-dev", { env: { KEY: aliceKey } });
    assert.match(gateway.stdout, /^configmap\/settings created$/m);
    assert.ok(oneLine(gateway.stderr).includes(commentsAfter(block, "get configmaps -n kube-system")), gateway.stderr);

    const key = await spaces.run("metadata: {name: web-dev-ci}");
    assert.match(key.stdout, /^ownedaccesskey\.management\.platform\/web-dev-ci created$/m);

    const owners = await spaces.run("--show-managed-fields");
    assert.equal(oneLine(owners.stdout), commentsAfter(spaces.block("--show-managed-fields"), "--show-managed-fields"));
  });

  it("spaces.md: a second space in web-dev's namespace is refused as the page shows it", async () => {
    const marker = "metadata: {name: web-dev-2";
    const refused = await spaces.run(marker, { exitCode: 1 });
    const shown = spaces.block(marker).match(/^# (Error from server \(Conflict\): .*)$/m)?.[1];
    assert.ok(shown, "the page shows kubectl's refusal");
    assert.equal(refused.stderr.trim(), shown);
    assert.equal((await server.request("GET", `${GROUP_PATH}/namespaces/p-web/spaceinstances/web-dev-2`)).status, 404);
  });

  it("project-secrets.md: a labelled Secret is reported unfillable, then filled once the platform may", async () => {
    const [api] = manifests(documentedYamlBlocks(secrets.doc, "## The kind")[0]!);
    await postObject(server, "namespaces/p-web/projectsecrets", api);
    await secrets.run("create secret generic api");
    await waitFor(
      "the warning",
      async () =>
        (await server.request("GET", "/kubernetes/management/api/v1/namespaces/p-web/events")).json?.items ?? [],
      (items: { reason: string }[]) => items.some((e) => e.reason === "ProjectSecretsNotFilled"),
    );
    const events = await secrets.run("--for spaceinstance/web-dev");
    const shown = commentsAfter(secrets.block("--for spaceinstance/web-dev"), "--for spaceinstance/web-dev");
    const message = shown.slice(shown.indexOf("the project's secrets"));
    assert.ok(oneLine(events.stdout).includes(message), `${events.stdout}\ndoes not show\n${message}`);

    // The cluster's administrator grants what the page lists.
    const [role] = documentedYamlBlocks(secrets.doc, "### What the platform needs on the cluster");
    await kube.apply(role!);
    await kube.kubectl(
      "create",
      "clusterrolebinding",
      "platform-project-secrets",
      "--clusterrole=platform-project-secrets",
      "--serviceaccount=platform:platform",
    );
    await waitFor(
      "the Secret filled",
      () => kube.kubectl("get", "secret", "api", "-n", "web-dev", "-o", "jsonpath={.data.token}").catch(() => ""),
      (v) => Buffer.from(v, "base64").toString() === "s3cret",
    );
  });

  it("project-secrets.md: a source's Synced reason and the CLI", async () => {
    await putSecret(server, "db", "unused");
    const shared = await get("namespaces/platform/sharedsecrets/db");
    shared.spec.data = { password: Buffer.from("pw").toString("base64") };
    const put = await server.request("PUT", `${GROUP_PATH}/namespaces/platform/sharedsecrets/db`, { body: shared });
    assert.equal(put.status, 200, put.text);
    const [db] = manifests(documentedYamlBlocks(secrets.doc, "## A shared secret as the source")[0]!);
    await postObject(server, "namespaces/p-web/projectsecrets", db);
    await waitFor(
      "db synced",
      async () => (await get("namespaces/p-web/projectsecrets/db")).status?.conditions ?? [],
      (c: { type: string; status: string }[]) => c.some((x) => x.type === "Synced" && x.status === "True"),
    );
    const synced = await secrets.run('?(@.type=="Synced")');
    assert.equal(synced.stdout.trim(), "Synced");
    const cli = await secrets.run("platform set secret api.token");
    // The value exactly, without a newline (docs/cli.md), then the list.
    assert.match(cli.stdout, /^projectsecret p-web\/api: key token set\ns3cretNAME\s/);
    assert.match(cli.stdout, /^db\s+1\s+platform\/db\s/m);
  });

  it("spaces.md: a namespace is imported with the CLI, shows as imported, and again with curl once released", async () => {
    await kube.kubectl("create", "namespace", "legacy-app");
    const block = spaces.block("platform import space legacy-app");
    const run = await spaces.run("platform import space legacy-app");
    assert.equal(run.stdout.trim(), shownOutput(block, "platform import space legacy-app"));
    const imported = await spaces.run("{.status.imported} {.status.namespaceUID}");
    const uid = (await kube.kubectl("get", "namespace", "legacy-app", "-o", "jsonpath={.metadata.uid}")).trim();
    assert.equal(imported.stdout.trim(), `true ${uid}`);

    const gone = await server.request("DELETE", `${GROUP_PATH}/namespaces/p-web/spaceinstances/app`);
    assert.equal(gone.status, 200, gone.text);
    await waitFor(
      "app to go",
      async () => (await server.request("GET", `${GROUP_PATH}/namespaces/p-web/spaceinstances/app`)).status,
      (s) => s === 404,
    );
    const curl = await spaces.run('"kind": "ProjectImportSpace"');
    assert.equal(JSON.parse(curl.stdout).kind, "ProjectImportSpace");
    assert.equal((await get("namespaces/p-web/spaceinstances/app")).status?.imported ?? true, true);
  });

  it("spaces.md: a space moves to shop with the CLI and back with curl; the move's Event reads as shown", async () => {
    const block = spaces.block("platform move space web-dev");
    const run = await spaces.run("platform move space web-dev", {
      prelude: spaces.variables('"kind": "ProjectImportSpace"'),
    });
    assert.match(run.stdout, new RegExp(`^${shownOutput(block, "platform move space web-dev")}$`, "m"));
    assert.equal((await get("namespaces/p-web/spaceinstances/web-dev")).metadata.name, "web-dev");
    const events = await spaces.run("kubectl events -n p-shop");
    const shown = spaces.block("kubectl events -n p-shop").split("\n").at(-2)!;
    const message = shown.slice(shown.indexOf("moved into"));
    assert.ok(events.stdout.includes(message), `${events.stdout}\ndoes not show\n${message}`);
  });

  it("spaces.md's quota examples: the create and the wake-up past a quota are refused as shown", async () => {
    const block = spaces.block("metadata: {name: tiny-two");
    const run = await spaces.run("metadata: {name: tiny-two");
    const refusal = block
      .split("\n")
      .find((l) => l.startsWith("# Error from server (Forbidden)"))!
      .split("... ")[1]!;
    assert.ok(run.stderr.includes(refusal), run.stderr);
    assert.match(run.stdout, /spaceInstances=1\/1/);

    const wake = spaces.block("vci a");
    const woken = await spaces.run("vci a");
    assert.ok(woken.stderr.includes(commentsAfter(wake, "! platform wakeup").split("... ").at(-1)!), woken.stderr);
  });

  it("spaces.md: a space whose cluster is gone waits in Deleting until the page's patch drops the record", async () => {
    const gone = await server.request("DELETE", `${GROUP_PATH}/clusters/dev`);
    assert.equal(gone.status, 200, gone.text);
    const deleted = await server.request("DELETE", `${GROUP_PATH}/namespaces/p-web/spaceinstances/web-dev`);
    assert.equal(deleted.status, 200, deleted.text);
    await waitFor(
      "web-dev waiting for its cluster",
      async () => (await get("namespaces/p-web/spaceinstances/web-dev")).status ?? {},
      (s) => s.phase === "Deleting" && s.reason === "ClusterNotFound",
    );
    await spaces.run('"path":"/metadata/finalizers"');
    await waitFor(
      "web-dev to go",
      async () => (await server.request("GET", `${GROUP_PATH}/namespaces/p-web/spaceinstances/web-dev`)).status,
      (s) => s === 404,
    );
    assert.equal((await kube.kubectl("get", "namespace", "web-dev", "-o", "name")).trim(), "namespace/web-dev");
  });

  it("every shell example of the four pages was run, but those a page marks and says why", () => {
    for (const page of [access, clusters, spaces, secrets]) assert.deepEqual(page.leftOut(), [], page.doc);
    assert.equal(clusters.notRunReasons().length, 3);
  });
});
