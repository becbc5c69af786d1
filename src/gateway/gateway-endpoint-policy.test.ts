import assert from "node:assert/strict";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { VIRTUAL_CLUSTER_ENDPOINT_ANNOTATION } from "../api/endpoint-annotations.js";
import { clusterCannotBeUsed } from "../clusters/cluster-connection.js";
import { createCertificateAuthority, createServingCertificate } from "../crypto/certificates.js";
import { systemContext } from "../registry/request-context.js";
import { FakeClusterApiServer } from "../testing/fake-cluster-apiserver.js";
import { FakeKubeApiServer } from "../testing/fake-kube-apiserver.js";
import { connectCluster, postObject } from "../testing/gateway-fixture.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";
import { virtualClusterCannotBeUsed } from "../virtualclusters/reach.js";

const PODS = "/api/v1/namespaces/default/pods";

/**
 * Where the gateway sends users' requests (docs/security.md, "Endpoints other users' traffic and tokens follow"): never to the
 * platform's own loopback, link-local or host addresses unless `--allow-local-endpoints`, the
 * host name resolved when the connection is made; https only; redirects passed back, not followed.
 *
 * Stand-ins (testing/fake-cluster-apiserver.ts, fake-kube-apiserver.ts): proving a refused
 * request never left needs a server that counts what reached it, and a virtual cluster's API
 * server runs in a pod, which never runs on a test machine (no kubelet).
 */
