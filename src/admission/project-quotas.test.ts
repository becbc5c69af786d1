import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { postObject } from "../testing/gateway-fixture.js";
import { GROUP_PATH, startTestServer, type TestServer, userWithKey } from "../testing/test-server.js";

const API = "management.platform/v1";
/** Polling bound for the status controller (a hang guard; the test asserts on values, not time). */
const POLLS = 200;
const POLL_MS = 25;

const instance = (
  kind: "SpaceInstance" | "VirtualClusterInstance",
  name: string,
  spec: Record<string, unknown> = {},
) => ({
  apiVersion: API,
  kind,
  metadata: { name },
  spec: { clusterRef: { cluster: "c1" }, ...spec },
});

/**
 * Project.spec.quotas at admission (docs/spaces.md#quotas): creates and moves over a quota are
 * refused with a 403 naming it, a delete frees its slot, a sleeping virtual cluster does not count
 * as running, racing creates never exceed a quota, and status.quotas reports used and limit.
 */
describe("project quotas", () => {
  let server: TestServer;
  let alice: string;
  let bob: string;
  const path = (project: string, resource: string) => `${GROUP_PATH}/namespaces/p-${project}/${resource}`;
  const project = (name: string, quotas: Record<string, unknown>) =>
    postObject(server, "projects", {
      metadata: { name },
      spec: {
        quotas,
        members: [
          { kind: "User", name: "alice" },
          { kind: "User", name: "bob" },
        ],
      },
    });
  const create = (p: string, body: ReturnType<typeof instance>, token?: string) =>
    server.request("POST", path(p, body.kind === "SpaceInstance" ? "spaceinstances" : "virtualclusterinstances"), {
      body,
      token,
    });
  const vci = (name: string, spec?: Record<string, unknown>) => instance("VirtualClusterInstance", name, spec);
  /**
   * What a member creates: an instance of the default template. One without a template names a
   * virtual cluster run by hand on c1, which needs `administer` on it
   * (kinds/virtual-cluster-instance/ca-source.ts); the admin's instances here are such records.
   */
  const memberVci = (name: string) => vci(name, { templateRef: { name: "default" } });
  const space = (name: string, spec?: Record<string, unknown>) => instance("SpaceInstance", name, spec);

  before(async () => {
    server = await startTestServer();
    alice = await userWithKey(server, "alice");
    bob = await userWithKey(server, "bob");
    await postObject(server, "clusters", {
      metadata: { name: "c1" },
      spec: { local: true, access: [{ verbs: ["use"], users: ["alice", "bob"] }] },
    });
  });
  after(() => server?.stop());

  it("refuses a negative or fractional quota with 422 naming the field", async () => {
    for (const value of [-1, 1.5]) {
      const res = await server.request("POST", `${GROUP_PATH}/projects`, {
        body: {
          apiVersion: API,
          kind: "Project",
          metadata: { name: "bad" },
          spec: { quotas: { user: { spaceInstances: value } } },
        },
      });
      assert.equal(res.status, 422, res.text);
      assert.match(res.text, /spec\.quotas\.user\.spaceInstances/);
    }
  });

  it("a member who may create instances cannot raise the project's quotas (403)", async () => {
    await project("guarded", { project: { spaceInstances: 1 } });
    const raised = await server.request("PATCH", `${GROUP_PATH}/projects/guarded`, {
      body: { spec: { quotas: { project: { spaceInstances: 100 } } } },
      contentType: "application/merge-patch+json",
      token: alice,
    });
    assert.equal(raised.status, 403, raised.text);
    const stored = await server.request("GET", `${GROUP_PATH}/projects/guarded`);
    assert.deepEqual(stored.json.spec.quotas, { project: { spaceInstances: 1 } });
  });

  it("refuses the create over a project quota with 403 naming it; a delete frees the slot", async () => {
    await project("limited", { project: { virtualClusterInstances: 2 } });
    assert.equal((await create("limited", vci("one"))).status, 201);
    assert.equal((await create("limited", memberVci("two"), alice)).status, 201);
    const refused = await create("limited", memberVci("three"), alice);
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.json.reason, "Forbidden");
    assert.equal(refused.json.details.kind, "virtualclusterinstances");
    assert.equal(
      refused.json.message,
      'virtualclusterinstances.management.platform "three" is forbidden: project quota virtualClusterInstances=2 reached in project "limited" (2 used)',
    );
    const deleted = await server.request("DELETE", `${path("limited", "virtualclusterinstances")}/one`);
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal((await create("limited", memberVci("three"), alice)).status, 201);
  });

  it("counts a user's instances against the user quota, each user apart; an instance without owner is its creator's", async () => {
    await project("per-user", { user: { spaceInstances: 1, virtualClusterInstances: 1 } });
    assert.equal((await create("per-user", space("alices"), alice)).status, 201);
    const second = await create("per-user", space("alices-2"), alice);
    assert.equal(second.status, 403, second.text);
    assert.match(
      second.json.message,
      /user quota for "alice": spaceInstances=1 reached in project "per-user" \(1 used\)/,
    );
    assert.equal((await create("per-user", space("bobs"), bob)).status, 201);
    // A virtual cluster names no owner: alice's own create makes it hers, so it counts.
    const owned = await create("per-user", memberVci("v"), alice);
    assert.equal(owned.status, 201, owned.text);
    assert.deepEqual(owned.json.spec.owner, { user: "alice" });
    assert.equal((await create("per-user", memberVci("v2"), alice)).status, 403);
  });

  it("counts a team's instances against the team quota", async () => {
    await project("per-team", { team: { virtualClusterInstances: 1 } });
    await postObject(server, "teams", { metadata: { name: "red" }, spec: {} });
    assert.equal((await create("per-team", vci("a", { owner: { team: "red" } }))).status, 201);
    const refused = await create("per-team", vci("b", { owner: { team: "red" } }));
    assert.equal(refused.status, 403, refused.text);
    assert.match(refused.json.message, /team quota for "red": virtualClusterInstances=1 reached/);
    assert.equal((await create("per-team", vci("b", { owner: { user: "alice" } }))).status, 201);
  });

  it("a sleeping virtual cluster does not count against the running quota", async () => {
    await project("sleepy", { project: { runningVirtualClusterInstances: 1 } });
    assert.equal((await create("sleepy", vci("awake"))).status, 201);
    assert.equal((await create("sleepy", vci("second"))).status, 403);
    // The sleep action (status.sleep; the status controller then scales the workload down).
    const slept = await server.request("POST", `${path("sleepy", "virtualclusterinstances")}/awake/sleep`, {
      body: {},
    });
    assert.equal(slept.status, 200, slept.text);
    assert.equal((await create("sleepy", vci("second"))).status, 201);
    // A third running one is past the quota again: "second" runs.
    assert.equal((await create("sleepy", vci("third"))).status, 403);
  });

  it("refuses a move into a project at its quota, and leaves the instance where it was", async () => {
    await project("full", { project: { virtualClusterInstances: 1 } });
    await project("source", {});
    assert.equal((await create("full", vci("resident"))).status, 201);
    assert.equal((await create("source", vci("mover"))).status, 201);
    const moved = await server.request("POST", `${GROUP_PATH}/projects/full/migratevirtualclusterinstance`, {
      body: {
        apiVersion: API,
        kind: "ProjectMigrateVirtualClusterInstance",
        sourceVirtualClusterInstance: { name: "mover", namespace: "p-source" },
      },
    });
    assert.equal(moved.status, 403, moved.text);
    assert.match(moved.json.message, /project quota virtualClusterInstances=1 reached in project "full" \(1 used\)/);
    assert.equal((await server.request("GET", `${path("source", "virtualclusterinstances")}/mover`)).status, 200);
  });

  it("racing creates for the last slots: exactly the quota's number win, the rest get the 403", async () => {
    await project("race", { project: { virtualClusterInstances: 3 } });
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => create("race", memberVci(`r${i}`), i % 2 ? alice : bob)),
    );
    const codes = results.map((r) => r.status).sort();
    assert.deepEqual(codes, [201, 201, 201, 403, 403, 403, 403, 403], results.map((r) => r.text).join("\n"));
    const listed = await server.request("GET", path("race", "virtualclusterinstances"));
    assert.equal(listed.json.items.length, 3);
  });

  it("racing moves into a project: exactly the quota's number arrive, the rest stay where they were", async () => {
    await project("move-target", { project: { virtualClusterInstances: 2 } });
    await project("move-source", {});
    const names = ["m0", "m1", "m2", "m3", "m4"];
    for (const n of names) assert.equal((await create("move-source", vci(n))).status, 201);
    const results = await Promise.all(
      names.map((n) =>
        server.request("POST", `${GROUP_PATH}/projects/move-target/migratevirtualclusterinstance`, {
          body: {
            apiVersion: API,
            kind: "ProjectMigrateVirtualClusterInstance",
            sourceVirtualClusterInstance: { name: n, namespace: "p-move-source" },
          },
        }),
      ),
    );
    const codes = results.map((r) => r.status).sort();
    assert.deepEqual(codes, [201, 201, 403, 403, 403], results.map((r) => r.text).join("\n"));
    const arrived = await server.request("GET", path("move-target", "virtualclusterinstances"));
    const stayed = await server.request("GET", path("move-source", "virtualclusterinstances"));
    assert.equal(arrived.json.items.length, 2);
    assert.equal(stayed.json.items.length, 3);
  });

  it("status.quotas shows used and limit for the project and each owner", async () => {
    await project("shown", { project: { spaceInstances: 5 }, user: { spaceInstances: 2 } });
    assert.equal((await create("shown", space("s1"), alice)).status, 201);
    assert.equal((await create("shown", space("s2"), alice)).status, 201);
    assert.equal((await create("shown", space("s3"), bob)).status, 201);
    const want = {
      project: { spaceInstances: { used: 3, limit: 5 } },
      users: { alice: { spaceInstances: { used: 2, limit: 2 } }, bob: { spaceInstances: { used: 1, limit: 2 } } },
    };
    let seen: unknown;
    for (let i = 0; i < POLLS && JSON.stringify(seen) !== JSON.stringify(want); i++) {
      seen = (await server.request("GET", `${GROUP_PATH}/projects/shown`)).json.status?.quotas;
      if (JSON.stringify(seen) !== JSON.stringify(want)) await sleep(POLL_MS);
    }
    assert.deepEqual(seen, want);
    const table = await server.request("GET", `${GROUP_PATH}/projects/shown`, {
      headers: { Accept: "application/json;as=Table;v=v1;g=meta.k8s.io" },
    });
    const column = table.json.columnDefinitions.findIndex((c: { name: string }) => c.name === "Quotas");
    assert.equal(table.json.rows[0].cells[column], "spaceInstances=3/5");
  });
});
