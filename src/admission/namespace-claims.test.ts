import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { stringify } from "yaml";
import type { KubeObject } from "../api/object.js";
import { NAMESPACE_CLAIM_GUARDS } from "../kinds/held-namespaces.js";
import { encodeObject } from "../registry/codec.js";
import { EtcdCluster } from "../testing/etcd-cluster.js";
import { KUBECTL, postObject } from "../testing/gateway-fixture.js";
import {
  GROUP_PATH,
  startTestServer,
  type TestResponse,
  type TestServer,
  userWithKey,
} from "../testing/test-server.js";
import { waitFor } from "../testing/wait-for.js";

const API = "management.platform/v1";
type Kind = "SpaceInstance" | "VirtualClusterInstance";
const PLURAL: Record<Kind, string> = {
  SpaceInstance: "spaceinstances",
  VirtualClusterInstance: "virtualclusterinstances",
};

/**
 * One namespace on one connected cluster belongs to one space or virtual cluster instance
 * (src/admission/namespace-claims.ts, docs/spaces.md "One namespace, one holder"): a create, a
 * move or an update that would make a second holder is refused with 409, naming the holder only
 * to a caller who may read it; a delete frees the namespace; a move keeps it, so that an instance
 * of the same name made in the old project is refused; objects stored with a conflict before the
 * rule stay usable; guard keys of namespaces nobody holds go, at start too. On both backends.
 */