describe("the gateway's endpoint policy", () => {
  let strict: TestServer;
  let open: TestServer;
  let cluster: FakeClusterApiServer;
  let host: FakeKubeApiServer;
  let vcluster: FakeClusterApiServer;
  let redirector: Server;

  /** The stand-in cluster's kubeconfig with its server replaced (same CA, same token). */
  const kubeconfigAt = (server: string) => ({ kubeconfig: () => cluster.kubeconfig().replace(cluster.url, server) });
  const podsSeen = () => cluster.seen.filter((s) => s.path.startsWith(PODS)).length;
  const vclusterPodsSeen = () => vcluster.seen.filter((s) => s.path.startsWith(PODS)).length;
  const VC_PODS = `/kubernetes/project/alpha/virtualcluster/vc1${PODS}`;

  before(async () => {
    [strict, open, cluster, host] = await Promise.all([
      startTestServer(),
      startTestServer({ allowLocalEndpoints: true }),
      FakeClusterApiServer.start(),
      FakeKubeApiServer.start(),
    ]);
    cluster.add("pods", "default", "web-1");
    // A virtual cluster on `host`, whose own API server answers at https://localhost:PORT.
    const vc = await host.addVirtualCluster("team-a", "vc1");
    vcluster = await FakeClusterApiServer.start({ ca: vc.ca, clientCa: vc.ca });
    vcluster.add("pods", "default", "inside-vc");
    const vclusterByName = `https://localhost:${new URL(vcluster.url).port}`;
    const port = new URL(cluster.url).port;
    // An API server that answers every request with a redirect to the stand-in cluster.
    const ca = await createCertificateAuthority("redirector-ca", 1);
    const serving = await createServingCertificate(ca, {
      dnsNames: ["localhost"],
      ipAddresses: ["127.0.0.1"],
      validityDays: 1,
    });
    redirector = createServer({ key: serving.keyPem, cert: serving.certPem }, (req, res) => {
      res.writeHead(307, { location: `${cluster.url}${req.url}` }).end();
    });
    await new Promise<void>((resolve) => redirector.listen(0, "127.0.0.1", resolve));
    const redirectorUrl = `https://127.0.0.1:${(redirector.address() as AddressInfo).port}`;
    const redirecting = {
      kubeconfig: () =>
        cluster
          .kubeconfig()
          .replace(cluster.url, redirectorUrl)
          .replace(Buffer.from(cluster.ca.certPem).toString("base64"), Buffer.from(ca.certPem).toString("base64")),
    };
    for (const server of [strict, open]) {
      await connectCluster(server, "by-address", cluster);
      await connectCluster(server, "by-name", kubeconfigAt(`https://localhost:${port}`));
      await connectCluster(server, "plaintext", kubeconfigAt(`http://localhost:${port}`));
      await connectCluster(server, "redirecting", redirecting);
      // The instance's CA is kept, so only the gateway's forwarding is checked: imported where
      // the platform may call the host cluster, else made by the platform (a template instance).
      await connectCluster(server, "host", host);
      await postObject(server, "projects", { metadata: { name: "alpha" }, spec: {} });
      if (server === open) {
        await postObject(server, "projects/alpha/importvirtualcluster", {
          sourceVirtualCluster: { name: "vc1", namespace: "team-a", cluster: "host" },
        });
      } else {
        await postObject(server, "namespaces/p-alpha/virtualclusterinstances", {
          metadata: { name: "vc1" },
          spec: { clusterRef: { cluster: "host" }, templateRef: { name: "default" } },
        });
      }
      // A host name is accepted when written: what it resolves to is checked at each connection.
      const annotated = await server.request("PATCH", `${GROUP_PATH}/namespaces/p-alpha/virtualclusterinstances/vc1`, {
        body: { metadata: { annotations: { [VIRTUAL_CLUSTER_ENDPOINT_ANNOTATION]: vclusterByName } } },
        contentType: "application/merge-patch+json",
      });
      assert.equal(annotated.status, 200, annotated.text);
    }
  });
  after(async () => {
    await Promise.all([strict?.stop(), open?.stop(), cluster?.stop(), host?.stop(), vcluster?.stop()]);
    redirector?.close();
  });

  it("refuses a cluster whose kubeconfig server is a loopback address: 503 EndpointNotAllowed, nothing sent", async () => {
    const before = podsSeen();
    const res = await strict.request("GET", `/kubernetes/cluster/by-address${PODS}`);
    assert.equal(res.status, 503, res.text);
    assert.equal(res.json.kind, "Status");
    // The reason only: the address is the Cluster's, which a caller with `use` may not read.
    assert.equal(res.json.message, clusterCannotBeUsed("by-address", "EndpointNotAllowed"));
    assert.equal(podsSeen(), before);
  });

  it("refuses a host name that resolves to loopback when it connects", async () => {
    const before = podsSeen();
    const res = await strict.request("GET", `/kubernetes/cluster/by-name${PODS}`);
    assert.equal(res.status, 503, res.text);
    assert.equal(res.json.message, clusterCannotBeUsed("by-name", "EndpointNotAllowed"));
    assert.equal(podsSeen(), before);
  });

  it("with --allow-local-endpoints the same clusters are reached, by address and by name", async () => {
    for (const name of ["by-address", "by-name"]) {
      const res = await open.request("GET", `/kubernetes/cluster/${name}${PODS}/web-1`);
      assert.equal(res.status, 200, `${name}: ${res.text}`);
      assert.equal(res.json.metadata.name, "web-1");
    }
  });

  it("refuses a virtual cluster endpoint whose name resolves to loopback, and reaches it with the flag", async () => {
    const before = vclusterPodsSeen();
    const refused = await strict.request("GET", VC_PODS);
    assert.equal(refused.status, 503, refused.text);
    assert.equal(refused.json.message, virtualClusterCannotBeUsed("p-alpha", "vc1", "EndpointNotAllowed"));
    assert.equal(vclusterPodsSeen(), before);
    const reached = await open.request("GET", `${VC_PODS}/inside-vc`);
    assert.equal(reached.status, 200, reached.text);
    assert.equal(reached.json.metadata.name, "inside-vc");
  });

  it("reads no CA from a host cluster the policy forbids (an instance without a template): 503 naming the host cluster", async () => {
    await postObject(strict, "namespaces/p-alpha/virtualclusterinstances", {
      // An endpoint the policy allows: the refusal is the host cluster's.
      metadata: {
        name: "by-hand",
        annotations: { [VIRTUAL_CLUSTER_ENDPOINT_ANNOTATION]: "https://by-hand.example.test" },
      },
      spec: { clusterRef: { cluster: "host", namespace: "team-a", virtualCluster: "vc1" } },
    });
    // The import on `open` read the CA before; nothing since (the instances of `open` keep theirs).
    const seen = host.requests.length;
    const res = await strict.request("GET", `/kubernetes/project/alpha/virtualcluster/by-hand${PODS}`);
    assert.equal(res.status, 503, res.text);
    assert.equal(res.json.kind, "Status");
    assert.equal(res.json.message, clusterCannotBeUsed("host", "EndpointNotAllowed"));
    assert.deepEqual(
      host.requests.slice(seen).filter((r) => r.includes("/secrets")),
      [],
    );
  });

  it("refuses a virtual cluster endpoint stored before writes were checked (a loopback address, plain http)", async () => {
    const instances = strict.registry.store("virtualclusterinstances");
    for (const endpoint of [vcluster.url, vcluster.url.replace("https:", "http:")]) {
      // The registry's own writes skip admission, as data written by an older version did.
      await instances.guaranteedUpdate(systemContext(), "p-alpha", "vc1", (obj) => {
        obj.metadata.annotations = { [VIRTUAL_CLUSTER_ENDPOINT_ANNOTATION]: endpoint };
        return obj;
      });
      const res = await strict.request("GET", VC_PODS);
      assert.equal(res.status, 503, res.text);
      assert.equal(res.json.kind, "Status");
      assert.equal(res.json.message, virtualClusterCannotBeUsed("p-alpha", "vc1", "EndpointNotAllowed"));
    }
  });

  it("never sends users' requests over plain http, flag or not", async () => {
    for (const server of [strict, open]) {
      const res = await server.request("GET", `/kubernetes/cluster/plaintext${PODS}`);
      assert.equal(res.status, 503, res.text);
      assert.equal(res.json.message, clusterCannotBeUsed("plaintext", "EndpointNotAllowed"));
    }
  });

  it("passes a redirect back to the client instead of following it", async () => {
    const before = podsSeen();
    const res = await open.request("GET", `/kubernetes/cluster/redirecting${PODS}`);
    assert.equal(res.status, 307, res.text);
    assert.equal(res.headers.location, `${cluster.url}${PODS}`);
    assert.equal(podsSeen(), before, "the gateway did not follow the redirect");
  });
});
