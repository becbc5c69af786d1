import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";

const G = GROUP_PATH;
const API_VERSION = "management.platform/v1";
const b64 = (s: string) => Buffer.from(s).toString("base64");
type Spec = Record<string, unknown>;

/**
 * One row of "Fields that name other objects" (docs/permissions.md): the object kind, a
 * spec without the reference, the spec with it, and two callers who may both write the
 * object — `allowed` holds the right on the referenced object, `denied` does not.
 */
interface Row {
  id: string;
  kind: string;
  /** Collection path under the group, e.g. `clusters` or `namespaces/p-web/virtualclusterinstances`. */
  collection: string;
  base: Spec;
  withRef: () => Spec | Promise<Spec>;
  /** Metadata the reference lives in instead of spec (ownerReferences). */
  metadata?: () => Promise<Record<string, unknown>>;
  allowed: string;
  denied: string;
  deniedStatus: number;
  verbs: Verb[];
}
type Verb = "create" | "update" | "merge-patch" | "json-patch" | "apply";
const ALL_VERBS: Verb[] = ["create", "update", "merge-patch", "json-patch", "apply"];

describe("fields that name other objects need the caller's right on them", () => {
  let s: TestServer;
  const key: Record<string, string> = {};

  const create = async (path: string, body: Record<string, unknown>, token?: string) => {
    const r = await s.request("POST", `${G}/${path}`, { body, token });
    assert.equal(r.status, 201, `${path}: ${r.text}`);
    return r.json;
  };
  const newKey = async (name: string, spec: Record<string, unknown>) => {
    key[name] = (await create("ownedaccesskeys", { metadata: { name }, spec })).spec.key;
  };
  const adminScoped = (resources: string[], verbs = ["*"]) => ({
    user: "admin",
    scope: { rules: [{ verbs, resources: [{ group: "management.platform", resources }] }] },
  });

  before(async () => {
    s = await startTestServer({ maxFailedAuthPerMinute: 1000 });
    for (const name of ["alice", "bob", "ops", "mallory"]) await create("users", { metadata: { name }, spec: {} });
    await create("teams", { metadata: { name: "devs" }, spec: { users: ["alice"] } });
    await create("projects", {
      metadata: { name: "web" },
      spec: {
        members: [
          { kind: "User", name: "alice" },
          { kind: "User", name: "bob" },
        ],
      },
    });
    await create("clusters", {
      metadata: { name: "prod" },
      // alice administers prod: the instances here are not deployed from a template and name
      // namespaces made by hand there, which only who administers the cluster may point one at
      // (kinds/virtual-cluster-instance/ca-source.ts). What is under test is bob's missing use.
      spec: { local: true, access: [{ verbs: ["use", "delete", "administer"], users: ["alice"] }] },
    });
    await create("clusters", {
      metadata: { name: "dev" },
      spec: { local: true, access: [{ verbs: ["use", "get"], users: ["alice", "bob"] }] },
    });
    await create("namespaces/platform/sharedsecrets", {
      metadata: { name: "prod-kubeconfig" },
      spec: { data: { config: b64("apiVersion: v1\nkind: Config\n") } },
    });
    await create("namespaces/platform/sharedsecrets", {
      metadata: { name: "ops-kubeconfig" },
      spec: { data: { config: b64("apiVersion: v1\nkind: Config\n") }, access: [{ verbs: ["get"], users: ["ops"] }] },
    });
    await create("clusters", {
      metadata: { name: "ops-cluster" },
      spec: {
        config: { secretName: "ops-kubeconfig" },
        access: [{ verbs: ["get", "update", "patch"], users: ["ops"] }],
      },
    });
    await create("clusters", {
      metadata: { name: "shared" },
      spec: { local: true, access: [{ verbs: ["use"], users: ["alice"] }] },
    });
    for (const u of ["alice", "bob", "ops", "mallory"]) await newKey(u, { user: u });
    await newKey("cluster-team-admin", adminScoped(["clusters", "teams"]));
    await newKey("cluster-admin", adminScoped(["clusters"]));
    await newKey("cluster-secret-admin", adminScoped(["clusters", "sharedsecrets"]));
  });
  after(async () => {
    await s?.stop();
  });

  describe("hole 1: a virtual cluster instance's clusterRef needs use on the cluster", () => {
    it("refuses creating an instance on a cluster the member may not use", async () => {
      const r = await s.request("POST", `${G}/namespaces/p-web/virtualclusterinstances`, {
        token: key.bob,
        body: { metadata: { name: "sneaky" }, spec: { clusterRef: { cluster: "prod", namespace: "x" } } },
      });
      assert.equal(r.status, 403, r.text);
      assert.match(r.json.message, /cannot use resource "clusters".*spec\.clusterRef\.cluster/);
      const ok = await s.request("POST", `${G}/namespaces/p-web/virtualclusterinstances`, {
        token: key.alice,
        body: { metadata: { name: "fine" }, spec: { clusterRef: { cluster: "prod", namespace: "x" } } },
      });
      assert.equal(ok.status, 201, ok.text);
    });

    it("refuses a kube config for an instance whose cluster the caller may not use", async () => {
      await create("namespaces/p-web/virtualclusterinstances", {
        metadata: { name: "on-prod" },
        spec: { clusterRef: { cluster: "prod", namespace: "vc", virtualCluster: "vc" } },
      });
      const r = await s.request("POST", `${G}/namespaces/p-web/virtualclusterinstances/on-prod/kubeconfig`, {
        token: key.bob,
        body: { apiVersion: API_VERSION, kind: "VirtualClusterInstanceKubeConfig", spec: {} },
      });
      assert.equal(r.status, 403, r.text);
      assert.match(r.json.message, /cannot use resource "clusters"/);
    });
  });

  describe("hole 2: JSON patch reads only what the caller may read; errors carry no object content", () => {
    const SECRET = b64("hunter2-secret");
    const jsonPatch = (path: string, ops: unknown[], token: string) =>
      s.request("PATCH", `${G}/${path}?dryRun=All`, { token, body: ops, contentType: "application/json-patch+json" });
    before(async () => {
      await create("namespaces/platform/sharedsecrets", {
        metadata: { name: "patch-only" },
        spec: {
          data: { password: SECRET },
          access: [
            { verbs: ["patch"], users: ["mallory"] },
            { verbs: ["get", "patch"], users: ["alice"] },
          ],
        },
      });
    });
    const secretPath = "namespaces/platform/sharedsecrets/patch-only";

    it("a test op on data the caller may not get is refused, matching or not", async () => {
      for (const value of [SECRET, b64("wrong")]) {
        const r = await jsonPatch(secretPath, [{ op: "test", path: "/spec/data/password", value }], key.mallory);
        assert.equal(r.status, 403, r.text);
        assert.ok(!r.text.includes(SECRET), r.text);
      }
    });
    it("copy and move from hidden data are refused and echo nothing", async () => {
      for (const op of ["copy", "move"]) {
        const r = await jsonPatch(
          secretPath,
          [{ op, from: "/spec/data/password", path: "/metadata/name" }],
          key.mallory,
        );
        assert.equal(r.status, 403, r.text);
        assert.ok(!r.text.includes(SECRET), r.text);
      }
    });
    it("a caller who may get the secret can still test it", async () => {
      const ok = await jsonPatch(secretPath, [{ op: "test", path: "/spec/data/password", value: SECRET }], key.alice);
      assert.equal(ok.status, 200, ok.text);
      const no = await jsonPatch(secretPath, [{ op: "test", path: "/spec/data/password", value: "eA==" }], key.alice);
      assert.equal(no.status, 422, no.text);
      assert.ok(!no.text.includes(SECRET), "a failed test does not show the document");
    });
    it("reading what the caller wrote earlier in the same patch is fine", async () => {
      const r = await jsonPatch(
        secretPath,
        [
          { op: "add", path: "/metadata/annotations", value: { "example.com/a": "1" } },
          { op: "test", path: "/metadata/annotations/example.com~1a", value: "1" },
        ],
        key.mallory,
      );
      assert.equal(r.status, 403, "mallory may not get the object at all, so no read is allowed");
      const own = await jsonPatch(
        "namespaces/platform/sharedsecrets/patch-only",
        [
          { op: "add", path: "/metadata/annotations", value: { "example.com/a": "1" } },
          { op: "copy", from: "/metadata/annotations/example.com~1a", path: "/spec/description" },
        ],
        key.alice,
      );
      assert.equal(own.status, 200, own.text);
      assert.equal(own.json.spec.description, "1");
    });
    it("the stored hash of an access key is never read by a patch, nor shown by a failed one", async () => {
      const stored = await s.request("GET", `${G}/ownedaccesskeys/mallory`, { token: key.mallory });
      assert.equal(stored.status, 200, stored.text);
      for (const token of [key.mallory, s.adminKey]) {
        const r = await jsonPatch("ownedaccesskeys/mallory", [{ op: "test", path: "/spec/key", value: "x" }], token);
        assert.equal(r.status, 403, r.text);
        // A replace of a key the object lacks succeeds (as on kube-apiserver): the reads after it are checked too.
        const afterReplace = await jsonPatch(
          "ownedaccesskeys/mallory",
          [
            { op: "replace", path: "/spec/description", value: "d" },
            { op: "test", path: "/spec/key", value: "x" },
          ],
          token,
        );
        assert.equal(afterReplace.status, 403, afterReplace.text);
        const bad = await jsonPatch(
          "ownedaccesskeys/mallory",
          [{ op: "test", path: "/spec/user", value: "nobody" }],
          token,
        );
        assert.equal(bad.status, 422, bad.text);
        assert.doesNotMatch(bad.text, /"key"|tree|creationTimestamp/, "no document in the error");
      }
    });
  });

  describe("hole 3: a cluster's config secret needs get on it", () => {
    it("refuses pointing a cluster at a secret the writer cannot read", async () => {
      const r = await s.request("PATCH", `${G}/clusters/ops-cluster`, {
        token: key.ops,
        contentType: "application/merge-patch+json",
        body: { spec: { config: { secretName: "prod-kubeconfig" } } },
      });
      assert.equal(r.status, 403, r.text);
      assert.match(r.json.message, /cannot get resource "sharedsecrets".*spec\.config\.secretName/);
      const stored = await s.request("GET", `${G}/clusters/ops-cluster`);
      assert.equal(stored.json.spec.config.secretName, "ops-kubeconfig");
      // Other fields stay writable while the reference is unchanged.
      const other = await s.request("PATCH", `${G}/clusters/ops-cluster`, {
        token: key.ops,
        contentType: "application/merge-patch+json",
        body: { spec: { description: "still mine" } },
      });
      assert.equal(other.status, 200, other.text);
    });
  });

  describe("hole 4: an access key for a user or team that does not exist", () => {
    for (const field of ["user", "team"]) {
      it(`refuses spec.${field} naming no ${field} with 422`, async () => {
        const r = await s.request("POST", `${G}/ownedaccesskeys`, {
          body: { metadata: { name: `ghost-${field}` }, spec: { [field]: "ghost" } },
        });
        assert.equal(r.status, 422, r.text);
        assert.match(r.json.message, new RegExp(`spec\\.${field}: Invalid value: "ghost": no ${field} of this name`));
        const applied = await s.request("PATCH", `${G}/ownedaccesskeys/ghost-${field}?fieldManager=t`, {
          contentType: "application/apply-patch+yaml",
          body: {
            apiVersion: API_VERSION,
            kind: "OwnedAccessKey",
            metadata: { name: `ghost-${field}` },
            spec: { [field]: "ghost" },
          },
        });
        assert.equal(applied.status, 422, applied.text);
      });
    }
    it("still creates keys for subjects that exist", async () => {
      await create("ownedaccesskeys", { metadata: { name: "devs-key" }, spec: { team: "devs" } });
      await create("ownedaccesskeys", { metadata: { name: "bob-2" }, spec: { user: "bob" } }, key.bob);
    });
  });

  describe("matrix: an allowed caller and a caller without the right, on every write", () => {
    const canWriteShared = [{ verbs: ["get", "update", "patch"], users: ["alice", "bob"] }];
    /** A shared secret whose data alice reads and bob does not, made once for the project secret row. */
    let aliceReads: Promise<unknown> | undefined;
    const sharedSecretAliceReads = () => {
      aliceReads ??= create("namespaces/platform/sharedsecrets", {
        metadata: { name: "alice-reads" },
        spec: { data: { token: b64("t") }, access: [{ verbs: ["get"], users: ["alice"] }] },
      });
      return aliceReads;
    };
    const rows: Row[] = [
      {
        id: "ps-source",
        kind: "ProjectSecret",
        collection: "namespaces/p-web/projectsecrets",
        base: {},
        withRef: async () => {
          await sharedSecretAliceReads();
          return { source: { sharedSecret: { name: "alice-reads" } } };
        },
        allowed: "alice",
        denied: "bob",
        deniedStatus: 403,
        verbs: ALL_VERBS,
      },
      {
        id: "vci-cluster",
        kind: "VirtualClusterInstance",
        collection: "namespaces/p-web/virtualclusterinstances",
        // alice's instance, so a write replacing the spec keeps its owner (changing it is OwnerRights').
        base: { owner: { user: "alice" } },
        withRef: () => ({ owner: { user: "alice" }, clusterRef: { cluster: "prod", namespace: "vc" } }),
        allowed: "alice",
        denied: "bob",
        deniedStatus: 403,
        verbs: ALL_VERBS,
      },
      {
        id: "vci-owner",
        kind: "VirtualClusterInstance",
        collection: "namespaces/p-web/virtualclusterinstances",
        // Naming an owner also needs administer on the instance (admission/owner-rights.ts): alice holds it.
        base: { access: [{ verbs: ["administer"], users: ["alice"] }] },
        withRef: () => ({ owner: { user: "alice" } }),
        allowed: "alice",
        denied: "bob",
        deniedStatus: 403,
        verbs: ALL_VERBS,
      },
      {
        id: "vci-owner-reference",
        kind: "VirtualClusterInstance",
        collection: "namespaces/p-web/virtualclusterinstances",
        base: { owner: { user: "alice" } },
        withRef: () => ({ owner: { user: "alice" } }),
        metadata: async () => {
          const prod = await s.request("GET", `${G}/clusters/prod`);
          const ref = { apiVersion: API_VERSION, kind: "Cluster", name: "prod", uid: prod.json.metadata.uid };
          return { ownerReferences: [{ ...ref, blockOwnerDeletion: true }] };
        },
        allowed: "alice",
        denied: "bob",
        deniedStatus: 422,
        verbs: ALL_VERBS,
      },
      {
        id: "cluster-secret",
        kind: "Cluster",
        collection: "clusters",
        base: { local: true },
        withRef: () => ({ local: true, config: { secretName: "prod-kubeconfig", secretNamespace: "platform" } }),
        allowed: "cluster-secret-admin",
        denied: "cluster-admin",
        deniedStatus: 403,
        verbs: ALL_VERBS,
      },
      {
        id: "cluster-owner",
        kind: "Cluster",
        collection: "clusters",
        base: { local: true },
        withRef: () => ({ local: true, owner: { team: "devs" } }),
        allowed: "cluster-team-admin",
        denied: "cluster-admin",
        deniedStatus: 403,
        verbs: ALL_VERBS,
      },
      {
        id: "cluster-access",
        kind: "Cluster",
        collection: "clusters",
        base: { local: true, access: canWriteShared },
        withRef: () => ({ local: true, access: [...canWriteShared, { verbs: ["use"], users: ["mallory"] }] }),
        allowed: "cluster-admin",
        denied: "bob",
        deniedStatus: 403,
        // Only admins create clusters, and they hold every verb.
        verbs: ["update", "merge-patch", "json-patch", "apply"],
      },
      {
        id: "project-members",
        kind: "Project",
        collection: "projects",
        base: {
          access: [
            { verbs: ["*"], users: ["alice"] },
            { verbs: ["get", "update", "patch"], users: ["bob"] },
          ],
        },
        withRef: () => ({
          access: [
            { verbs: ["*"], users: ["alice"] },
            { verbs: ["get", "update", "patch"], users: ["bob"] },
          ],
          members: [{ kind: "User", name: "mallory" }],
        }),
        allowed: "alice",
        denied: "bob",
        deniedStatus: 403,
        verbs: ["update", "merge-patch", "json-patch", "apply"],
      },
    ];

    const write = async (row: Row, verb: Verb, name: string, token: string) => {
      const spec = await row.withRef();
      const extra = row.metadata ? await row.metadata() : {};
      const item = `${G}/${row.collection}/${name}`;
      const full = { apiVersion: API_VERSION, kind: row.kind, metadata: { name, ...extra }, spec };
      if (verb === "create") return s.request("POST", `${G}/${row.collection}`, { token, body: full });
      if (verb === "apply") {
        return s.request("PATCH", `${item}?fieldManager=matrix&force=true`, {
          token,
          body: full,
          contentType: "application/apply-patch+yaml",
        });
      }
      if (verb === "update") {
        // A controller may write the status in between (clusters): retry on conflict.
        for (let attempt = 0; ; attempt++) {
          const current = (await s.request("GET", item)).json;
          const body = { ...current, metadata: { ...current.metadata, ...extra }, spec };
          const r = await s.request("PUT", item, { token, body });
          if (r.status !== 409 || attempt >= 5) return r;
        }
      }
      if (verb === "merge-patch") {
        return s.request("PATCH", item, {
          token,
          body: { metadata: extra, spec },
          contentType: "application/merge-patch+json",
        });
      }
      const ops: unknown[] = [{ op: "add", path: "/spec", value: spec }];
      for (const [k, v] of Object.entries(extra)) ops.push({ op: "add", path: `/metadata/${k}`, value: v });
      return s.request("PATCH", item, { token, body: ops, contentType: "application/json-patch+json" });
    };

    for (const row of rows) {
      it(`${row.id}: ${row.verbs.join(", ")}`, async () => {
        for (const verb of row.verbs) {
          for (const who of ["allowed", "denied"] as const) {
            const name = `${row.id}-${verb}-${who}`;
            if (verb !== "create") {
              await create(row.collection, { metadata: { name }, spec: row.base });
            }
            const caller = row[who];
            const r = await write(row, verb, name, key[caller]);
            const expected = who === "denied" ? [row.deniedStatus] : verb === "create" ? [201] : [200, 201];
            assert.ok(expected.includes(r.status), `${row.id} ${verb} by ${caller}: ${r.status} ${r.text}`);
          }
        }
      });
    }
  });
});