for (const backend of ["sqlite", "etcd"] as const) {
  describe(`one namespace, one holder (${backend})`, { timeout: 180_000 }, () => {
    let etcd: EtcdCluster | undefined;
    let server: TestServer;
    let alice: string;
    let bob: string;
    const start = (dataDir?: string) =>
      startTestServer({ ...(etcd ? { storage: etcd.url } : {}), ...(dataDir ? { dataDir } : {}) });
    const path = (project: string, kind: Kind, name = "") =>
      `${GROUP_PATH}/namespaces/p-${project}/${PLURAL[kind]}${name ? `/${name}` : ""}`;
    const body = (kind: Kind, name: string, clusterRef: Record<string, string> = {}) => ({
      apiVersion: API,
      kind,
      metadata: { name },
      spec: {
        clusterRef: { cluster: "c1", ...clusterRef },
        // An instance deployed from a template holds its namespace (an imported one holds none).
        ...(kind === "VirtualClusterInstance" ? { templateRef: { name: "default" } } : {}),
      },
    });
    const create = (project: string, kind: Kind, name: string, clusterRef?: Record<string, string>, token?: string) =>
      server.request("POST", path(project, kind), { body: body(kind, name, clusterRef), token });
    const guard = (id: string) => server.registry.keptKeys(NAMESPACE_CLAIM_GUARDS).get(id);
    const assertRefused = (res: TestResponse, name: string, holder: RegExp) => {
      assert.equal(res.status, 409, res.text);
      assert.equal(res.json.kind, "Status");
      assert.equal(res.json.reason, "Conflict");
      assert.equal(res.json.details.name, name);
      assert.match(res.json.message, holder);
    };
    /** Drops the finalizer (the cluster of these tests is never reached), then waits until the object is gone. */
    const removeFully = async (url: string) => {
      const deleted = await server.request("DELETE", url);
      assert.equal(deleted.status, 200, deleted.text);
      const patched = await server.request("PATCH", url, {
        body: { metadata: { finalizers: null } },
        contentType: "application/merge-patch+json",
      });
      assert.ok(patched.status === 200 || patched.status === 404, patched.text);
      await waitFor(
        "the object to go",
        async () => (await server.request("GET", url)).status,
        (s) => s === 404,
      );
    };

    before(async () => {
      if (backend === "etcd") etcd = await EtcdCluster.start(1);
      server = await start();
      alice = await userWithKey(server, "alice");
      bob = await userWithKey(server, "bob");
      for (const name of ["c1", "c2"]) {
        await postObject(server, "clusters", {
          metadata: { name },
          spec: { local: true, access: [{ verbs: ["use"], users: ["alice", "bob"] }] },
        });
      }
      const members = { mine: ["alice", "bob"], hidden: ["bob"], a: [], b: [] } as Record<string, string[]>;
      for (const [name, users] of Object.entries(members)) {
        await postObject(server, "projects", {
          metadata: { name },
          spec: { allowedClusters: [{ name: "*" }], members: users.map((u) => ({ kind: "User", name: u })) },
        });
      }
    });
    after(async () => {
      await server?.stop();
      await etcd?.stop();
    });

    it("a second space or instance naming a held namespace gets 409 naming the holder; other namespaces and clusters are free", async () => {
      const first = await create("a", "SpaceInstance", "web");
      assert.equal(first.status, 201, first.text);
      assert.equal(first.json.spec.clusterRef.namespace, "web", "a space's namespace defaults to its name");
      const byWeb =
        /^Operation cannot be fulfilled on (spaceinstances|virtualclusterinstances)\.management\.platform "[a-z-]+": namespace "web" on cluster "c1" already belongs to SpaceInstance p-a\/web; give this one another spec\.clusterRef\.namespace$/;
      // The same name in another project: the same default namespace.
      assertRefused(await create("b", "SpaceInstance", "web"), "web", byWeb);
      assertRefused(await create("b", "SpaceInstance", "other", { namespace: "web" }), "other", byWeb);
      assertRefused(await create("a", "SpaceInstance", "again", { namespace: "web" }), "again", byWeb);
      // A virtual cluster deployed there too.
      assertRefused(await create("b", "VirtualClusterInstance", "vc", { namespace: "web" }), "vc", byWeb);
      for (const [project, kind, name] of [
        ["b", "SpaceInstance", "web"],
        ["b", "SpaceInstance", "other"],
        ["a", "SpaceInstance", "again"],
        ["b", "VirtualClusterInstance", "vc"],
      ] as const) {
        assert.equal((await server.request("GET", path(project, kind, name))).status, 404, `${project}/${name} stored`);
      }
      // The other way round: a deployed instance's default namespace, p-<project>-v-<name>.
      const deployed = await create("a", "VirtualClusterInstance", "dev");
      assert.equal(deployed.status, 201, deployed.text);
      assert.equal(deployed.json.spec.clusterRef.namespace, "p-a-v-dev");
      assertRefused(
        await create("b", "SpaceInstance", "grab", { namespace: "p-a-v-dev" }),
        "grab",
        /namespace "p-a-v-dev" on cluster "c1" already belongs to VirtualClusterInstance p-a\/dev;/,
      );
      // The same namespace on another cluster, and a dry run of a refused one.
      assert.equal((await create("b", "SpaceInstance", "web", { cluster: "c2" })).status, 201);
      const dry = await server.request("POST", `${path("b", "SpaceInstance")}?dryRun=All`, {
        body: body("SpaceInstance", "dry", { namespace: "web" }),
      });
      assertRefused(dry, "dry", byWeb);
      assert.ok(await guard("c1/web"), "the holder's create wrote the namespace's guard");
      assert.ok(await guard("c2/web"));
    });

    it("the holder is named only to a caller who may read it", async () => {
      assert.equal((await create("hidden", "SpaceInstance", "secret-ns")).status, 201);
      assert.equal(
        (await server.request("GET", path("hidden", "SpaceInstance", "secret-ns"), { token: alice })).status,
        403,
      );
      const refused = await create("mine", "SpaceInstance", "mine-1", { namespace: "secret-ns" }, alice);
      assertRefused(
        refused,
        "mine-1",
        /namespace "secret-ns" on cluster "c1" already belongs to another space or virtual cluster instance; give this one another spec\.clusterRef\.namespace$/,
      );
      assert.doesNotMatch(refused.text, /hidden|SpaceInstance/);
      // bob is a member of both projects: he may read it, and is told.
      assertRefused(
        await create("mine", "SpaceInstance", "mine-1", { namespace: "secret-ns" }, bob),
        "mine-1",
        /already belongs to SpaceInstance p-hidden\/secret-ns;/,
      );
    });

    it("kubectl shows the refusal, with the holder or without it", async () => {
      assert.equal((await create("a", "SpaceInstance", "kube-held")).status, 201);
      assert.equal((await create("hidden", "SpaceInstance", "kube-hidden")).status, 201);
      const kubectl = (token: string, manifest: unknown) =>
        new Promise<{ code: number; stderr: string }>((resolve) => {
          const child = execFile(
            KUBECTL,
            [`--kubeconfig=${server.kubeconfig(token)}`, "create", "-f", "-"],
            { timeout: 30_000 },
            (err, _out, stderr) => resolve({ code: err ? 1 : 0, stderr }),
          );
          child.stdin?.end(stringify(manifest));
        });
      const admin = await kubectl(server.adminKey, {
        ...body("SpaceInstance", "k", { namespace: "kube-held" }),
        metadata: { name: "k", namespace: "p-b" },
      });
      assert.equal(admin.code, 1);
      assert.equal(
        admin.stderr.trim(),
        'Error from server (Conflict): error when creating "STDIN": Operation cannot be fulfilled on spaceinstances.management.platform "k": namespace "kube-held" on cluster "c1" already belongs to SpaceInstance p-a/kube-held; give this one another spec.clusterRef.namespace',
      );
      const member = await kubectl(alice, {
        ...body("SpaceInstance", "k", { namespace: "kube-hidden" }),
        metadata: { name: "k", namespace: "p-mine" },
      });
      assert.equal(member.code, 1);
      assert.equal(
        member.stderr.trim(),
        'Error from server (Conflict): error when creating "STDIN": Operation cannot be fulfilled on spaceinstances.management.platform "k": namespace "kube-hidden" on cluster "c1" already belongs to another space or virtual cluster instance; give this one another spec.clusterRef.namespace',
      );
    });

    it("an update that moves an instance into a held namespace is refused; its other updates pass", async () => {
      assert.equal((await create("a", "SpaceInstance", "taken")).status, 201);
      assert.equal((await create("b", "VirtualClusterInstance", "mover")).status, 201);
      const url = path("b", "VirtualClusterInstance", "mover");
      const patch = (spec: unknown) =>
        server.request("PATCH", url, { body: { spec }, contentType: "application/merge-patch+json" });
      assertRefused(
        await patch({ clusterRef: { namespace: "taken" } }),
        "mover",
        /namespace "taken" on cluster "c1" already belongs to SpaceInstance p-a\/taken;/,
      );
      const described = await patch({ description: "still here" });
      assert.equal(described.status, 200, described.text);
      assert.equal(described.json.spec.clusterRef.namespace, "p-b-v-mover");
      // To a free namespace: the instance holds it now, and the one it left is free.
      assert.equal((await patch({ clusterRef: { namespace: "moved-on" } })).status, 200);
      assertRefused(await create("a", "SpaceInstance", "moved-on"), "moved-on", /VirtualClusterInstance p-b\/mover;/);
      assert.equal((await create("a", "SpaceInstance", "p-b-v-mover")).status, 201);
    });

    it("racing creates of one namespace: exactly one wins", async () => {
      for (const round of [0, 1, 2]) {
        const namespace = `race-${round}`;
        const racers = Array.from({ length: 6 }, (_, i) =>
          create(i % 2 ? "a" : "b", i % 3 ? "SpaceInstance" : "VirtualClusterInstance", `r${round}-${i}`, {
            namespace,
          }),
        );
        const results = await Promise.all(racers);
        const detail = results.map((r) => `${r.status} ${r.text}`).join("\n");
        assert.equal(results.filter((r) => r.status === 201).length, 1, detail);
        assert.equal(results.filter((r) => r.status === 409).length, 5, detail);
      }
    });

    it("a delete frees the namespace; while the holder is being deleted it is still held; then its guard goes", async () => {
      assert.equal((await create("a", "SpaceInstance", "free")).status, 201);
      const url = path("a", "SpaceInstance", "free");
      assert.equal((await server.request("DELETE", url)).status, 200);
      assertRefused(
        await create("b", "SpaceInstance", "free"),
        "free",
        /already belongs to SpaceInstance p-a\/free \(being deleted: the namespace is free once it is gone\);/,
      );
      await removeFully(url);
      const newcomer = await create("b", "SpaceInstance", "free");
      assert.equal(newcomer.status, 201, newcomer.text);
      await removeFully(path("b", "SpaceInstance", "free"));
      await waitFor(
        "the guard of a namespace nobody holds to go",
        () => guard("c1/free"),
        (g) => g === undefined,
      );
    });

    it("a move keeps the namespace: an instance of the same name made in the old project meanwhile gets 409", async () => {
      const move = (kind: Kind, name: string) =>
        server.request("POST", `${GROUP_PATH}/projects/b/migrate${kind.toLowerCase()}`, {
          body: { apiVersion: API, kind: `ProjectMigrate${kind}`, [`source${kind}`]: { name, namespace: "p-a" } },
        });
      for (const [kind, name, namespace] of [
        ["SpaceInstance", "twin", "twin"],
        ["VirtualClusterInstance", "vtwin", "p-a-v-vtwin"],
      ] as const) {
        const made = await create("a", kind, name);
        assert.equal(made.status, 201, made.text);
        assert.equal(made.json.spec.clusterRef.namespace, namespace);
        // Never deployed: no namespace UID recorded, the case where labels alone would decide.
        assert.equal(made.json.status?.namespaceUID, undefined);
        const moved = await move(kind, name);
        assert.equal(moved.status, 201, moved.text);
        const arrived = await server.request("GET", path("b", kind, name));
        assert.equal(arrived.json.spec.clusterRef.namespace, namespace, "the moved one keeps its namespace");
        const again = await create("a", kind, name);
        assertRefused(
          again,
          name,
          new RegExp(`namespace "${namespace}" on cluster "c1" already belongs to ${kind} p-b/${name};`),
        );
        assert.ok(await guard(`c1/${namespace}`));
      }
    });

    it("objects stored with a conflict before the rule stay readable, writable and deletable", async () => {
      // As an older version stored them: two spaces of two projects holding one namespace.
      const store = server.registry.store("spaceinstances");
      for (const [project, name] of [
        ["a", "legacy-a"],
        ["b", "legacy-b"],
      ]) {
        const obj: KubeObject = {
          apiVersion: API,
          kind: "SpaceInstance",
          metadata: { name, namespace: `p-${project}`, uid: randomUUID(), creationTimestamp: new Date().toISOString() },
          spec: { clusterRef: { cluster: "c1", namespace: "legacy" } },
        };
        await store.storage.create(store.key(`p-${project}`, name), encodeObject(obj));
      }
      for (const [project, name] of [
        ["a", "legacy-a"],
        ["b", "legacy-b"],
      ]) {
        const url = path(project, "SpaceInstance", name);
        assert.equal((await server.request("GET", url)).status, 200);
        const labelled = await server.request("PATCH", url, {
          body: { metadata: { labels: { kept: "yes" } } },
          contentType: "application/merge-patch+json",
        });
        assert.equal(labelled.status, 200, labelled.text);
      }
      assertRefused(
        await create("mine", "SpaceInstance", "legacy"),
        "legacy",
        /already belongs to SpaceInstance p-a\/legacy-a;/,
      );
      await removeFully(path("a", "SpaceInstance", "legacy-a"));
      // Still held by the other one.
      assertRefused(
        await create("mine", "SpaceInstance", "legacy"),
        "legacy",
        /already belongs to SpaceInstance p-b\/legacy-b;/,
      );
      await removeFully(path("b", "SpaceInstance", "legacy-b"));
      assert.equal((await create("mine", "SpaceInstance", "legacy")).status, 201);
    });

    it("at start, guard keys of namespaces nobody holds are removed; a held one's stays", async () => {
      assert.ok(await guard("c1/web"));
      await server.registry
        .keptKeys(NAMESPACE_CLAIM_GUARDS)
        .create("c1/ghost", "left by a holder deleted while no controller ran");
      const dataDir = server.dataDir;
      await server.stop({ keepData: true });
      server = await start(dataDir);
      await waitFor(
        "the orphan guard to go",
        () => guard("c1/ghost"),
        (g) => g === undefined,
      );
      assert.ok(await guard("c1/web"), "the held namespace's guard stays");
    });
  });
}
