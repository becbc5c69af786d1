import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { parse } from "yaml";
import type { KubeObject } from "../api/object.js";
import { loadKeys } from "../app/keys.js";
import { renderTemplate } from "../kinds/virtual-cluster-template/render.js";
import type { TemplateVersion } from "../kinds/virtual-cluster-template/virtual-cluster-template.js";
import { systemContext } from "../registry/request-context.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";
import { waitFor } from "../testing/wait-for.js";
import { CA_KEY_PREFIX, VirtualClusterCaStore } from "./ca-store.js";
import { defaultTemplateObject } from "./default-template.js";

const API = "management.platform/v1";
const SUFFIX = "vc.example.test";

/**
 * The platform makes the certificate authority of every virtual cluster instance it creates,
 * in the same transaction as the instance (docs/virtual-clusters.md, "The certificate
 * authority"): a kube config works at once and without the cluster (which here is one the
 * platform cannot reach), the CA is kept encrypted, survives a move, and goes with the instance.
 */
describe("a created virtual cluster instance has a CA of its own", () => {
  let server: TestServer;
  const instances = (ns: string) => `${GROUP_PATH}/namespaces/${ns}/virtualclusterinstances`;
  /** An instance deployed from the default template on cluster `far` (unless `spec` says otherwise). */
  const create = (ns: string, name: string, spec: Record<string, unknown> = {}, query = "") =>
    server.request("POST", `${instances(ns)}${query}`, {
      body: {
        apiVersion: API,
        kind: "VirtualClusterInstance",
        metadata: { name },
        spec: { clusterRef: { cluster: "far" }, templateRef: { name: "default" }, ...spec },
      },
    });
  const get = async (ns: string, name: string): Promise<KubeObject> => {
    const res = await server.request("GET", `${instances(ns)}/${name}`);
    assert.equal(res.status, 200, res.text);
    return res.json;
  };
  const kubeconfig = async (ns: string, name: string) => {
    const res = await server.request("POST", `${instances(ns)}/${name}/kubeconfig`, {
      body: { apiVersion: API, kind: "VirtualClusterInstanceKubeConfig", spec: {} },
    });
    assert.equal(res.status, 201, res.text);
    const config = parse(res.json.status.kubeConfig);
    const pem = (b64: string) => Buffer.from(b64, "base64").toString("utf8");
    return {
      ca: new X509Certificate(pem(config.clusters[0].cluster["certificate-authority-data"])),
      client: new X509Certificate(pem(config.users[0].user["client-certificate-data"])),
    };
  };
  const keptCas = async () => (await server.storage.list(CA_KEY_PREFIX)).items.map((kv) => kv.key);

  before(async () => {
    server = await startTestServer();
    // A cluster the platform cannot reach: `local` without an in-cluster service account.
    const cluster = await server.request("POST", `${GROUP_PATH}/clusters`, {
      body: {
        metadata: { name: "far", annotations: { "management.platform/ingress-suffix": SUFFIX } },
        spec: { local: true },
      },
    });
    assert.equal(cluster.status, 201, cluster.text);
    for (const name of ["alpha", "beta"]) {
      const project = await server.request("POST", `${GROUP_PATH}/projects`, { body: { metadata: { name } } });
      assert.equal(project.status, 201, project.text);
    }
  });
  after(() => server?.stop());

  it("the kube config action works at once, without the cluster, signed by the instance's own CA", async () => {
    const created = await create("p-alpha", "vc1");
    assert.equal(created.status, 201, created.text);
    const caID = created.json.status.caID;
    assert.match(caID, /^[0-9a-f-]{36}$/);
    const { ca, client } = await kubeconfig("p-alpha", "vc1");
    assert.ok(ca.ca, "a certificate authority");
    assert.ok(client.verify(ca.publicKey), "the client certificate is signed by it");
    assert.match(client.subject, /CN=admin/);
    // The same CA every time; another instance has another.
    assert.equal((await kubeconfig("p-alpha", "vc1")).ca.fingerprint256, ca.fingerprint256);
    assert.equal((await create("p-alpha", "vc2")).status, 201);
    assert.notEqual((await kubeconfig("p-alpha", "vc2")).ca.fingerprint256, ca.fingerprint256);
  });

  it("the CA is kept encrypted, where no resource serves it", async () => {
    const { status } = await get("p-alpha", "vc1");
    const kv = await server.storage.get(`${CA_KEY_PREFIX}${status?.caID}`);
    assert.ok(kv, "kept under the instance's caID");
    const stored = kv.value.toString("utf8");
    assert.doesNotMatch(stored, /BEGIN|PRIVATE KEY|certPem/);
    // Nothing of it in the instance as anyone reads it.
    assert.doesNotMatch(JSON.stringify(await get("p-alpha", "vc1")), /BEGIN/);
  });

  it("the default template hands the virtual cluster the same CA (its <name>-certs Secret)", async () => {
    const instance = await get("p-alpha", "vc1");
    const { cipher } = await loadKeys({ host: "127.0.0.1", port: 0, dataDir: server.dataDir }, server.dataDir);
    const kept = await new VirtualClusterCaStore(server.registry, cipher).forInstance(instance);
    assert.ok(kept);
    const versions = defaultTemplateObject().spec?.versions as TemplateVersion[] | undefined;
    const version = versions?.[0];
    assert.ok(version);
    const rendered = renderTemplate(version, {}, { name: "vc1", project: "alpha", namespace: "p-alpha-v-vc1" }, kept);
    const certs = rendered.objects?.find((o) => o.kind === "Secret" && o.metadata.name === "vc1-certs");
    const data = certs?.data as Record<string, string>;
    const crt = new X509Certificate(Buffer.from(data["ca.crt"]!, "base64").toString("utf8"));
    assert.equal(crt.fingerprint256, (await kubeconfig("p-alpha", "vc1")).ca.fingerprint256);
    assert.match(Buffer.from(data["ca.key"]!, "base64").toString("utf8"), /BEGIN PRIVATE KEY/);
  });

  it("no CA is kept for a dry run or a refused create, nor made for an instance the platform does not deploy", async () => {
    const before = await keptCas();
    const dry = await create("p-alpha", "dry", {}, "?dryRun=All");
    assert.equal(dry.status, 201, dry.text);
    const taken = await create("p-alpha", "vc1");
    assert.equal(taken.status, 409, taken.text);
    const invalid = await create("p-alpha", "bad", { access: [{ verbs: ["fly"], users: ["*"] }] });
    assert.equal(invalid.status, 422, invalid.text);
    const external = await create("p-alpha", "outside", { external: true, templateRef: undefined });
    assert.equal(external.status, 201, external.text);
    assert.equal(external.json.status?.caID, undefined);
    // An instance that only records a virtual cluster someone else deployed: its CA is on the cluster.
    const record = await create("p-alpha", "record", { templateRef: undefined });
    assert.equal(record.status, 201, record.text);
    assert.equal(record.json.status?.caID, undefined);
    assert.deepEqual(await keptCas(), before);
    // and one for a create that is stored
    const stored = await create("p-alpha", "counted");
    assert.equal(stored.status, 201, stored.text);
    assert.deepEqual(await keptCas(), [...before, `${CA_KEY_PREFIX}${stored.json.status.caID}`].sort());
  });

  // Merge patches of the status, which need no resourceVersion: the status controller writes
  // these instances' status too, and a stale replace would be 409 before anything is checked.
  const patchStatus = (name: string, status: Record<string, unknown>) =>
    server.request("PATCH", `${instances("p-alpha")}/${name}/status`, {
      body: { status },
      contentType: "application/merge-patch+json",
    });

  it("status.serviceUID, which names an imported virtual cluster's CA, is the platform's too", async () => {
    const imported = await create("p-alpha", "imported", { external: true, templateRef: undefined });
    assert.equal(imported.status, 201, imported.text);
    // As the import writes it (the server's own write), then a client pointing it at another virtual cluster's CA.
    await server.registry
      .store("virtualclusterinstances")
      .guaranteedUpdate(
        systemContext(),
        "p-alpha",
        "imported",
        (obj) => ({ ...obj, status: { ...obj.status, serviceUID: "uid-of-mine" } }),
        "status",
        "test",
      );
    for (const serviceUID of ["uid-of-someone-else", null]) {
      const res = await patchStatus("imported", { serviceUID });
      assert.equal(res.status, 422, res.text);
      assert.match(res.json.message, /status\.serviceUID: Forbidden: set by the platform/);
    }
    assert.equal((await get("p-alpha", "imported")).status?.serviceUID, "uid-of-mine");
  });

  it("status.caID is the platform's: a status write may neither change nor drop it", async () => {
    for (const caID of [(await get("p-alpha", "vc1")).status?.caID, null]) {
      const res = await patchStatus("vc2", { caID });
      assert.equal(res.status, 422, res.text);
      assert.match(res.json.message, /status\.caID: Forbidden: set by the platform/);
    }
    const phase = await patchStatus("vc2", { phase: "Ready" });
    assert.equal(phase.status, 200, phase.text);
  });

  it("whether an instance is deployed from a template is settled when it is created", async () => {
    const path = `${instances("p-alpha")}/vc1`;
    const merge = "application/merge-patch+json";
    const dropped = await server.request("PATCH", path, { body: { spec: { templateRef: null } }, contentType: merge });
    assert.equal(dropped.status, 422, dropped.text);
    assert.match(dropped.json.message, /spec\.templateRef: Forbidden: an instance deployed from a template keeps one/);
    const recordPath = `${instances("p-alpha")}/record`;
    const given = await server.request("PATCH", recordPath, {
      body: { spec: { templateRef: { name: "default" } } },
      contentType: merge,
    });
    assert.equal(given.status, 422, given.text);
    assert.match(given.json.message, /created without a template cannot be given one/);
  });

  it("a move keeps the CA; deleting the instance removes it", async () => {
    const before = (await kubeconfig("p-alpha", "vc2")).ca.fingerprint256;
    const { caID } = (await get("p-alpha", "vc2")).status ?? {};
    const moved = await server.request("POST", `${GROUP_PATH}/projects/beta/migratevirtualclusterinstance`, {
      body: {
        apiVersion: API,
        kind: "ProjectMigrateVirtualClusterInstance",
        metadata: { name: "beta" },
        sourceVirtualClusterInstance: { name: "vc2", namespace: "p-alpha" },
      },
    });
    assert.equal(moved.status, 201, moved.text);
    assert.equal((await get("p-beta", "vc2")).status?.caID, caID);
    assert.equal((await kubeconfig("p-beta", "vc2")).ca.fingerprint256, before);
    const deleted = await server.request("DELETE", `${instances("p-beta")}/vc2`);
    assert.equal(deleted.status, 200, deleted.text);
    // Its cluster cannot be reached, so what was deployed cannot be removed: the instance waits
    // (docs/virtual-clusters.md, "Lifecycle") and its CA stays until the finalizer is removed by hand.
    assert.equal((await get("p-beta", "vc2")).metadata?.deletionTimestamp !== undefined, true);
    assert.ok(await server.storage.get(`${CA_KEY_PREFIX}${caID}`));
    const forced = await server.request("PATCH", `${instances("p-beta")}/vc2`, {
      contentType: "application/merge-patch+json",
      body: { metadata: { finalizers: null } },
    });
    assert.equal(forced.status, 200, forced.text);
    await waitFor(
      "the CA to go with its instance",
      () => server.storage.get(`${CA_KEY_PREFIX}${caID}`),
      (kept) => !kept,
    );
  });
});
