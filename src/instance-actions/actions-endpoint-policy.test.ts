/**
 * The actions that call a cluster while serving a request (importspace, importvirtualcluster, the
 * kube config of an instance whose CA the platform does not keep) connect only where the endpoint
 * policy allows (clusters/endpoint-policy.ts, `--allow-local-endpoints`), as the gateway and the
 * controllers do: a refused cluster is a 503 naming the cluster and `EndpointNotAllowed`, and
 * nothing reaches it. On the in-process stand-in (src/testing/fake-kube-apiserver.ts), which
 * records every request, listening on 127.0.0.1.
 */
import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { parse } from "yaml";
import { INGRESS_SUFFIX_ANNOTATION } from "../api/endpoint-annotations.js";
import { clusterCannotBeUsed } from "../clusters/cluster-connection.js";
import { putSecret } from "../testing/cluster-status.js";
import { FakeKubeApiServer, type FakeVirtualCluster } from "../testing/fake-kube-apiserver.js";
import { postObject } from "../testing/gateway-fixture.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";

const API = "management.platform/v1";

describe("the actions that call a cluster during a request, and the endpoint policy", () => {
  let kube: FakeKubeApiServer;
  /** Started without --allow-local-endpoints: the stand-in on 127.0.0.1 is forbidden. */
  let server: TestServer;
  /** A virtual cluster run by hand on the stand-in, which an instance without a template stands for. */
  let byHand: FakeVirtualCluster;

  const post = (path: string, body: unknown) => server.request("POST", `${GROUP_PATH}/${path}`, { body });
  const actions = {
    importspace: () =>
      post("projects/web/importspace", {
        apiVersion: API,
        kind: "ProjectImportSpace",
        sourceSpace: { name: "team-a", cluster: "c1" },
      }),
    importvirtualcluster: () =>
      post("projects/web/importvirtualcluster", {
        apiVersion: API,
        kind: "ProjectImportVirtualCluster",
        sourceVirtualCluster: { name: "vc1", namespace: "vcs", cluster: "c1" },
      }),
    kubeconfig: () =>
      post("namespaces/p-web/virtualclusterinstances/by-hand/kubeconfig", {
        apiVersion: API,
        kind: "VirtualClusterInstanceKubeConfig",
        spec: {},
      }),
  };

  /** The action answers 503 with the gateway's words for the cluster, and not its address. */
  async function refused(name: keyof typeof actions): Promise<void> {
    const res = await actions[name]();
    assert.equal(res.status, 503, `${name}: ${res.text}`);
    assert.equal(res.json.kind, "Status", name);
    assert.equal(res.json.reason, "ServiceUnavailable", name);
    assert.equal(res.json.message, clusterCannotBeUsed("c1", "EndpointNotAllowed"), name);
    assert.doesNotMatch(res.text, /127\.0\.0\.1|localhost/, name);
  }

  before(async () => {
    kube = await FakeKubeApiServer.start();
    kube.addNamespace("team-a");
    await kube.addVirtualCluster("vcs", "vc1");
    byHand = await kube.addVirtualCluster("by-hand", "vc-h");
    server = await startTestServer();
    await putSecret(server, "c1", kube.kubeconfig());
    await postObject(server, "clusters", {
      metadata: { name: "c1", annotations: { [INGRESS_SUFFIX_ANNOTATION]: "vcluster.example.test" } },
      spec: { config: { secretName: "c1" } },
    });
    await postObject(server, "projects", { metadata: { name: "web" }, spec: {} });
    // No template: its CA is the one in vc-h's Secret on c1, which the platform does not keep.
    await postObject(server, "namespaces/p-web/virtualclusterinstances", {
      apiVersion: API,
      kind: "VirtualClusterInstance",
      metadata: { name: "by-hand" },
      spec: { clusterRef: { cluster: "c1", namespace: "by-hand", virtualCluster: "vc-h" } },
    });
  });
  after(async () => {
    await server?.stop();
    await kube?.stop();
  });

  for (const name of ["importspace", "importvirtualcluster", "kubeconfig"] as const) {
    it(`${name}, for a cluster at a loopback address: 503 EndpointNotAllowed, nothing sent`, async () => {
      await refused(name);
      assert.deepEqual(kube.requests, []);
    });
  }

  it("each, for a host name resolving to loopback: refused when it connects, nothing sent", async () => {
    await putSecret(server, "c1", kube.kubeconfig({ server: `https://localhost:${new URL(kube.url).port}` }));
    try {
      for (const name of ["importspace", "importvirtualcluster", "kubeconfig"] as const) await refused(name);
    } finally {
      await putSecret(server, "c1", kube.kubeconfig());
    }
    assert.deepEqual(kube.requests, []);
  });

  it("with --allow-local-endpoints the same actions reach the cluster", async () => {
    const dataDir = server.dataDir;
    await server.stop({ keepData: true });
    server = await startTestServer({ dataDir, allowLocalEndpoints: true });

    const space = await actions.importspace();
    assert.equal(space.status, 201, space.text);
    const vc = await actions.importvirtualcluster();
    assert.equal(vc.status, 201, vc.text);
    const kubeconfig = await actions.kubeconfig();
    assert.equal(kubeconfig.status, 201, kubeconfig.text);
    const user = parse(kubeconfig.json.status.kubeConfig).users[0].user;
    const cert = new X509Certificate(Buffer.from(user["client-certificate-data"], "base64"));
    assert.ok(cert.verify(new X509Certificate(byHand.ca.certPem).publicKey), "signed with the CA read from c1");

    for (const read of [
      "GET /api/v1/namespaces/team-a",
      "GET /api/v1/namespaces/vcs/services",
      "GET /api/v1/namespaces/by-hand/secrets/vc-h-certs",
    ]) {
      assert.ok(
        kube.requests.some((r) => r.startsWith(read)),
        `${read} in ${kube.requests.join("\n")}`,
      );
    }
  });
});
