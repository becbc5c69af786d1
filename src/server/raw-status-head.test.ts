import assert from "node:assert/strict";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { connect } from "node:tls";
import { stringify } from "yaml";
import { createCertificateAuthority, createServingCertificate } from "../crypto/certificates.js";
import { FakeClusterApiServer } from "../testing/fake-cluster-apiserver.js";
import { connectCluster } from "../testing/gateway-fixture.js";
import { startTestServer, type TestServer } from "../testing/test-server.js";

/**
 * The answers written on the raw socket (raw-status.ts) to a HEAD request: the header block
 * alone, Content-Length kept, as node's own responses to HEAD are. A body there would be read by
 * the client as the start of the next answer. Each refusal that writes on the socket is reached
 * once as HEAD and once as GET (which does carry the Status): upgrades refused by the server, by
 * the gateway, by a failing handler, for a cluster that cannot be reached or that refuses the
 * platform's credentials, and a request node's parser refuses. (Headers over the limit, 431, come
 * in several TLS records: the one refused does not hold the method, so that answer keeps its body;
 * protocol-errors.ts.)
 */
describe("HEAD answers written on the raw socket", () => {
  let server: TestServer;
  let stopped: FakeClusterApiServer;
  let refusing: Server;

  before(async () => {
    [server, stopped] = await Promise.all([
      startTestServer({ allowLocalEndpoints: true }),
      FakeClusterApiServer.start(),
    ]);
    // A cluster connected and then gone: the gateway cannot reach it.
    await connectCluster(server, "gone", stopped);
    await stopped.stop();
    const credentialsRefused = await startCredentialsRefusingCluster();
    refusing = credentialsRefused.server;
    await connectCluster(server, "refusing", credentialsRefused);
  });
  after(async () => {
    await server.stop();
    refusing.close();
  });

  /** The request sent as `method` on its own connection, and what came back before it closed. */
  const exchange = (method: string, request: (method: string) => string) => rawExchange(server, request(method));
  const upgrade =
    (path: string, token: string | null = null) =>
    (method: string) =>
      `${method} ${path} HTTP/1.1\r\nHost: localhost\r\n${token ? `Authorization: Bearer ${token}\r\n` : ""}` +
      "Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n" +
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n";

  /** As HEAD: the status line and the header block, nothing after; as GET: the same with the Status. */
  async function assertHeadHasNoBody(
    request: (method: string) => string,
    code: number,
    message: RegExp = /./,
  ): Promise<void> {
    const get = splitAnswer(await exchange("GET", request));
    assert.match(get.head, new RegExp(`^HTTP/1\\.1 ${code} `), get.head);
    const status = JSON.parse(get.body);
    assert.deepEqual([status.kind, status.code], ["Status", code]);
    assert.match(status.message, message);
    const head = splitAnswer(await exchange("HEAD", request));
    assert.match(head.head, new RegExp(`^HTTP/1\\.1 ${code} `), head.head);
    assert.match(head.head, new RegExp(`\r\ncontent-length: ${Buffer.byteLength(get.body)}\r\n`, "i"));
    assert.equal(head.body, "", "the answer to HEAD has no body");
  }

  it("an upgrade outside the gateway's paths (400)", async () => {
    await assertHeadHasNoBody(upgrade("/kubernetes/management/api"), 400);
  });

  it("an upgrade the gateway refuses (400: a name that does not decode)", async () => {
    await assertHeadHasNoBody(upgrade("/kubernetes/cluster/%ZZ/api"), 400);
  });

  it("an upgrade whose handling throws (500)", async () => {
    const gateway = server.gateway;
    const original = gateway.handleUpgrade;
    gateway.handleUpgrade = () => {
      throw new Error("a bug nobody foresaw");
    };
    try {
      await assertHeadHasNoBody(upgrade("/kubernetes/cluster/gone/api"), 500);
    } finally {
      gateway.handleUpgrade = original;
    }
  });

  it("an upgrade to a cluster that cannot be reached (503)", async () => {
    await assertHeadHasNoBody(
      upgrade("/kubernetes/cluster/gone/api/v1/namespaces/default/pods/p/exec", server.adminKey),
      503,
      /^cluster "gone" cannot be used \(ClusterUnreachable\)/,
    );
  });

  it("an upgrade the cluster refuses the platform's credentials for (503)", async () => {
    await assertHeadHasNoBody(
      upgrade("/kubernetes/cluster/refusing/api/v1/namespaces/default/pods/p/exec", server.adminKey),
      503,
      /^cluster "refusing" cannot be used \(Unauthorized\)/,
    );
  });

  it("a request node's parser refuses (400: a header it cannot parse)", async () => {
    await assertHeadHasNoBody((method) => `${method} /readyz HTTP/1.1\r\nHost: x\r\nNot A Header\r\n\r\n`, 400);
  });

  it("the server still answers", async () => {
    assert.equal((await server.request("GET", "/readyz", { token: null })).status, 200);
  });
});

/** Sends `payload` on a TLS connection of its own and resolves with everything that came back before it closed. */
function rawExchange(server: TestServer, payload: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port: server.port, ca: server.caPem, servername: "localhost" }, () =>
      socket.write(payload),
    );
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (d: string) => {
      text += d;
    });
    socket.on("close", () => resolve(text));
    socket.on("error", reject);
  });
}

function splitAnswer(text: string): { head: string; body: string } {
  const end = text.indexOf("\r\n\r\n");
  assert.ok(end > 0, `an HTTP answer: ${JSON.stringify(text)}`);
  return { head: text.slice(0, end + 2), body: text.slice(end + 4) };
}

/**
 * A cluster that refuses every caller's credentials (401), as a kube-apiserver does a revoked
 * token; the stand-in cluster answers unknown upgrades 403 instead.
 */
async function startCredentialsRefusingCluster(): Promise<{ server: Server; kubeconfig(): string }> {
  const ca = await createCertificateAuthority("refusing-cluster-ca", 1);
  const serving = await createServingCertificate(ca, { dnsNames: [], ipAddresses: ["127.0.0.1"], validityDays: 1 });
  const unauthorized = '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","code":401}';
  const server = createServer({ key: serving.keyPem, cert: serving.certPem }, (_req, res) => {
    res.writeHead(401, { "content-type": "application/json" }).end(unauthorized);
  });
  server.on("upgrade", (req, socket) => {
    socket.end(
      `HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: ${unauthorized.length}\r\nConnection: close\r\n\r\n${req.method === "HEAD" ? "" : unauthorized}`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const kubeconfig = stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "c", cluster: { server: url, "certificate-authority-data": b64(ca.certPem) } }],
    users: [{ name: "c", user: { token: "t".repeat(40) } }],
    contexts: [{ name: "c", context: { cluster: "c", user: "c" } }],
    "current-context": "c",
  });
  return { server, kubeconfig: () => kubeconfig };
}

function b64(text: string): string {
  return Buffer.from(text).toString("base64");
}
