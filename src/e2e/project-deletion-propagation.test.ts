import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { EtcdCluster } from "../testing/etcd-cluster.js";
import { postObject } from "../testing/gateway-fixture.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";
import { waitFor } from "../testing/wait-for.js";

const run = promisify(execFile);

/**
 * Deleting a project with each propagation policy (docs/object-lifecycle.md, "Deleting a
 * project"): Orphan leaves its virtual cluster instances, spaces and project secrets in place
 * without the ownerReference; Foreground and Background delete them. On both storage backends:
 * the garbage collector and admission are the same code, the stores are not.
 */
for (const backend of ["sqlite", "etcd"] as const) {
  describe(`deleting a project: propagation to its instances and secrets (${backend})`, { timeout: 180_000 }, () => {
    let etcd: EtcdCluster | undefined;
    let server: TestServer;
    const get = (path: string) => server.request("GET", `${GROUP_PATH}/${path}`);
    const gone = (path: string) =>
      waitFor(
        `${path} gone`,
        () => get(path),
        (r) => r.status === 404,
      );
    /** A project `name` holding a virtual cluster instance, a space and a project secret. */
    const projectWithDependents = async (name: string) => {
      const project = await postObject(server, "projects", { metadata: { name }, spec: {} });
      const ns = `namespaces/p-${name}`;
      await postObject(server, `${ns}/virtualclusterinstances`, { metadata: { name: "vc" }, spec: {} });
      await postObject(server, `${ns}/spaceinstances`, {
        metadata: { name: "space" },
        // A namespace of its own: the spaces of earlier projects (orphans among them) hold theirs.
        spec: { clusterRef: { cluster: "c1", namespace: `space-${name}` } },
      });
      await postObject(server, `${ns}/projectsecrets`, {
        metadata: { name: "secret" },
        spec: { data: { token: Buffer.from("s3cret").toString("base64") } },
      });
      const paths = [`${ns}/virtualclusterinstances/vc`, `${ns}/spaceinstances/space`, `${ns}/projectsecrets/secret`];
      for (const path of paths) {
        const refs = (await get(path)).json.metadata.ownerReferences;
        assert.equal(refs?.[0]?.uid, project.metadata.uid, `${path} is owned by its project`);
      }
      return { project, paths };
    };
    /**
     * Waits until the garbage collector has handled everything queued so far: it works through
     * its queue in order, so once a dependent deleted after now is collected, earlier work is done.
     */
    let marks = 0;
    const collectorCaughtUp = async () => {
      const user = `mark-${++marks}`;
      await postObject(server, "users", { metadata: { name: user }, spec: {} });
      const key = await postObject(server, "ownedaccesskeys", {
        metadata: { generateName: `${user}-` },
        spec: { user },
      });
      assert.equal((await server.request("DELETE", `${GROUP_PATH}/users/${user}`)).status, 200);
      await gone(`ownedaccesskeys/${key.metadata.name}`);
    };

    before(async () => {
      if (backend === "etcd") etcd = await EtcdCluster.start(1);
      server = await startTestServer(etcd ? { storage: etcd.url } : {});
      await postObject(server, "clusters", { metadata: { name: "c1" }, spec: { local: true } });
    });
    after(async () => {
      await server?.stop();
      await etcd?.stop();
    });

    it("kubectl delete --cascade=orphan: the project goes, its instances and secrets stay without the ownerReference", async () => {
      const { paths } = await projectWithDependents("keep");
      await run("kubectl", ["--kubeconfig", server.kubeconfig(), "delete", "project", "keep", "--cascade=orphan"]);
      await gone("projects/keep");
      await collectorCaughtUp();
      for (const path of paths) {
        const res = await get(path);
        assert.equal(res.status, 200, `${path} stays: ${res.text}`);
        assert.equal(res.json.metadata.ownerReferences, undefined, `${path} has no owner left`);
        assert.equal(res.json.metadata.deletionTimestamp, undefined, `${path} is not being deleted`);
      }
      // Listed in their namespace as before, although no project makes it a namespace any more.
      const { stdout } = await run("kubectl", [
        ...["--kubeconfig", server.kubeconfig(), "get", "virtualclusterinstances,spaceinstances,projectsecrets"],
        ...["-n", "p-keep", "-o", "name"],
      ]);
      assert.deepEqual(stdout.trim().split("\n").sort(), [
        "projectsecret.management.platform/secret",
        "spaceinstance.management.platform/space",
        "virtualclusterinstance.management.platform/vc",
      ]);
      assert.equal((await server.request("GET", "/kubernetes/management/api/v1/namespaces/p-keep")).status, 404);
      // The orphans are still written to as usual; no owner comes back with the write.
      const labelled = await server.request("PATCH", `${GROUP_PATH}/${paths[0]}`, {
        body: { metadata: { labels: { kept: "yes" } } },
        contentType: "application/merge-patch+json",
      });
      assert.equal(labelled.status, 200, labelled.text);
      assert.equal(labelled.json.metadata.ownerReferences, undefined);
      // No new content in the namespace of a project that does not exist.
      const create = await server.request("POST", `${GROUP_PATH}/namespaces/p-keep/virtualclusterinstances`, {
        body: { metadata: { name: "new" }, spec: {} },
      });
      assert.equal(create.status, 404, create.text);
    });

    it("a project created again under the name does not take the orphans, until a write hands one to it", async () => {
      const { paths } = await projectWithDependents("again");
      const del = await server.request("DELETE", `${GROUP_PATH}/projects/again?propagationPolicy=Orphan`);
      assert.equal(del.status, 200, del.text);
      assert.deepEqual(del.json.metadata.finalizers, ["orphan"]);
      await gone("projects/again");
      const project = await postObject(server, "projects", { metadata: { name: "again" }, spec: {} });
      const [vc, space] = paths as [string, string];
      // docs/object-lifecycle.md's hand-over, as a shell runs it (its project web and instance dev named here).
      const handOver = `
        uid=$(kubectl get project again -o jsonpath='{.metadata.uid}')
        kubectl patch virtualclusterinstance vc -n p-again --type=merge -p \\
          "{\\"metadata\\":{\\"ownerReferences\\":[{\\"apiVersion\\":\\"management.platform/v1\\",\\"kind\\":\\"Project\\",\\"name\\":\\"again\\",\\"uid\\":\\"$uid\\"}]}}"
      `;
      await run("sh", ["-ec", handOver], { env: { ...process.env, KUBECONFIG: server.kubeconfig() } });
      const handed = await get(vc);
      assert.deepEqual(handed.json.metadata.ownerReferences, [
        { apiVersion: "management.platform/v1", kind: "Project", name: "again", uid: project.metadata.uid },
      ]);
      // An unrelated write to the other orphan leaves it an orphan.
      const touched = await server.request("PATCH", `${GROUP_PATH}/${space}`, {
        body: { metadata: { labels: { touched: "yes" } } },
        contentType: "application/merge-patch+json",
      });
      assert.equal(touched.status, 200, touched.text);
      assert.equal(touched.json.metadata.ownerReferences, undefined);

      assert.equal((await server.request("DELETE", `${GROUP_PATH}/projects/again`)).status, 200);
      await gone(vc);
      await collectorCaughtUp();
      assert.equal((await get(space)).status, 200, "the orphan the new project never took stays");
    });

    it("Foreground: the instance and the secret are deleted before the project goes", async () => {
      await postObject(server, "projects", { metadata: { name: "fg" }, spec: {} });
      const vc = "namespaces/p-fg/virtualclusterinstances/vc";
      const secret = "namespaces/p-fg/projectsecrets/secret";
      await postObject(server, "namespaces/p-fg/virtualclusterinstances", { metadata: { name: "vc" }, spec: {} });
      await postObject(server, "namespaces/p-fg/projectsecrets", { metadata: { name: "secret" }, spec: {} });
      const del = await server.request("DELETE", `${GROUP_PATH}/projects/fg?propagationPolicy=Foreground`);
      assert.equal(del.status, 200, del.text);
      await gone(vc);
      await gone(secret);
      await gone("projects/fg");
    });

    it("Background: the project goes, then its instance and secret", async () => {
      await postObject(server, "projects", { metadata: { name: "bg" }, spec: {} });
      const vc = "namespaces/p-bg/virtualclusterinstances/vc";
      const secret = "namespaces/p-bg/projectsecrets/secret";
      await postObject(server, "namespaces/p-bg/virtualclusterinstances", { metadata: { name: "vc" }, spec: {} });
      await postObject(server, "namespaces/p-bg/projectsecrets", { metadata: { name: "secret" }, spec: {} });
      assert.equal((await server.request("DELETE", `${GROUP_PATH}/projects/bg`)).status, 200);
      await gone(vc);
      await gone(secret);
    });
  });
}
