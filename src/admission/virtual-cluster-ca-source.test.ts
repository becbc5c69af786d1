import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  GROUP_PATH,
  startTestServer,
  type TestResponse,
  type TestServer,
  userWithKey,
} from "../testing/test-server.js";

const API = "management.platform/v1";

/**
 * An instance neither deployed from a template nor imported stands for a virtual cluster someone
 * else runs: its CA is read from the cluster with the platform's credentials and signs its users'
 * certificates, so pointing one at a virtual cluster needs `administer` on the cluster
 * (docs/permissions.md). `dev` is a member of project web, with `use` on c1 and `use` and
 * `administer` on c3. Another project's virtual cluster runs in namespace p-shop-v-db.
 */
describe("instances not deployed from a template need administer on their cluster", () => {
  let server: TestServer;
  let dev: string;

  const instances = "namespaces/p-web/virtualclusterinstances";
  const post = (path: string, body: unknown, token?: string) =>
    server.request("POST", `${GROUP_PATH}/${path}`, { body, token });
  const patch = (path: string, body: unknown, token?: string) =>
    server.request("PATCH", `${GROUP_PATH}/${path}`, { body, token, contentType: "application/merge-patch+json" });
  const instance = (name: string, spec: Record<string, unknown>, token?: string) =>
    post(instances, { apiVersion: API, kind: "VirtualClusterInstance", metadata: { name }, spec }, token);
  const created = async (res: Promise<TestResponse>) => {
    const r = await res;
    assert.equal(r.status, 201, r.text);
    return r.json;
  };
  const refused = async (res: Promise<TestResponse>) => {
    const r = await res;
    assert.equal(r.status, 403, r.text);
    assert.equal(r.json.reason, "Forbidden");
    return r.json.message as string;
  };
  const foreign = { cluster: "c1", namespace: "p-shop-v-db", virtualCluster: "db" };

  before(async () => {
    server = await startTestServer();
    dev = await userWithKey(server, "dev");
    await created(
      post("clusters", {
        metadata: { name: "c1" },
        spec: { local: true, access: [{ users: ["dev"], verbs: ["use"] }] },
      }),
    );
    await created(
      post("clusters", {
        metadata: { name: "c3" },
        spec: { local: true, access: [{ users: ["dev"], verbs: ["use", "administer"] }] },
      }),
    );
    await created(post("projects", { metadata: { name: "web" }, spec: { members: [{ kind: "User", name: "dev" }] } }));
  });
  after(() => server?.stop());

  it("a member who only uses the cluster cannot point a new instance at a virtual cluster there, nor mark one imported", async () => {
    const message = await refused(instance("taken", { clusterRef: foreign }, dev));
    assert.match(message, /User "dev" cannot administer resource "clusters" .*cluster "c1"/);
    assert.match(message, /an instance not deployed from a template/);
    await refused(instance("claimed", { clusterRef: foreign, external: true }, dev));
    for (const name of ["taken", "claimed"]) {
      assert.equal((await server.request("GET", `${GROUP_PATH}/${instances}/${name}`)).status, 404);
    }
  });

  it("who administers the cluster may; an instance from a template needs only use", async () => {
    await created(instance("mine", { clusterRef: { ...foreign, cluster: "c3" } }, dev));
    await created(instance("deployed", { clusterRef: { cluster: "c1" }, templateRef: { name: "default" } }, dev));
  });

  it("re-pointing an admin's instance needs administer too; its other fields stay writable with update", async () => {
    await created(instance("by-admin", { clusterRef: { cluster: "c1", namespace: "team-a", virtualCluster: "vc" } }));
    await refused(patch(`${instances}/by-admin`, { spec: { clusterRef: foreign } }, dev));
    await refused(patch(`${instances}/by-admin`, { spec: { external: true } }, dev));
    const labelled = await patch(`${instances}/by-admin`, { metadata: { labels: { tier: "dev" } } }, dev);
    assert.equal(labelled.status, 200, labelled.text);
    const stored = await server.request("GET", `${GROUP_PATH}/${instances}/by-admin`);
    assert.deepEqual(stored.json.spec.clusterRef, { cluster: "c1", namespace: "team-a", virtualCluster: "vc" });
  });
});
