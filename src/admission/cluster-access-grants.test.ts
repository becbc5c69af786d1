import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { accessKey, postObject } from "../testing/gateway-fixture.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";

/**
 * Nobody grants rights inside a cluster they could not administer themselves: a ClusterAccess or
 * ClusterRoleTemplate reaching a cluster needs `administer` on it (docs/cluster-access.md). The
 * caller here is the admin through a key scoped to managing those two kinds and administering
 * cluster `dev` only, so every refusal below comes from this check, not from the kinds' own RBAC.
 */
describe("ClusterAccess and ClusterRoleTemplate need administer on the clusters they reach", () => {
  let server: TestServer;
  let devAdmin: string;
  const access = (name: string, clusters: string[]) => ({
    apiVersion: "management.platform/v1",
    kind: "ClusterAccess",
    metadata: { name },
    spec: { clusters, teams: ["devs"], clusterRoleTemplates: ["edit"], namespaces: ["team-a"] },
  });
  const template = (name: string, clusters: string[]) => ({
    apiVersion: "management.platform/v1",
    kind: "ClusterRoleTemplate",
    metadata: { name },
    spec: { clusters, rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get"] }] },
  });
  const post = (plural: string, body: unknown, token?: string) =>
    server.request("POST", `${GROUP_PATH}/${plural}`, { body, token });

  before(async () => {
    server = await startTestServer();
    for (const name of ["dev", "prod"])
      await postObject(server, "clusters", { metadata: { name }, spec: { local: true } });
    devAdmin = await accessKey(server, "admin", {
      rules: [
        {
          verbs: ["*"],
          resources: [{ group: "management.platform", resources: ["clusteraccesses", "clusterroletemplates"] }],
        },
        {
          verbs: ["administer"],
          resources: [{ group: "management.platform", resources: ["clusters"] }],
          resourceNames: ["dev"],
        },
      ],
    });
  });
  after(() => server?.stop());

  it("grants on a cluster one administers are accepted", async () => {
    assert.equal((await post("clusteraccesses", access("dev-edit", ["dev"]), devAdmin)).status, 201);
    assert.equal((await post("clusterroletemplates", template("dev-reader", ["dev"]), devAdmin)).status, 201);
  });

  it("a ClusterAccess or template reaching a cluster one does not administer is 403", async () => {
    for (const [plural, body] of [
      ["clusteraccesses", access("prod-edit", ["prod"])],
      ["clusteraccesses", access("both-edit", ["dev", "prod"])],
      ["clusterroletemplates", template("prod-reader", ["prod"])],
    ] as const) {
      const res = await post(plural, body, devAdmin);
      assert.equal(res.status, 403, res.text);
      assert.equal(res.json.reason, "Forbidden");
      assert.match(
        res.json.message,
        /User "admin" cannot administer resource "clusters" in API group "management.platform" \(cluster "prod"\)/,
      );
    }
    assert.equal((await server.request("GET", `${GROUP_PATH}/clusteraccesses/prod-edit`)).status, 404);
  });

  it('"*" (every cluster, future ones too) needs administer on clusters as a whole, and a cluster not yet created too', async () => {
    const all = await post("clusteraccesses", access("all-edit", ["*"]), devAdmin);
    assert.equal(all.status, 403, all.text);
    assert.match(all.json.message, /\(every cluster\)/);
    const future = await post("clusterroletemplates", template("future", ["not-yet"]), devAdmin);
    assert.equal(future.status, 403, future.text);
    // The unscoped admin administers every cluster.
    assert.equal((await post("clusteraccesses", access("all-edit", ["*"]))).status, 201);
  });

  it("changing the spec of a grant on someone else's cluster is 403, taking the cluster away too; its labels stay editable", async () => {
    await postObject(server, "clusteraccesses", access("shared", ["dev", "prod"]));
    const narrow = await server.request("PATCH", `${GROUP_PATH}/clusteraccesses/shared`, {
      body: { spec: { clusters: ["dev"] } },
      contentType: "application/merge-patch+json",
      token: devAdmin,
    });
    assert.equal(narrow.status, 403, narrow.text);
    const widen = await server.request("PATCH", `${GROUP_PATH}/clusteraccesses/dev-edit`, {
      body: { spec: { clusters: ["dev", "prod"] } },
      contentType: "application/merge-patch+json",
      token: devAdmin,
    });
    assert.equal(widen.status, 403, widen.text);
    const stored = await server.request("GET", `${GROUP_PATH}/clusteraccesses/shared`);
    assert.deepEqual(stored.json.spec.clusters, ["dev", "prod"]);
    const label = await server.request("PATCH", `${GROUP_PATH}/clusteraccesses/shared`, {
      body: { metadata: { labels: { reviewed: "yes" } } },
      contentType: "application/merge-patch+json",
      token: devAdmin,
    });
    assert.equal(label.status, 200, label.text);
  });

  it("shapes the kinds cannot use are 422", async () => {
    const cases: Array<[string, unknown, RegExp]> = [
      ["clusteraccesses", { ...access("x", []) }, /spec\.clusters/],
      ["clusteraccesses", { ...access("x", ["*", "dev"]) }, /spec\.clusters/],
      [
        "clusteraccesses",
        { ...access("x", ["dev"]), spec: { clusters: ["dev"], clusterRoleTemplates: ["edit"] } },
        /spec\.users/,
      ],
      [
        "clusteraccesses",
        {
          ...access("x", ["dev"]),
          spec: { clusters: ["dev"], users: ["a"], clusterRoleTemplates: ["edit"], namespaces: ["Not_A_Namespace"] },
        },
        /spec\.namespaces\[0\]/,
      ],
      [
        "clusteraccesses",
        { ...access("x", ["dev"]), spec: { clusters: ["dev"], users: ["a", "a"], clusterRoleTemplates: ["edit"] } },
        /spec\.users\[1\]/,
      ],
      ["clusterroletemplates", { ...template("x", ["dev"]), spec: { clusters: ["dev"] } }, /spec\.rules/],
      [
        "clusterroletemplates",
        {
          ...template("x", ["dev"]),
          spec: { clusters: ["dev"], rules: [{ resources: ["pods"], verbs: ["get"] }] },
        },
        /spec\.rules\[0\]\.apiGroups/,
      ],
      [
        "clusterroletemplates",
        {
          ...template("x", ["dev"]),
          spec: {
            clusters: ["dev"],
            rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }],
            aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: "b" } }] },
          },
        },
        /spec\.rules/,
      ],
    ];
    for (const [plural, body, field] of cases) {
      const res = await post(plural, body);
      assert.equal(res.status, 422, `${JSON.stringify(body)}: ${res.text}`);
      assert.match(res.text, field);
    }
  });
});
