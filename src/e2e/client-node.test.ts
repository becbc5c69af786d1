import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  CustomObjectsApi,
  type Informer,
  KubeConfig,
  type KubernetesObject,
  KubernetesObjectApi,
  makeInformer,
  type ObjectCache,
  PatchStrategy,
  setHeaderOptions,
  Watch,
} from "@kubernetes/client-node";
import { startTestServer, type TestServer } from "../testing/test-server.js";

/** @kubernetes/client-node 1.4 against a real server: CustomObjectsApi on every kind, Watch, and an informer across a restart. */
const group = "management.platform";
const version = "v1";

interface Obj extends KubernetesObject {
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

const kinds: Array<{ plural: string; kind: string; namespace?: string; spec: Record<string, unknown> }> = [
  { plural: "teams", kind: "Team", spec: { displayName: "Team A" } },
  { plural: "users", kind: "User", spec: { displayName: "Bob", email: "bob@example.com" } },
  {
    plural: "clusters",
    kind: "Cluster",
    spec: { displayName: "Prod", config: { secretName: "prod-kubeconfig", secretNamespace: "platform" } },
  },
  { plural: "ownedaccesskeys", kind: "OwnedAccessKey", spec: { displayName: "CI", user: "admin" } },
  { plural: "projects", kind: "Project", spec: { displayName: "Web" } },
  {
    plural: "sharedsecrets",
    kind: "SharedSecret",
    namespace: "platform",
    spec: { displayName: "DB", data: { a: "Yg==" } },
  },
  {
    plural: "virtualclusterinstances",
    kind: "VirtualClusterInstance",
    namespace: "p-web",
    spec: { displayName: "dev" },
  },
];

/** Polls until `check` passes (bounded), so event delivery is awaited without fixed sleeps. */
async function eventually(check: () => void, what: string): Promise<void> {
  let last: unknown;
  for (let i = 0; i < 300; i++) {
    try {
      check();
      return;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}: ${String(last)}`);
}

describe("@kubernetes/client-node", () => {
  let server: TestServer;
  let kc: KubeConfig;
  let api: CustomObjectsApi;

  before(async () => {
    server = await startTestServer();
    kc = new KubeConfig();
    kc.loadFromFile(server.kubeconfig());
    api = kc.makeApiClient(CustomObjectsApi);
    // Virtual cluster instances live in a project's namespace, and the project must exist.
    await api.createClusterCustomObject({
      group,
      version,
      plural: "projects",
      body: { apiVersion: `${group}/${version}`, kind: "Project", metadata: { name: "web" }, spec: {} },
    });
  });
  after(async () => {
    await server.stop();
  });

  for (const k of kinds) {
    it(`${k.kind}: create, get, list, replace, patch (JSON and merge), delete`, async () => {
      const name = `cn-${k.kind.toLowerCase()}`;
      const body = { apiVersion: `${group}/${version}`, kind: k.kind, metadata: { name }, spec: k.spec };
      const ns = k.namespace;
      const created: Obj = ns
        ? await api.createNamespacedCustomObject({ group, version, namespace: ns, plural: k.plural, body })
        : await api.createClusterCustomObject({ group, version, plural: k.plural, body });
      assert.equal(created.metadata?.name, name);
      assert.ok(created.metadata?.uid);

      const get = (): Promise<Obj> =>
        ns
          ? api.getNamespacedCustomObject({ group, version, namespace: ns, plural: k.plural, name })
          : api.getClusterCustomObject({ group, version, plural: k.plural, name });
      // Controllers may write the object right after create (cluster health, project owner link), so the
      // resourceVersion can have moved on: the uid is what must match.
      const got = await get();
      assert.equal(got.metadata?.uid, created.metadata?.uid);

      const list: { kind: string; items: Obj[] } = ns
        ? await api.listNamespacedCustomObject({ group, version, namespace: ns, plural: k.plural })
        : await api.listClusterCustomObject({ group, version, plural: k.plural });
      assert.equal(list.kind, `${k.kind}List`);
      assert.ok(list.items.some((i) => i.metadata?.name === name));

      // A replace carries the resourceVersion it read; like any client, retry from a fresh read on 409.
      const replace = async (): Promise<Obj> => {
        const current = await get();
        const changed = { ...current, spec: { ...current.spec, description: "replaced" } };
        return ns
          ? api.replaceNamespacedCustomObject({ group, version, namespace: ns, plural: k.plural, name, body: changed })
          : api.replaceClusterCustomObject({ group, version, plural: k.plural, name, body: changed });
      };
      let replaced: Obj | undefined;
      for (let attempt = 0; !replaced; attempt++) {
        try {
          replaced = await replace();
        } catch (err) {
          if ((err as { code?: number }).code !== 409 || attempt >= 5) throw err;
        }
      }
      assert.equal(replaced.spec?.description, "replaced");

      const jsonPatch = [{ op: "replace", path: "/spec/description", value: "json" }];
      const patched: Obj = ns
        ? await api.patchNamespacedCustomObject({
            group,
            version,
            namespace: ns,
            plural: k.plural,
            name,
            body: jsonPatch,
          })
        : await api.patchClusterCustomObject({ group, version, plural: k.plural, name, body: jsonPatch });
      assert.equal(patched.spec?.description, "json");
      const merge = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);
      const mergeBody = { metadata: { labels: { merged: "yes" } } };
      const merged: Obj = ns
        ? await api.patchNamespacedCustomObject(
            { group, version, namespace: ns, plural: k.plural, name, body: mergeBody },
            merge,
          )
        : await api.patchClusterCustomObject({ group, version, plural: k.plural, name, body: mergeBody }, merge);
      assert.equal(merged.metadata?.labels?.merged, "yes");
      assert.equal(merged.spec?.description, "json");

      if (ns) await api.deleteNamespacedCustomObject({ group, version, namespace: ns, plural: k.plural, name });
      else await api.deleteClusterCustomObject({ group, version, plural: k.plural, name });
      await assert.rejects(get(), (err: { code?: number }) => err.code === 404);
    });
  }

  it("KubernetesObjectApi: read, then replace what was read", async () => {
    // The generic API turns creationTimestamp into a Date and back (`…:16.000Z` for `…:16Z`): a
    // replace of what it read must not be refused as changing an immutable field.
    const objects = KubernetesObjectApi.makeApiClient(kc);
    const spec = { metadata: { name: "cn-roundtrip" }, spec: { displayName: "Round trip" } };
    await objects.create({ apiVersion: `${group}/${version}`, kind: "Team", ...spec });
    const read = await objects.read({
      apiVersion: `${group}/${version}`,
      kind: "Team",
      metadata: { name: "cn-roundtrip" },
    });
    assert.ok(read.metadata?.creationTimestamp instanceof Date);
    const replaced = await objects.replace({ ...read, spec: { displayName: "Replaced" } } as KubernetesObject);
    assert.equal((replaced as Obj).spec?.displayName, "Replaced");
    assert.equal(replaced.metadata?.creationTimestamp?.getTime(), read.metadata?.creationTimestamp?.getTime());
    await objects.delete(replaced);
  });

  it("create-only kinds: selves and directclusterendpointtokens", async () => {
    const self: Obj = await api.createClusterCustomObject({
      group,
      version,
      plural: "selves",
      body: { apiVersion: `${group}/${version}`, kind: "Self" },
    });
    assert.equal(self.kind, "Self");
    assert.equal(self.status?.user, "admin");
    const token: Obj = await api.createClusterCustomObject({
      group,
      version,
      plural: "directclusterendpointtokens",
      body: { apiVersion: `${group}/${version}`, kind: "DirectClusterEndpointToken", spec: {} },
    });
    assert.match(String(token.status?.token), /^[\w-]+\.[\w-]+\.[\w-]+$/);
  });

  it("Watch streams ADDED, MODIFIED and DELETED", async () => {
    const events: Array<{ type: string; name?: string }> = [];
    const watch = new Watch(kc);
    const controller = await watch.watch(
      `/apis/${group}/${version}/teams`,
      { allowWatchBookmarks: true },
      (type, obj: Obj) => events.push({ type, name: obj.metadata?.name }),
      () => {},
    );
    try {
      const body = { apiVersion: `${group}/${version}`, kind: "Team", metadata: { name: "watched" } };
      await api.createClusterCustomObject({ group, version, plural: "teams", body });
      const mergeOpt = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);
      await api.patchClusterCustomObject(
        { group, version, plural: "teams", name: "watched", body: { spec: { displayName: "W" } } },
        mergeOpt,
      );
      await api.deleteClusterCustomObject({ group, version, plural: "teams", name: "watched" });
      await eventually(() => {
        const mine = events.filter((e) => e.name === "watched").map((e) => e.type);
        assert.deepEqual(mine, ["ADDED", "MODIFIED", "DELETED"]);
      }, "watch events");
    } finally {
      controller.abort();
    }
  });

  it("an informer stays in sync through creates, updates, deletes and a server restart", async () => {
    const path = `/apis/${group}/${version}/teams`;
    const makeTeam = (name: string, displayName: string) => ({
      apiVersion: `${group}/${version}`,
      kind: "Team",
      metadata: { name },
      spec: { displayName },
    });
    let informer: (Informer<Obj> & ObjectCache<Obj>) | undefined;
    let restarts = 0;
    let stopped = false;
    const newInformer = (client: CustomObjectsApi) => {
      const inf = makeInformer<Obj>(kc, path, () =>
        client.listClusterCustomObject({ group, version, plural: "teams" }),
      );
      // The documented pattern: on a broken connection, start again (it resumes from its last resourceVersion).
      inf.on("error", () => {
        if (stopped) return;
        restarts++;
        setTimeout(() => void inf.start().catch(() => {}), 100);
      });
      return inf;
    };
    const names = () =>
      (informer?.list() ?? [])
        .map((o) => `${o.metadata?.name}=${o.spec?.displayName ?? ""}`)
        .sort()
        .join(",");
    try {
      informer = newInformer(api);
      await informer.start();
      await api.createClusterCustomObject({ group, version, plural: "teams", body: makeTeam("i1", "one") });
      await api.createClusterCustomObject({ group, version, plural: "teams", body: makeTeam("i2", "two") });
      await eventually(() => assert.equal(names(), "i1=one,i2=two"), "informer adds");
      const merge = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);
      await api.patchClusterCustomObject(
        { group, version, plural: "teams", name: "i1", body: { spec: { displayName: "uno" } } },
        merge,
      );
      await api.deleteClusterCustomObject({ group, version, plural: "teams", name: "i2" });
      await eventually(() => assert.equal(names(), "i1=uno"), "informer update and delete");

      // Restart the server on the same data and port; the informer must notice and catch up.
      const { dataDir, port } = server;
      await server.stop({ keepData: true });
      server = await startTestServer({ dataDir, port });
      await eventually(() => assert.ok(restarts > 0, "the informer saw the connection break"), "informer error");
      await api.createClusterCustomObject({ group, version, plural: "teams", body: makeTeam("i3", "three") });
      await api.patchClusterCustomObject(
        { group, version, plural: "teams", name: "i1", body: { spec: { displayName: "eins" } } },
        merge,
      );
      await eventually(() => assert.equal(names(), "i1=eins,i3=three"), "informer after restart");
      await api.deleteClusterCustomObject({ group, version, plural: "teams", name: "i3" });
      await eventually(() => assert.equal(names(), "i1=eins"), "informer delete after restart");
    } finally {
      stopped = true;
      await informer?.stop();
    }
  });
});
