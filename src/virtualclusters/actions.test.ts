import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { isDeepStrictEqual } from "node:util";
import { parse } from "yaml";
import { errors } from "../api/errors.js";
import type { UserInfo } from "../registry/request-context.js";
import type { SubresourceHandler } from "../server/resource-handler.js";
import { FakeKubeApiServer, type FakeVirtualCluster } from "../testing/fake-kube-apiserver.js";
import { GROUP_PATH, startTestServer, type TestServer, userWithKey } from "../testing/test-server.js";
import { waitFor } from "../testing/wait-for.js";
import { registerVirtualClusterActions } from "./actions.js";
import { VirtualClusterCaCleanup } from "./ca-cleanup.js";
import { CA_KEY_PREFIX, VirtualClusterCaStore } from "./ca-store.js";

const SUFFIX = "vcluster.example.test";
const API = "management.platform/v1";

/**
 * Import, kube config and migrate, each way they fail, against a stand-in host cluster
 * (testing/fake-kube-apiserver.ts) that records the requests it answered and loses a Secret on
 * cue. Import from a real cluster (its Service and `<name>-certs` Secret) and the rights it needs
 * run on a real control plane in gateway/gateway-real-cluster.test.ts.
 */
describe("virtual cluster actions: import, kubeconfig, migrate", () => {
  let server: TestServer;
  let kube: FakeKubeApiServer;
  let vc1: FakeVirtualCluster;
  let vc2: FakeVirtualCluster;

  const post = (path: string, body: unknown) => server.request("POST", `${GROUP_PATH}/${path}`, { body });
  const importVc = (project: string, source: Record<string, unknown>) =>
    server.request("POST", `${GROUP_PATH}/projects/${project}/importvirtualcluster`, {
      raw: `apiVersion: ${API}\nkind: ProjectImportVirtualCluster\nmetadata:\n  name: ${project}\nsourceVirtualCluster: ${JSON.stringify(source)}\n`,
      contentType: "application/yaml",
    });
  const migrate = (project: string, source: Record<string, unknown>) =>
    post(`projects/${project}/migratevirtualclusterinstance`, {
      apiVersion: API,
      kind: "ProjectMigrateVirtualClusterInstance",
      metadata: { name: project },
      sourceVirtualClusterInstance: source,
    });
  const kubeconfig = (ns: string, name: string, spec: Record<string, unknown> = {}) =>
    post(`namespaces/${ns}/virtualclusterinstances/${name}/kubeconfig`, {
      apiVersion: API,
      kind: "VirtualClusterInstanceKubeConfig",
      spec,
    });
  const getInstance = (ns: string, name: string) =>
    server.request("GET", `${GROUP_PATH}/namespaces/${ns}/virtualclusterinstances/${name}`);

  before(async () => {
    kube = await FakeKubeApiServer.start();
    vc1 = await kube.addVirtualCluster("team-a", "vc1");
    vc2 = await kube.addVirtualCluster("team-a", "vc2");
    await kube.addVirtualCluster("team-a", "vc3");
    // What the platform deployed for instance p-shop/db from a template: its objects carry its labels.
    await kube.addVirtualCluster("p-shop-v-db", "db", {
      "app.kubernetes.io/managed-by": "platform",
      "management.platform/project": "shop",
      "management.platform/virtual-cluster": "db",
    });
    kube.addService("team-a", "not-a-vcluster", { app: "nginx" });
    server = await startTestServer();
    const secret = await post("namespaces/platform/sharedsecrets", {
      metadata: { name: "c1-kubeconfig" },
      spec: { data: { config: Buffer.from(kube.kubeconfig()).toString("base64") } },
    });
    assert.equal(secret.status, 201, secret.text);
    for (const [name, annotations] of [
      ["c1", { "management.platform/ingress-suffix": SUFFIX }],
      ["nosuffix", {}],
    ] as const) {
      const res = await post("clusters", {
        metadata: { name, annotations },
        spec: { config: { secretName: "c1-kubeconfig" } },
      });
      assert.equal(res.status, 201, res.text);
    }
    for (const [name, spec] of [
      ["alpha", {}],
      ["beta", { allowedClusters: [{ name: "elsewhere" }] }],
      ["gamma", { allowedClusters: [{ name: "*" }] }],
    ] as const) {
      const res = await post("projects", { metadata: { name }, spec });
      assert.equal(res.status, 201, res.text);
    }
  });
  after(async () => {
    await server.stop();
    await kube.stop();
  });

  describe("projects and instances", () => {
    it("an instance needs an existing project, and gets an ownerReference to it", async () => {
      const missing = await post("namespaces/p-nowhere/virtualclusterinstances", { metadata: { name: "x" } });
      assert.equal(missing.status, 404, missing.text);
      assert.match(missing.json.message, /projects\.management\.platform "nowhere" not found/);

      const created = await post("namespaces/p-alpha/virtualclusterinstances", { metadata: { name: "plain" } });
      assert.equal(created.status, 201, created.text);
      const project = await server.request("GET", `${GROUP_PATH}/projects/alpha`);
      assert.deepEqual(created.json.metadata.ownerReferences, [
        { apiVersion: API, kind: "Project", name: "alpha", uid: project.json.metadata.uid },
      ]);
    });

    it("allowedClusters limits the clusters instances may run on (* allows all)", async () => {
      const refused = await post("namespaces/p-beta/virtualclusterinstances", {
        metadata: { name: "x" },
        spec: { clusterRef: { cluster: "c1" } },
      });
      assert.equal(refused.status, 422, refused.text);
      assert.match(refused.json.message, /spec\.clusterRef\.cluster.*not in the allowedClusters of project "beta"/);
      const allowed = await post("namespaces/p-gamma/virtualclusterinstances", {
        metadata: { name: "x" },
        spec: { clusterRef: { cluster: "c1" } },
      });
      assert.equal(allowed.status, 201, allowed.text);
      const moved = await server.request("PATCH", `${GROUP_PATH}/namespaces/p-alpha/virtualclusterinstances/plain`, {
        body: { spec: { clusterRef: { cluster: "c1" } } },
        contentType: "application/merge-patch+json",
      });
      assert.equal(moved.status, 200, moved.text);
    });
  });

  describe("importvirtualcluster", () => {
    it("imports a virtual cluster found on the connected cluster as a Ready external instance", async () => {
      const res = await importVc("alpha", { name: "vc1", namespace: "team-a", cluster: "c1" });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.json.kind, "ProjectImportVirtualCluster");
      assert.equal(res.json.sourceVirtualCluster.name, "vc1");
      const inst = await getInstance("p-alpha", "vc1");
      assert.equal(inst.status, 200, inst.text);
      assert.deepEqual(inst.json.spec.clusterRef, { cluster: "c1", namespace: "team-a", virtualCluster: "vc1" });
      assert.equal(inst.json.spec.external, true);
      assert.equal(inst.json.status.phase, "Ready");
      assert.equal(inst.json.status.serviceUID, vc1.serviceUID);
      assert.ok(
        kube.requests.some((r) => r.startsWith("GET /api/v1/namespaces/team-a/services?labelSelector=app%3Dvcluster")),
      );
      // The CA key is kept, but never shown through the API.
      assert.doesNotMatch(inst.text, /PRIVATE KEY/);
      // The import is an Event on the new instance.
      await server.events.recorder.flush();
      const events = await server.request("GET", "/kubernetes/management/api/v1/namespaces/p-alpha/events");
      const imported = (
        events.json.items as Array<{ reason: string; message: string; involvedObject: { name: string } }>
      ).find((e) => e.reason === "Imported");
      assert.ok(imported, events.text);
      assert.equal(imported.involvedObject.name, "vc1");
      assert.match(imported.message, /imported from virtual cluster team-a\/vc1 on cluster c1$/);
    });

    it("importName names the instance", async () => {
      const res = await importVc("gamma", { name: "vc2", namespace: "team-a", cluster: "c1", importName: "renamed" });
      assert.equal(res.status, 201, res.text);
      assert.equal((await getInstance("p-gamma", "renamed")).json.status.serviceUID, vc2.serviceUID);
    });

    it("every error case: 422 missing fields, 404 project/cluster/virtual cluster, 409 name or service taken", async () => {
      const cases: Array<[string, Record<string, unknown>, number, RegExp]> = [
        ["alpha", { name: "vc3", namespace: "team-a" }, 422, /sourceVirtualCluster\.cluster: Required value/],
        ["nope", { name: "vc3", namespace: "team-a", cluster: "c1" }, 404, /projects.* "nope" not found/],
        ["alpha", { name: "vc3", namespace: "team-a", cluster: "nocluster" }, 404, /clusters.* "nocluster" not found/],
        [
          "alpha",
          { name: "ghost", namespace: "team-a", cluster: "c1" },
          404,
          /virtual cluster team-a\/ghost was not found/,
        ],
        ["alpha", { name: "not-a-vcluster", namespace: "team-a", cluster: "c1" }, 404, /labelled app=vcluster/],
        [
          "alpha",
          { name: "vc3", namespace: "team-a", cluster: "c1", importName: "plain" },
          409,
          /"plain" already exists/,
        ],
        [
          "gamma",
          { name: "vc1", namespace: "team-a", cluster: "c1", importName: "again" },
          409,
          /already imported as p-alpha\/vc1/,
        ],
        ["beta", { name: "vc3", namespace: "team-a", cluster: "c1" }, 422, /allowedClusters/],
      ];
      for (const [project, source, code, message] of cases) {
        const res = await importVc(project, source);
        assert.equal(res.status, code, `${JSON.stringify(source)} → ${res.text}`);
        assert.equal(res.json.kind, "Status");
        assert.match(res.json.message, message);
      }
      // The refused imports left nothing behind.
      assert.equal((await getInstance("p-alpha", "vc3")).status, 404);
      assert.equal((await getInstance("p-gamma", "again")).status, 404);
    });

    it("a virtual cluster already imported into a project the caller may not see: 409 without naming that instance", async () => {
      const ivan = await userWithKey(server, "ivan");
      const rights = { spec: { access: [{ users: ["ivan"], verbs: ["use", "administer"] }] } };
      const merge = "application/merge-patch+json";
      const c1 = await server.request("PATCH", `${GROUP_PATH}/clusters/c1`, { body: rights, contentType: merge });
      assert.equal(c1.status, 200, c1.text);
      assert.equal(
        (await post("projects", { metadata: { name: "delta" }, spec: { members: [{ kind: "User", name: "ivan" }] } }))
          .status,
        201,
      );
      // vc1 is imported into p-alpha (above), where ivan is no member.
      const res = await server.request("POST", `${GROUP_PATH}/projects/delta/importvirtualcluster`, {
        token: ivan,
        body: { sourceVirtualCluster: { name: "vc1", namespace: "team-a", cluster: "c1", importName: "mine" } },
      });
      assert.equal(res.status, 409, res.text);
      assert.match(res.json.message, /is already imported by an instance of another project/);
      assert.doesNotMatch(res.text, /p-alpha/);
      assert.equal((await getInstance("p-delta", "mine")).status, 404);
    });

    it("an import past a quota of the project is 403 naming it, and keeps neither instance nor CA", async () => {
      const project = await post("projects", {
        metadata: { name: "full" },
        spec: { quotas: { project: { virtualClusterInstances: 0 } } },
      });
      assert.equal(project.status, 201, project.text);
      const cas = async () => (await server.storage.list(CA_KEY_PREFIX)).items.length;
      const before = await cas();
      const res = await importVc("full", { name: "vc3", namespace: "team-a", cluster: "c1" });
      assert.equal(res.status, 403, res.text);
      assert.match(res.json.message, /project quota virtualClusterInstances=0 reached in project "full" \(0 used\)/);
      assert.equal((await getInstance("p-full", "vc3")).status, 404);
      assert.equal(await cas(), before);
    });

    it("a connected cluster that cannot be reached is 503 with the health reason", async () => {
      const saved = kube.token;
      kube.token = "rotated";
      try {
        const res = await importVc("alpha", { name: "vc3", namespace: "team-a", cluster: "c1" });
        assert.equal(res.status, 503, res.text);
        // The reason only: the cluster's address and its own words are the Cluster's to show.
        assert.equal(res.json.message, `cluster "c1" cannot be used (Unauthorized); the Cluster's status says why`);
        assert.doesNotMatch(res.text, new RegExp(new URL(kube.url).host.replace(/\./g, "\\.")));
      } finally {
        kube.token = saved;
      }
    });
  });

  describe("kubeconfig", () => {
    async function certOf(kubeConfigText: string) {
      const doc = parse(kubeConfigText);
      const cluster = doc.clusters[0].cluster;
      const user = doc.users[0].user;
      return {
        server: cluster.server as string,
        ca: Buffer.from(cluster["certificate-authority-data"], "base64").toString(),
        cert: new X509Certificate(Buffer.from(user["client-certificate-data"], "base64")),
        hasKey: Buffer.from(user["client-key-data"], "base64").toString().includes("PRIVATE KEY"),
      };
    }
    const lifetime = (cert: X509Certificate) => (Date.parse(cert.validTo) - Date.now()) / 1000;

    it("POST returns a kube config: ingress URL, the virtual cluster's CA, a client cert for the caller signed by it", async () => {
      const res = await kubeconfig("p-alpha", "vc1", { certificateTTL: 3600 });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.json.kind, "VirtualClusterInstanceKubeConfig");
      assert.equal(res.json.spec.certificateTTL, 3600);
      const k = await certOf(res.json.status.kubeConfig);
      assert.equal(k.server, `https://vc1.alpha.${SUFFIX}`);
      assert.equal(k.ca, vc1.ca.certPem);
      assert.ok(k.cert.checkIssued(new X509Certificate(vc1.ca.certPem)));
      assert.ok(k.cert.verify(new X509Certificate(vc1.ca.certPem).publicKey));
      const self = await post("selves", { apiVersion: API, kind: "Self" });
      const expectedSubject = [...(self.json.status.groups ?? []).map((g: string) => `O=${g}`), "CN=admin"].join("\n");
      assert.equal(k.cert.subject, expectedSubject);
      assert.ok(k.hasKey);
      assert.ok(lifetime(k.cert) > 3500 && lifetime(k.cert) <= 3600, String(lifetime(k.cert)));
    });

    it("certificateTTL: absent is one day, 0 is 365 days; the seed's GET form takes it as a query parameter", async () => {
      const absent = await certOf((await kubeconfig("p-alpha", "vc1")).json.status.kubeConfig);
      assert.ok(lifetime(absent.cert) > 86_300 && lifetime(absent.cert) <= 86_400);
      const zero = await certOf((await kubeconfig("p-alpha", "vc1", { certificateTTL: 0 })).json.status.kubeConfig);
      assert.ok(lifetime(zero.cert) > 365 * 86_400 - 100 && lifetime(zero.cert) <= 365 * 86_400);
      const got = await server.request(
        "GET",
        `${GROUP_PATH}/virtualclusterinstances/vc1/kubeconfig?certificateTTL=600`,
      );
      assert.equal(got.status, 200, got.text);
      assert.equal(got.json.metadata.namespace, "p-alpha");
      const viaGet = await certOf(got.json.status.kubeConfig);
      assert.ok(lifetime(viaGet.cert) > 500 && lifetime(viaGet.cert) <= 600);
    });

    it("a bad certificateTTL is 422 (negative, fraction, text)", async () => {
      for (const ttl of [-1, 1.5, "60"]) {
        const res = await kubeconfig("p-alpha", "vc1", { certificateTTL: ttl });
        assert.equal(res.status, 422, `${ttl}: ${res.text}`);
        assert.match(res.json.message, /spec\.certificateTTL/);
      }
      for (const q of ["-5", "abc", "1.5"]) {
        const res = await server.request(
          "GET",
          `${GROUP_PATH}/virtualclusterinstances/vc1/kubeconfig?certificateTTL=${q}`,
        );
        assert.equal(res.status, 422, `${q}: ${res.text}`);
      }
    });

    it("a cluster without an ingress suffix is 422 saying so", async () => {
      const created = await post("namespaces/p-alpha/virtualclusterinstances", {
        metadata: { name: "onsuffixless" },
        spec: { clusterRef: { cluster: "nosuffix", namespace: "team-a", virtualCluster: "vc3" } },
      });
      assert.equal(created.status, 201, created.text);
      const res = await kubeconfig("p-alpha", "onsuffixless");
      assert.equal(res.status, 422, res.text);
      assert.match(
        res.json.message,
        /cluster "nosuffix" has no ingress suffix \(annotation management\.platform\/ingress-suffix\)/,
      );
    });

    it("an instance created directly (not imported) gets its CA from the connected cluster", async () => {
      const created = await post("namespaces/p-gamma/virtualclusterinstances", {
        metadata: { name: "direct" },
        spec: { clusterRef: { cluster: "c1", namespace: "team-a", virtualCluster: "vc3" } },
      });
      assert.equal(created.status, 201, created.text);
      const res = await kubeconfig("p-gamma", "direct");
      assert.equal(res.status, 201, res.text);
      assert.ok(kube.requests.includes("GET /api/v1/namespaces/team-a/secrets/vc3-certs"));
    });

    it("never hands out the CA of a virtual cluster the platform deployed for another instance: no kube config, no import", async () => {
      const db = { cluster: "c1", namespace: "p-shop-v-db", virtualCluster: "db" };
      const created = await post("namespaces/p-gamma/virtualclusterinstances", {
        metadata: { name: "pointer" },
        spec: { clusterRef: db },
      });
      assert.equal(created.status, 201, created.text);
      const refused = await kubeconfig("p-gamma", "pointer");
      assert.equal(refused.status, 403, refused.text);
      assert.equal(refused.json.reason, "Forbidden");
      assert.match(refused.json.message, /was deployed by the platform for another virtual cluster instance/);
      assert.doesNotMatch(
        refused.text,
        /BEGIN|p-shop\/db|project "shop"/,
        "neither the other instance nor the CA is shown",
      );
      const imported = await importVc("gamma", {
        name: "db",
        namespace: "p-shop-v-db",
        cluster: "c1",
        importName: "db2",
      });
      assert.equal(imported.status, 403, imported.text);
      assert.equal((await getInstance("p-gamma", "db2")).status, 404);
    });

    it("the imported CA is kept: kube configs still work after the certs secret is gone from the cluster", async () => {
      kube.removeSecret("team-a", "vc1-certs");
      const res = await kubeconfig("p-alpha", "vc1");
      assert.equal(res.status, 201, res.text);
      assert.equal((await certOf(res.json.status.kubeConfig)).ca, vc1.ca.certPem);
    });

    it("unknown instance 404; a name in two projects is 409 on the GET form, which then asks for the namespaced form", async () => {
      assert.equal((await kubeconfig("p-alpha", "nothing")).status, 404);
      assert.equal(
        (await server.request("GET", `${GROUP_PATH}/virtualclusterinstances/nothing/kubeconfig`)).status,
        404,
      );
      // "x" exists in p-gamma; add one in p-alpha.
      assert.equal((await post("namespaces/p-alpha/virtualclusterinstances", { metadata: { name: "x" } })).status, 201);
      const res = await server.request("GET", `${GROUP_PATH}/virtualclusterinstances/x/kubeconfig`);
      assert.equal(res.status, 409, res.text);
      assert.match(res.json.message, /namespaces\/\{namespace\}\/virtualclusterinstances\/x\/kubeconfig/);
    });

    it("the GET form chooses among the instances the caller may use, and names no other project's", async () => {
      // "x" is in p-alpha and p-gamma (the test before); eve may use p-alpha's alone, mallory neither.
      const eve = await userWithKey(server, "eve");
      const mallory = await userWithKey(server, "mallory");
      const access = { spec: { access: [{ users: ["eve"], verbs: ["use"], subresources: ["kubeconfig"] }] } };
      const shared = await server.request("PATCH", `${GROUP_PATH}/namespaces/p-alpha/virtualclusterinstances/x`, {
        body: access,
        contentType: "application/merge-patch+json",
      });
      assert.equal(shared.status, 200, shared.text);
      const asEve = await server.request("GET", `${GROUP_PATH}/virtualclusterinstances/x/kubeconfig`, { token: eve });
      // Her instance, which names no cluster: 422 about it alone.
      assert.equal(asEve.status, 422, asEve.text);
      assert.match(asEve.json.message, /p-alpha\/x has no spec\.clusterRef\.cluster/);
      const asMallory = await server.request("GET", `${GROUP_PATH}/virtualclusterinstances/x/kubeconfig`, {
        token: mallory,
      });
      assert.equal(asMallory.status, 403, asMallory.text);
      for (const answer of [asEve, asMallory]) assert.doesNotMatch(answer.text, /p-gamma/);
      assert.doesNotMatch(asMallory.text, /p-alpha/);
    });

    it("a name on a cluster-wide path is still 404 for everything but the kubeconfig action", async () => {
      assert.equal((await server.request("GET", `${GROUP_PATH}/virtualclusterinstances/vc1`)).status, 404);
      assert.equal((await server.request("GET", `${GROUP_PATH}/virtualclusterinstances/vc1/status`)).status, 404);
    });
  });

  describe("migratevirtualclusterinstance", () => {
    it("moves the instance in one transaction: same name, spec, labels, annotations; new uid; owned by the target", async () => {
      const created = await post("namespaces/p-alpha/virtualclusterinstances", {
        metadata: { name: "mover", labels: { tier: "dev" }, annotations: { "example.com/note": "hi" } },
        spec: { displayName: "Mover", clusterRef: { cluster: "c1", namespace: "team-a", virtualCluster: "vc3" } },
      });
      assert.equal(created.status, 201, created.text);
      // Only one storage write of the instance may be the move's: a transaction holding both the
      // delete and the create. Writes that took effect are counted; a status controller writing the
      // instance meanwhile is not the move's (its update changes only status), and a transaction
      // it made fail is retried by the move and was never applied.
      const storage = server.storage;
      const writes: string[] = [];
      const isMover = (key: string) => key.endsWith("/mover");
      const original = { create: storage.create, update: storage.update, delete: storage.delete, txn: storage.txn };
      storage.create = async (...a) => {
        const revision = await original.create.apply(storage, a);
        if (isMover(a[0])) writes.push("create");
        return revision;
      };
      storage.update = async (key, value, expectedModRevision) => {
        const before = isMover(key) ? await storage.get(key) : undefined;
        const revision = await original.update.call(storage, key, value, expectedModRevision);
        if (before && !changesOnlyStatus(before.value, value)) writes.push("update");
        return revision;
      };
      storage.delete = async (...a) => {
        const result = await original.delete.apply(storage, a);
        if (isMover(a[0])) writes.push("delete");
        return result;
      };
      storage.txn = async (ops) => {
        const result = await original.txn.call(storage, ops);
        if (ops.some((o) => isMover(o.key))) writes.push(`txn:${ops.map((o) => o.type).join("+")}`);
        return result;
      };
      let res: Awaited<ReturnType<typeof migrate>>;
      try {
        res = await migrate("gamma", { name: "mover", namespace: "p-alpha" });
      } finally {
        Object.assign(storage, original);
      }
      assert.equal(res.status, 201, res.text);
      assert.equal(res.json.kind, "ProjectMigrateVirtualClusterInstance");
      assert.deepEqual(writes, ["txn:delete+create"]);
      assert.equal((await getInstance("p-alpha", "mover")).status, 404);
      const moved = await getInstance("p-gamma", "mover");
      assert.equal(moved.status, 200, moved.text);
      assert.deepEqual(moved.json.spec, created.json.spec);
      assert.deepEqual(moved.json.metadata.labels, { tier: "dev" });
      assert.deepEqual(moved.json.metadata.annotations, { "example.com/note": "hi" });
      assert.notEqual(moved.json.metadata.uid, created.json.metadata.uid);
      assert.equal(moved.json.metadata.ownerReferences[0].name, "gamma");
    });

    it("an imported instance keeps its status and its CA across a move", async () => {
      const res = await migrate("gamma", { name: "vc1", namespace: "p-alpha" });
      assert.equal(res.status, 201, res.text);
      const moved = await getInstance("p-gamma", "vc1");
      assert.equal(moved.json.status.serviceUID, vc1.serviceUID);
      // Nothing deployed for it (no cleanup finalizer): no namespace to know by the project it left.
      assert.equal(moved.json.status.movedFromProject, undefined);
      const kc = await kubeconfig("p-gamma", "vc1");
      assert.equal(kc.status, 201, kc.text);
      assert.match(kc.json.status.kubeConfig, /server: https:\/\/vc1\.gamma\.vcluster\.example\.test/);
    });

    it("every error case: 422 missing fields, 404 source or project, 400 same project, 409 name taken (source kept)", async () => {
      const res422 = await migrate("alpha", { name: "plain" });
      assert.equal(res422.status, 422, res422.text);
      assert.match(res422.json.message, /sourceVirtualClusterInstance\.namespace/);
      const noSource = await migrate("gamma", { name: "ghost", namespace: "p-alpha" });
      assert.equal(noSource.status, 404, noSource.text);
      const noProject = await migrate("nope", { name: "plain", namespace: "p-alpha" });
      assert.equal(noProject.status, 404, noProject.text);
      assert.match(noProject.json.message, /projects.* "nope" not found/);
      const same = await migrate("alpha", { name: "plain", namespace: "p-alpha" });
      assert.equal(same.status, 400, same.text);
      // "x" exists in both p-alpha and p-gamma.
      const taken = await migrate("gamma", { name: "x", namespace: "p-alpha" });
      assert.equal(taken.status, 409, taken.text);
      assert.equal(taken.json.reason, "AlreadyExists");
      assert.equal((await getInstance("p-alpha", "x")).status, 200);
      // allowedClusters of the target apply to the moved instance too.
      const disallowed = await migrate("beta", { name: "plain", namespace: "p-alpha" });
      assert.equal(disallowed.status, 422, disallowed.text);
      assert.equal((await getInstance("p-alpha", "plain")).status, 200);
    });

    it("keeps the finalizers other than its cleanup's", async () => {
      const held = await post("namespaces/p-alpha/virtualclusterinstances", {
        metadata: { name: "held", finalizers: ["example.com/hold"] },
      });
      assert.equal(held.status, 201, held.text);
      const moved = await migrate("gamma", { name: "held", namespace: "p-alpha" });
      assert.equal(moved.status, 201, moved.text);
      assert.deepEqual((await getInstance("p-gamma", "held")).json.metadata.finalizers, ["example.com/hold"]);
    });

    it("an instance being deleted is not moved (409): its cleanup has begun; it stays where it is", async () => {
      const held = await post("namespaces/p-alpha/virtualclusterinstances", {
        metadata: { name: "going", finalizers: ["example.com/hold"] },
      });
      assert.equal(held.status, 201, held.text);
      const path = `${GROUP_PATH}/namespaces/p-alpha/virtualclusterinstances/going`;
      const deleting = await server.request("DELETE", path);
      assert.ok([200, 202].includes(deleting.status), deleting.text);
      const refused = await migrate("gamma", { name: "going", namespace: "p-alpha" });
      assert.equal(refused.status, 409, refused.text);
      assert.match(refused.json.message, /virtual cluster instance p-alpha\/going is being deleted/);
      assert.equal((await getInstance("p-gamma", "going")).status, 404);
      const stayed = await getInstance("p-alpha", "going");
      assert.ok(stayed.json.metadata.deletionTimestamp, stayed.text);
      const released = await server.request("PATCH", path, {
        body: { metadata: { finalizers: null } },
        contentType: "application/merge-patch+json",
      });
      assert.equal(released.status, 200, released.text);
    });
  });

  describe("kept CAs", () => {
    const caKey = (uid: string) => `${CA_KEY_PREFIX}${uid}`;

    it("two imports of one virtual cluster at the same moment: one instance, the other import 409", async () => {
      const vc = await kube.addVirtualCluster("team-a", "vc-race");
      kube.responseDelayMs = 100; // both requests are past their "already imported?" check before either writes
      let results: Array<{ status: number; text: string }>;
      try {
        results = await Promise.all([
          importVc("alpha", { name: "vc-race", namespace: "team-a", cluster: "c1", importName: "race-a" }),
          importVc("gamma", { name: "vc-race", namespace: "team-a", cluster: "c1", importName: "race-b" }),
        ]);
      } finally {
        kube.responseDelayMs = 0;
      }
      assert.deepEqual(results.map((r) => r.status).sort(), [201, 409], results.map((r) => r.text).join("\n"));
      // Usually the loser gets through the "already imported?" check and is stopped at the write
      // ("imported concurrently"); on a slow machine it may find the winner's instance first.
      assert.match(results.find((r) => r.status === 409)!.text, /imported concurrently|already imported/);
      const all = await server.request("GET", `${GROUP_PATH}/virtualclusterinstances`);
      const imported = all.json.items.filter(
        (i: { status?: { serviceUID?: string } }) => i.status?.serviceUID === vc.serviceUID,
      );
      assert.equal(imported.length, 1);
      for (const i of imported) {
        await server.request(
          "DELETE",
          `${GROUP_PATH}/namespaces/${i.metadata.namespace}/virtualclusterinstances/${i.metadata.name}`,
        );
      }
    });

    it("a CA goes with the last instance of its virtual cluster, not with a move", async () => {
      const vc = await kube.addVirtualCluster("team-a", "vc-ca");
      const imported = await importVc("alpha", { name: "vc-ca", namespace: "team-a", cluster: "c1" });
      assert.equal(imported.status, 201, imported.text);
      assert.ok(await server.storage.get(caKey(vc.serviceUID)), "kept at import");
      // A cleanup of the test's own beside the server's, the same class on the same informers: its
      // pass over the CA after the move is awaited, where the server's could only be waited a time for.
      const cleanup = new VirtualClusterCaCleanup(
        server.registry,
        server.informers,
        new VirtualClusterCaStore(server.registry),
      );
      try {
        await cleanup.start();
        await cleanup.settled();
        const moved = await migrate("gamma", { name: "vc-ca", namespace: "p-alpha" });
        assert.equal(moved.status, 201, moved.text);
        // The move deleted the old instance. Once the informer has applied that delete, its
        // listener has queued the CA; once the queue is idle, the pass that looked at it is done.
        await server.informers.for("virtualclusterinstances").sync();
        await cleanup.settled();
        assert.ok(await server.storage.get(caKey(vc.serviceUID)), "kept across the move");
      } finally {
        await cleanup.stop();
      }
      const deleted = await server.request("DELETE", `${GROUP_PATH}/namespaces/p-gamma/virtualclusterinstances/vc-ca`);
      assert.equal(deleted.status, 200, deleted.text);
      await waitFor(
        "the server's CA cleanup removing the CA",
        () => server.storage.get(caKey(vc.serviceUID)),
        (kept) => kept === undefined,
      );
    });

    it("at start, CAs without an instance are removed and the others kept", async () => {
      const orphan = caKey("00000000-0000-4000-8000-0000000000aa");
      await server.storage.create(orphan, Buffer.from("{}"));
      const inUse = caKey(vc2.serviceUID); // imported as p-gamma/renamed above
      assert.ok(await server.storage.get(inUse));
      const cleanup = new VirtualClusterCaCleanup(
        server.registry,
        server.informers,
        new VirtualClusterCaStore(server.registry),
      );
      try {
        await cleanup.start();
        await cleanup.settled();
        assert.equal(await server.storage.get(orphan), undefined);
        assert.ok(await server.storage.get(inUse));
      } finally {
        await cleanup.stop();
      }
    });
  });

  describe("authorization (the handlers ask the server's authorize for each decision)", () => {
    type Attrs = Parameters<Parameters<SubresourceHandler>[0]["authorize"]>[0];
    /** Calls a handler directly with a recording authorize that refuses what `deny` matches. */
    async function invoke(
      key: string,
      args: { method: string; namespace?: string; name: string; body: unknown },
      deny: (a: Attrs) => boolean,
      user: UserInfo = { name: "admin", subjectKind: "User", groups: [], teams: [] },
    ) {
      const handlers = new Map<string, SubresourceHandler>();
      registerVirtualClusterActions(handlers, {
        registry: server.registry,
        cas: new VirtualClusterCaStore(server.registry),
      });
      const asked: Attrs[] = [];
      let code = 0;
      let sent: unknown;
      const reply = {
        code(c: number) {
          code = c;
          return reply;
        },
        type: () => reply,
        header: () => reply,
        send: (body: unknown) => {
          sent = body;
          return reply;
        },
      };
      const [plural] = key.split("/");
      const found = server.registry.find(plural!)!;
      await handlers.get(key)!({
        request: { method: args.method, headers: { "content-type": "application/json" }, query: {} } as never,
        reply: reply as never,
        // The writes go through the registry's admission, which asks the server's own authorizer:
        // as the admin, only the handler's own asks (recorded and refused here) decide.
        ctx: { user, warnings: [] },
        path: {
          rt: found.rt,
          store: found.store,
          namespace: args.namespace,
          name: args.name,
          subresource: key.split("/")[1]!,
        },
        format: { encoding: "json", table: false },
        raw: Buffer.from(JSON.stringify(args.body)),
        authorize: async (a) => {
          asked.push(a);
          if (deny(a)) throw errors.forbiddenMessage(`denied ${a.verb} ${a.resource ?? ""}`);
        },
      });
      return { asked, code, sent };
    }

    it("import asks use and administer on the cluster and create in the project; a refusal is 403 and imports nothing", async () => {
      const body = { sourceVirtualCluster: { name: "vc3", namespace: "team-a", cluster: "c1" } };
      await assert.rejects(
        invoke("projects/importvirtualcluster", { method: "POST", name: "alpha", body }, (a) => a.verb === "use"),
        (err: { code?: number }) => err.code === 403,
      );
      // `use` alone reaches the cluster as oneself: taking over a virtual cluster someone else runs
      // there (its CA) is administering the cluster.
      await assert.rejects(
        invoke(
          "projects/importvirtualcluster",
          { method: "POST", name: "alpha", body },
          (a) => a.verb === "administer",
        ),
        (err: { code?: number; message?: string }) =>
          err.code === 403 && /administer clusters, which importing a virtual cluster/.test(err.message ?? ""),
      );
      await assert.rejects(
        invoke("projects/importvirtualcluster", { method: "POST", name: "alpha", body }, (a) => a.verb === "create"),
        (err: { code?: number }) => err.code === 403,
      );
      assert.equal((await getInstance("p-alpha", "vc3")).status, 404);
      const ok = await invoke("projects/importvirtualcluster", { method: "POST", name: "alpha", body }, () => false);
      assert.equal(ok.code, 201);
      assert.deepEqual(
        ok.asked.map((a) => [a.verb, a.resource, a.namespace, a.name]),
        [
          ["use", "clusters", "", "c1"],
          ["administer", "clusters", "", "c1"],
          ["create", "virtualclusterinstances", "p-alpha", ""],
        ],
      );
      assert.equal(ok.asked[0]!.object?.metadata.name, "c1");
      assert.equal(ok.asked[1]!.object?.metadata.name, "c1");
    });

    it("kubeconfig asks use on the instance and on its cluster (with the objects, so access rules apply)", async () => {
      const body = { spec: {} };
      await assert.rejects(
        invoke(
          "virtualclusterinstances/kubeconfig",
          { method: "POST", namespace: "p-alpha", name: "vc3", body },
          () => true,
        ),
        (err: { code?: number }) => err.code === 403,
      );
      const ok = await invoke(
        "virtualclusterinstances/kubeconfig",
        { method: "POST", namespace: "p-alpha", name: "vc3", body },
        () => false,
      );
      assert.equal(ok.code, 201);
      assert.deepEqual(
        ok.asked.map((a) => [a.verb, a.resource ?? "virtualclusterinstances", a.namespace, a.object?.metadata.name]),
        [
          ["use", "virtualclusterinstances", "p-alpha", "vc3"],
          ["use", "clusters", "", "c1"],
        ],
      );
      await assert.rejects(
        invoke(
          "virtualclusterinstances/kubeconfig",
          { method: "POST", namespace: "p-alpha", name: "vc3", body },
          (a) => a.resource === "clusters",
        ),
        (err: { code?: number }) => err.code === 403,
      );
    });

    it("the kube config's certificate says who the gateway says the caller is: groups and platform:team:<team> per team", async () => {
      const body = { spec: {} };
      const args = { method: "POST", namespace: "p-alpha", name: "vc3", body };
      const member: UserInfo = { name: "ann", subjectKind: "User", groups: ["devs"], teams: ["blue", "red"] };
      const forMember = await invoke("virtualclusterinstances/kubeconfig", args, () => false, member);
      assert.equal(forMember.code, 201);
      const subjectOf = (sent: unknown) => {
        const text = (JSON.parse(String(sent)) as { status: { kubeConfig: string } }).status.kubeConfig;
        const user = parse(text).users[0].user;
        return new X509Certificate(Buffer.from(user["client-certificate-data"], "base64")).subject;
      };
      assert.equal(subjectOf(forMember.sent), "O=devs\nO=platform:team:blue\nO=platform:team:red\nCN=ann");
      // A team key acts inside as the team's user, as through the gateway.
      const teamKey: UserInfo = { name: "blue", subjectKind: "Team", groups: [], teams: [] };
      const forTeam = await invoke("virtualclusterinstances/kubeconfig", args, () => false, teamKey);
      assert.equal(forTeam.code, 201);
      assert.equal(subjectOf(forTeam.sent), "CN=platform:team:blue");
    });

    it("a method an action does not serve asks that method's verb first: refused 403, allowed 405", async () => {
      const cases = [
        { key: "projects/importvirtualcluster", method: "PUT", namespace: undefined, verb: "update" },
        { key: "projects/migratevirtualclusterinstance", method: "DELETE", namespace: undefined, verb: "delete" },
        { key: "virtualclusterinstances/kubeconfig", method: "PATCH", namespace: "p-alpha", verb: "patch" },
      ];
      for (const { key, method, namespace, verb } of cases) {
        const args = { method, namespace, name: "alpha", body: {} };
        let asked: Attrs[] = [];
        await assert.rejects(
          invoke(key, args, (a) => {
            asked.push(a);
            return true;
          }),
          (err: { code?: number }) => err.code === 403,
        );
        assert.deepEqual(
          asked.map((a) => a.verb),
          [verb],
          `${method} ${key}`,
        );
        asked = [];
        await assert.rejects(
          invoke(key, args, (a) => {
            asked.push(a);
            return false;
          }),
          (err: { code?: number }) => err.code === 405,
        );
        assert.deepEqual(
          asked.map((a) => a.verb),
          [verb],
          `${method} ${key}`,
        );
      }
    });

    it("migrate asks delete on the source and create in the target; a refusal moves nothing", async () => {
      const body = { sourceVirtualClusterInstance: { name: "vc3", namespace: "p-alpha" } };
      await assert.rejects(
        invoke(
          "projects/migratevirtualclusterinstance",
          { method: "POST", name: "gamma", body },
          (a) => a.verb === "create",
        ),
        (err: { code?: number }) => err.code === 403,
      );
      assert.equal((await getInstance("p-alpha", "vc3")).status, 200);
      const ok = await invoke(
        "projects/migratevirtualclusterinstance",
        { method: "POST", name: "gamma", body },
        () => false,
      );
      assert.equal(ok.code, 201);
      // Each attempt asks both: the status controller may write the instance between the move's
      // read and its transaction at any time (not only its first write), and the move then reads
      // it again and asks again. Every attempt's asks are checked, however many there were.
      const asks = ok.asked.map((a) => [a.verb, a.resource, a.namespace, a.name]);
      const attempt = [
        ["delete", "virtualclusterinstances", "p-alpha", "vc3"],
        ["create", "virtualclusterinstances", "p-gamma", ""],
      ];
      assert.ok(asks.length > 0 && asks.length % attempt.length === 0, JSON.stringify(asks));
      for (let i = 0; i < asks.length; i += attempt.length) {
        assert.deepEqual(asks.slice(i, i + attempt.length), attempt, JSON.stringify(asks));
      }
    });

    it("migrate tells a caller who may not delete the instance nothing of it: 403, even where it already is", async () => {
      const body = { sourceVirtualClusterInstance: { name: "plain", namespace: "p-alpha" } };
      const refuseDelete = (a: Attrs) => a.verb === "delete";
      for (const target of ["alpha", "gamma"]) {
        await assert.rejects(
          invoke("projects/migratevirtualclusterinstance", { method: "POST", name: target, body }, refuseDelete),
          (err: { code?: number }) => err.code === 403,
          `moving p-alpha/plain to ${target}`,
        );
      }
      assert.equal((await getInstance("p-alpha", "plain")).status, 200);
    });
  });
});

/** Whether a stored object's new bytes differ from the old only in status (a status controller's write). */
function changesOnlyStatus(before: Buffer, after: Buffer): boolean {
  const withoutStatus = (bytes: Buffer) => {
    const { status: _status, ...rest } = JSON.parse(bytes.toString());
    const { managedFields: _managedFields, ...metadata } = rest.metadata;
    return { ...rest, metadata };
  };
  return isDeepStrictEqual(withoutStatus(before), withoutStatus(after));
}
