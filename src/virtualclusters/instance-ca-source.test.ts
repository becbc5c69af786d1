import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { parse } from "yaml";
import { FakeKubeApiServer, type FakeVirtualCluster } from "../testing/fake-kube-apiserver.js";
import { GROUP_PATH, startTestServer, type TestServer, userWithKey } from "../testing/test-server.js";
import { waitFor } from "../testing/wait-for.js";

const API = "management.platform/v1";

/**
 * Who may point an instance without a template at a virtual cluster the platform did not deploy
 * (docs/virtual-clusters.md, "Instances without a template"), against a stand-in host cluster that
 * records what it was asked. c1 runs three virtual clusters by hand: `vc-a` in namespace team-a,
 * which the admin imported as space `a-space` of project web; `vc-b` in team-b, imported as space
 * `b-space` of project shop; `vc-h` in by-hand, which no space holds. `dev` is a member of web with
 * `use` on c1; `ops` is a member of web with `use` and `administer` on c1.
 */
describe("instances without a template stand only for their own project's virtual clusters", () => {
  let server: TestServer;
  let kube: FakeKubeApiServer;
  let dev: string;
  let ops: string;
  let vcA: FakeVirtualCluster;
  let vcH: FakeVirtualCluster;

  const instances = (project: string) => `${GROUP_PATH}/namespaces/p-${project}/virtualclusterinstances`;
  const post = (path: string, body: unknown, token?: string) =>
    server.request("POST", `${GROUP_PATH}/${path}`, { body, token });
  const createInstance = (name: string, clusterRef: Record<string, string>, token?: string) =>
    server.request("POST", instances("web"), {
      body: { apiVersion: API, kind: "VirtualClusterInstance", metadata: { name }, spec: { clusterRef } },
      token,
    });
  const repoint = (name: string, clusterRef: Record<string, string>, token?: string) =>
    server.request("PATCH", `${instances("web")}/${name}`, {
      body: { spec: { clusterRef } },
      contentType: "application/merge-patch+json",
      token,
    });
  const kubeconfig = (name: string, token?: string) =>
    server.request("POST", `${instances("web")}/${name}/kubeconfig`, {
      body: { apiVersion: API, kind: "VirtualClusterInstanceKubeConfig", spec: {} },
      token,
    });
  const signedBy = (answer: { json: { status: { kubeConfig: string } } }, vc: FakeVirtualCluster) => {
    const user = parse(answer.json.status.kubeConfig).users[0].user;
    const cert = new X509Certificate(Buffer.from(user["client-certificate-data"], "base64"));
    return cert.verify(new X509Certificate(vc.ca.certPem).publicKey);
  };
  const created = async (res: Promise<{ status: number; text: string }>) => {
    const r = await res;
    assert.equal(r.status, 201, r.text);
  };
  /** A 403 that names neither project shop nor its space, and shows no CA. */
  const refused = async (res: Promise<{ status: number; text: string; json: { reason: string; message: string } }>) => {
    const r = await res;
    assert.equal(r.status, 403, r.text);
    assert.equal(r.json.reason, "Forbidden");
    assert.doesNotMatch(r.text, /shop|b-space|BEGIN/);
    return r.json.message;
  };
  const secretReads = (namespace: string) =>
    kube.requests.filter((r) => r.startsWith(`GET /api/v1/namespaces/${namespace}/secrets`));
  const importSpace = (project: string, namespace: string, importName: string) =>
    post(`projects/${project}/importspace`, {
      apiVersion: API,
      kind: "ProjectImportSpace",
      sourceSpace: { name: namespace, cluster: "c1", importName },
    });

  const teamA = { cluster: "c1", namespace: "team-a", virtualCluster: "vc-a" };
  const teamB = { cluster: "c1", namespace: "team-b", virtualCluster: "vc-b" };
  const byHand = { cluster: "c1", namespace: "by-hand", virtualCluster: "vc-h" };

  before(async () => {
    kube = await FakeKubeApiServer.start();
    for (const ns of ["team-a", "team-b", "by-hand"]) kube.addNamespace(ns);
    vcA = await kube.addVirtualCluster("team-a", "vc-a");
    await kube.addVirtualCluster("team-b", "vc-b");
    vcH = await kube.addVirtualCluster("by-hand", "vc-h");
    // The stand-in listens on 127.0.0.1, where the platform connects only with this flag (its
    // controllers look at the spaces there).
    server = await startTestServer({ allowLocalEndpoints: true });
    dev = await userWithKey(server, "dev");
    ops = await userWithKey(server, "ops");
    await created(
      post("namespaces/platform/sharedsecrets", {
        metadata: { name: "c1-kubeconfig" },
        spec: { data: { config: Buffer.from(kube.kubeconfig()).toString("base64") } },
      }),
    );
    await created(
      post("clusters", {
        metadata: { name: "c1", annotations: { "management.platform/ingress-suffix": "vcluster.example.test" } },
        spec: {
          config: { secretName: "c1-kubeconfig" },
          access: [
            { verbs: ["use"], users: ["dev"] },
            { verbs: ["use", "administer"], users: ["ops"] },
          ],
        },
      }),
    );
    const members = [
      { kind: "User", name: "dev" },
      { kind: "User", name: "ops" },
    ];
    await created(post("projects", { metadata: { name: "web" }, spec: { members } }));
    await created(post("projects", { metadata: { name: "shop" }, spec: {} }));
    await created(importSpace("web", "team-a", "a-space"));
    await created(importSpace("shop", "team-b", "b-space"));
  });
  after(async () => {
    await server?.stop();
    await kube?.stop();
  });

  it("a member may not point a new instance at another project's namespace, nor move one there: 403, the CA never read", async () => {
    const onCreate = await refused(createInstance("taken", teamB, dev));
    assert.match(onCreate, /namespace "team-b" on cluster "c1" belongs to another project/);
    await created(createInstance("mine", teamA, dev));
    await refused(repoint("mine", teamB, dev));
    const stored = await server.request("GET", `${instances("web")}/mine`);
    assert.deepEqual(stored.json.spec.clusterRef, teamA);
    assert.equal((await server.request("GET", `${instances("web")}/taken`)).status, 404);
    assert.deepEqual(secretReads("team-b"), []);
  });

  it("nor at a namespace no space holds, made by hand: that needs administer on the cluster", async () => {
    const message = await refused(createInstance("by-hand", byHand, dev));
    assert.match(message, /User "dev" cannot administer resource "clusters" .*\(cluster "c1"\)/);
    assert.match(message, /unless a space of its project holds its namespace "by-hand"/);
    await refused(repoint("mine", byHand, dev));
    // A status sent with the create is not the platform's: it does not pass for a kept CA.
    const forged = await refused(
      server.request("POST", instances("web"), {
        body: {
          apiVersion: API,
          kind: "VirtualClusterInstance",
          metadata: { name: "forged" },
          spec: { clusterRef: byHand },
          status: { serviceUID: "made-up", caID: "made-up" },
        },
        token: dev,
      }),
    );
    assert.match(forged, /User "dev" cannot administer resource "clusters"/);
    assert.deepEqual(secretReads("by-hand"), []);
  });

  it("a member points one at a virtual cluster in a space of the project; its kube config is signed with that CA", async () => {
    await created(createInstance("in-space", teamA, dev));
    const config = await kubeconfig("in-space", dev);
    assert.equal(config.status, 201, config.text);
    assert.ok(signedBy(config, vcA));
  });

  it("who administers the cluster may name a namespace made by hand, but not another project's", async () => {
    await created(createInstance("ops-made", byHand, ops));
    const config = await kubeconfig("ops-made", dev);
    assert.equal(config.status, 201, config.text);
    assert.ok(signedBy(config, vcH));
    await refused(createInstance("ops-taken", teamB, ops));
    await refused(repoint("ops-made", teamB, ops));
    assert.deepEqual(secretReads("team-b"), []);
  });

  it("a space of the project that only names a namespace, which the platform did not make, does not make it the project's", async () => {
    await created(
      server.request("POST", `${GROUP_PATH}/namespaces/p-web/spaceinstances`, {
        body: {
          apiVersion: API,
          kind: "SpaceInstance",
          metadata: { name: "claims-by-hand" },
          spec: { clusterRef: { cluster: "c1", namespace: "by-hand" } },
        },
        token: dev,
      }),
    );
    // The platform did not make that namespace, so the space records no UID of it once its
    // controller has looked (on a real cluster: NamespaceNotOwned; the stand-in serves no
    // discovery, so there it fails before the namespace).
    const space = await waitFor(
      "the space controller to look at the space",
      async () => (await server.request("GET", `${GROUP_PATH}/namespaces/p-web/spaceinstances/claims-by-hand`)).json,
      (got) => got.status?.phase === "Failed",
    );
    assert.equal(space.status.namespaceUID, undefined);
    const message = await refused(createInstance("through-space", byHand, dev));
    assert.match(message, /User "dev" cannot administer resource "clusters"/);
  });

  it("a move to another project is asked too: an instance in the project's space stays where it is", async () => {
    const moved = await post("projects/shop/migratevirtualclusterinstance", {
      apiVersion: API,
      kind: "ProjectMigrateVirtualClusterInstance",
      sourceVirtualClusterInstance: { name: "in-space", namespace: "p-web" },
    });
    assert.equal(moved.status, 403, moved.text);
    assert.match(moved.json.message, /namespace "team-a" on cluster "c1" belongs to another project/);
    assert.equal((await server.request("GET", `${instances("web")}/in-space`)).status, 200);
    assert.equal((await server.request("GET", `${instances("shop")}/in-space`)).status, 404);
  });

  it("once the namespace changes hands, its CA is read no more: kube config and gateway are 403", async () => {
    await created(createInstance("before-move", teamA, dev));
    assert.equal((await kubeconfig("before-move", dev)).status, 201);
    const moved = await post("projects/shop/migratespaceinstance", {
      apiVersion: API,
      kind: "ProjectMigrateSpaceInstance",
      sourceSpaceInstance: { name: "a-space", namespace: "p-web" },
    });
    assert.equal(moved.status, 201, moved.text);
    // Refused by the platform's own check, which comes before any call to the cluster. (Reads of
    // team-a's Secrets are not counted here: the access controller may have one under way for
    // the instances that pointed there before the move.)
    const message = await refused(kubeconfig("before-move", dev));
    assert.match(message, /runs in a namespace another project holds/);
    const atGateway = await refused(
      server.request("GET", "/kubernetes/project/web/virtualcluster/before-move/api", { token: dev }),
    );
    assert.match(atGateway, /runs in a namespace another project holds/);
  });
});
