import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import dns from "node:dns";
import { after, before, describe, it } from "node:test";
import { parse } from "yaml";
import { INGRESS_SUFFIX_ANNOTATION } from "../api/endpoint-annotations.js";
import { FakeClusterApiServer } from "../testing/fake-cluster-apiserver.js";
import { FakeKubeApiServer } from "../testing/fake-kube-apiserver.js";
import { connectCluster, postObject } from "../testing/gateway-fixture.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";

/**
 * Instance "db-x" of project "a" and instance "db" of project "x-a" on one cluster with an
 * ingress suffix: each has a host of its own (docs/virtual-clusters.md, "The host of a virtual
 * cluster"), in the kube configs handed out and where the gateway sends its users' requests.
 *
 * Each virtual cluster is a stand-in (testing/fake-cluster-apiserver.ts) serving its ingress host
 * with a certificate of its own CA, as a virtual cluster behind a TLS-passthrough ingress does,
 * on port 443 of an address of its own in 127.0.0.0/8 (CI runs as root, .ci/run). Nothing
 * resolves the test's suffix, so this process's DNS lookup answers for the hosts under it (the
 * test server runs in this process): a host the table does not name does not resolve.
 */
const SUFFIX = "vc.example.test";
const HTTPS_PORT = 443;

describe("virtual cluster hosts under a cluster's ingress suffix", () => {
  let server: TestServer;
  let host: FakeKubeApiServer;
  const standIns: Record<string, FakeClusterApiServer> = {};
  const addresses = new Map<string, string>();
  const originalLookup = dns.lookup;

  /** The two instances whose names, joined with '-', gave one host. */
  const instances = [
    { project: "a", name: "db-x", namespace: "team-a" },
    { project: "x-a", name: "db", namespace: "team-b" },
  ];

  before(async () => {
    // An address block of this run's own, so test files running at once do not share port 443.
    const block = `127.${randomInt(1, 255)}.${randomInt(1, 255)}`;
    dns.lookup = ((hostname: string, options: unknown, callback: unknown) => {
      if (!hostname.endsWith(`.${SUFFIX}`)) return Reflect.apply(originalLookup, dns, [hostname, options, callback]);
      const done = (typeof options === "function" ? options : callback) as (...args: unknown[]) => void;
      const address = addresses.get(hostname);
      const all = typeof options === "object" && (options as { all?: boolean }).all;
      if (!address) {
        process.nextTick(() =>
          done(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" })),
        );
      } else if (all) process.nextTick(() => done(null, [{ address, family: 4 }]));
      else process.nextTick(() => done(null, address, 4));
    }) as typeof dns.lookup;

    [server, host] = await Promise.all([startTestServer({ allowLocalEndpoints: true }), FakeKubeApiServer.start()]);
    await connectCluster(server, "prod", host);
    const annotated = await server.request("PATCH", `${GROUP_PATH}/clusters/prod`, {
      body: { metadata: { annotations: { [INGRESS_SUFFIX_ANNOTATION]: SUFFIX } } },
      contentType: "application/merge-patch+json",
    });
    assert.equal(annotated.status, 200, annotated.text);
    let last = 0;
    for (const { project, name, namespace } of instances) {
      const vc = await host.addVirtualCluster(namespace, name);
      const hostName = `${name}.${project}.${SUFFIX}`;
      const address = `${block}.${++last}`;
      addresses.set(hostName, address);
      const standIn = await FakeClusterApiServer.start({
        ca: vc.ca,
        clientCa: vc.ca,
        address,
        port: HTTPS_PORT,
        dnsNames: [hostName],
      });
      standIn.add("pods", "default", `pod-of-${name}-in-${project}`);
      standIns[`${project}/${name}`] = standIn;
      await postObject(server, "projects", { metadata: { name: project }, spec: {} });
      await postObject(server, `projects/${project}/importvirtualcluster`, {
        sourceVirtualCluster: { name, namespace, cluster: "prod" },
      });
    }
  });
  after(async () => {
    dns.lookup = originalLookup;
    await server?.stop();
    await host?.stop();
    for (const standIn of Object.values(standIns)) await standIn.stop();
  });

  it("the kube config of each names a host of its own: <instance>.<project>.<suffix>", async () => {
    const servers = [];
    for (const { project, name } of instances) {
      const res = await server.request(
        "POST",
        `${GROUP_PATH}/namespaces/p-${project}/virtualclusterinstances/${name}/kubeconfig`,
        { body: { apiVersion: "management.platform/v1", kind: "VirtualClusterInstanceKubeConfig", spec: {} } },
      );
      assert.equal(res.status, 201, res.text);
      servers.push(parse(res.json.status.kubeConfig).clusters[0].cluster.server);
    }
    assert.deepEqual(servers, [`https://db-x.a.${SUFFIX}`, `https://db.x-a.${SUFFIX}`]);
  });

  it("the gateway sends each instance's requests to its own virtual cluster", async () => {
    for (const { project, name } of instances) {
      const res = await server.request(
        "GET",
        `/kubernetes/project/${project}/virtualcluster/${name}/api/v1/namespaces/default/pods`,
      );
      assert.equal(res.status, 200, res.text);
      const pods = (res.json.items as { metadata: { name: string } }[]).map((p) => p.metadata.name);
      assert.deepEqual(pods, [`pod-of-${name}-in-${project}`]);
    }
    // Each stand-in saw the admin's requests for its own instance only.
    for (const [key, standIn] of Object.entries(standIns)) {
      const listed = standIn.seen.filter((s) => s.path.startsWith("/api/v1/namespaces/default/pods"));
      assert.equal(listed.length, 1, `requests seen by ${key}`);
      assert.equal(listed[0]!.certUser, "admin");
    }
  });
});
