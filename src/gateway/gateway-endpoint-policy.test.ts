import assert from "node:assert/strict";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { createCertificateAuthority, createServingCertificate } from "../crypto/certificates.js";
import { FakeClusterApiServer } from "../testing/fake-cluster-apiserver.js";
import { connectCluster } from "../testing/gateway-fixture.js";
import { startTestServer, type TestServer } from "../testing/test-server.js";

const PODS = "/api/v1/namespaces/default/pods";

/**
 * Where the gateway sends users' requests (docs/security.md, "Endpoints"): never to the
 * platform's own loopback, link-local or host addresses unless `--allow-local-endpoints`, the
 * host name resolved when the connection is made; https only; redirects passed back, not followed.
 */
describe("the gateway's endpoint policy", () => {
  let strict: TestServer;
  let open: TestServer;
  let cluster: FakeClusterApiServer;
  let redirector: Server;

  /** The stand-in cluster's kubeconfig with its server replaced (same CA, same token). */
  const kubeconfigAt = (server: string) => ({ kubeconfig: () => cluster.kubeconfig().replace(cluster.url, server) });
  const podsSeen = () => cluster.seen.filter((s) => s.path.startsWith(PODS)).length;

  before(async () => {
    [strict, open, cluster] = await Promise.all([
      startTestServer(),
      startTestServer({ allowLocalEndpoints: true }),
      FakeClusterApiServer.start(),
    ]);
    cluster.add("pods", "default", "web-1");
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
    }
  });
  after(async () => {
    await Promise.all([strict?.stop(), open?.stop(), cluster?.stop()]);
    redirector?.close();
  });

  it("refuses a cluster whose kubeconfig server is a loopback address: 503 EndpointNotAllowed, nothing sent", async () => {
    const before = podsSeen();
    const res = await strict.request("GET", `/kubernetes/cluster/by-address${PODS}`);
    assert.equal(res.status, 503, res.text);
    assert.equal(res.json.kind, "Status");
    assert.match(res.json.message, /\(EndpointNotAllowed\): 127\.0\.0\.1:\d+ is a loopback address/);
    assert.match(res.json.message, /--allow-local-endpoints/);
    assert.equal(podsSeen(), before);
  });

  it("refuses a host name that resolves to loopback when it connects", async () => {
    const before = podsSeen();
    const res = await strict.request("GET", `/kubernetes/cluster/by-name${PODS}`);
    assert.equal(res.status, 503, res.text);
    assert.match(res.json.message, /^EndpointNotAllowed: localhost resolves to a loopback address/);
    assert.equal(podsSeen(), before);
  });

  it("with --allow-local-endpoints the same clusters are reached, by address and by name", async () => {
    for (const name of ["by-address", "by-name"]) {
      const res = await open.request("GET", `/kubernetes/cluster/${name}${PODS}/web-1`);
      assert.equal(res.status, 200, `${name}: ${res.text}`);
      assert.equal(res.json.metadata.name, "web-1");
    }
  });

  it("never sends users' requests over plain http, flag or not", async () => {
    for (const server of [strict, open]) {
      const res = await server.request("GET", `/kubernetes/cluster/plaintext${PODS}`);
      assert.equal(res.status, 503, res.text);
      assert.match(res.json.message, /\(EndpointNotAllowed\): http:\/\/localhost:\d+ is not https/);
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
