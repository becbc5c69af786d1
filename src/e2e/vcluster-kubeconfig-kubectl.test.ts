import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { TLSSocket } from "node:tls";
import { promisify } from "node:util";
import { createServingCertificate } from "../crypto/certificates.js";
import { FakeKubeApiServer, type FakeVirtualCluster } from "../testing/fake-kube-apiserver.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";

const run = promisify(execFile);
const KUBECTL = "/usr/bin/kubectl";
const SUFFIX = "vc.example.test";
const HOST = `vc1.alpha.${SUFFIX}`;

/**
 * The real kubectl, with a kube config the platform returned, against a stand-in for the
 * virtual cluster's API server that serves a certificate from the virtual cluster's CA
 * for the ingress host and accepts only client certificates that CA signed (mutual TLS).
 * The host name does not resolve here, so kubectl is pointed at 127.0.0.1 with
 * --server and keeps verifying the ingress host name with --tls-server-name; the CA,
 * client certificate and key come from the returned kube config unchanged.
 *
 * The stand-in is there because a virtual cluster's API server runs in a pod, and no pod runs on
 * a test machine (no kubelet).
 */
describe("kubectl uses a returned virtual cluster kube config (mutual TLS)", () => {
  let server: TestServer;
  let kube: FakeKubeApiServer;
  let vc: FakeVirtualCluster;
  let vcServer: Server;
  let vcPort: number;

  before(async () => {
    kube = await FakeKubeApiServer.start();
    vc = await kube.addVirtualCluster("team-a", "vc1");
    const serving = await createServingCertificate(vc.ca, { dnsNames: [HOST], ipAddresses: [], validityDays: 1 });
    vcServer = createServer(
      { key: serving.keyPem, cert: serving.certPem, ca: vc.ca.certPem, requestCert: true, rejectUnauthorized: true },
      (req, res) => {
        // Only reached with a client certificate the virtual cluster's CA signed.
        const peer = (req.socket as TLSSocket).getPeerCertificate();
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ major: "1", minor: "32", gitVersion: "v1.32.4-vcluster", user: peer.subject?.CN }));
      },
    );
    await new Promise<void>((resolve) => vcServer.listen(0, "127.0.0.1", resolve));
    vcPort = (vcServer.address() as AddressInfo).port;

    server = await startTestServer();
    const steps: Array<[string, unknown]> = [
      [
        "namespaces/platform/sharedsecrets",
        {
          metadata: { name: "c1-kubeconfig" },
          spec: { data: { config: Buffer.from(kube.kubeconfig()).toString("base64") } },
        },
      ],
      [
        "clusters",
        {
          metadata: { name: "c1", annotations: { "management.platform/ingress-suffix": SUFFIX } },
          spec: { config: { secretName: "c1-kubeconfig" } },
        },
      ],
      ["projects", { metadata: { name: "alpha" } }],
      [
        "projects/alpha/importvirtualcluster",
        { sourceVirtualCluster: { name: "vc1", namespace: "team-a", cluster: "c1" } },
      ],
    ];
    for (const [path, body] of steps) {
      const res = await server.request("POST", `${GROUP_PATH}/${path}`, { body });
      assert.equal(res.status, 201, `${path}: ${res.text}`);
    }
  });
  after(async () => {
    await server.stop();
    await kube.stop();
    vcServer.closeAllConnections();
    await new Promise((r) => vcServer.close(r));
  });

  async function kubectlWith(kubeConfig: string, file: string) {
    const path = join(server.dataDir, file);
    writeFileSync(path, kubeConfig, { mode: 0o600 });
    return run(
      KUBECTL,
      [
        `--kubeconfig=${path}`,
        `--server=https://127.0.0.1:${vcPort}`,
        `--tls-server-name=${HOST}`,
        "get",
        "--raw",
        "/version",
      ],
      { timeout: 30_000 },
    );
  }

  it("kubectl get --raw /version succeeds with the returned client certificate (CN = caller)", async () => {
    const res = await server.request("GET", `${GROUP_PATH}/virtualclusterinstances/vc1/kubeconfig?certificateTTL=600`);
    assert.equal(res.status, 200, res.text);
    const kubeConfig: string = res.json.status.kubeConfig;
    assert.match(kubeConfig, new RegExp(`server: https://${HOST.replace(/\./g, "\\.")}`));
    const { stdout } = await kubectlWith(kubeConfig, "vc1.kubeconfig");
    const version = JSON.parse(stdout);
    assert.equal(version.gitVersion, "v1.32.4-vcluster");
    assert.equal(version.user, "admin");
  });

  it("the same server refuses a kube config without the client certificate (so the test can fail)", async () => {
    const res = await server.request("GET", `${GROUP_PATH}/virtualclusterinstances/vc1/kubeconfig`);
    const stripped = (res.json.status.kubeConfig as string)
      .replace(/\s+client-certificate-data: \S+/, "")
      .replace(/client-key-data: \S+/, "token: not-a-certificate");
    assert.doesNotMatch(stripped, /client-certificate-data/);
    await assert.rejects(kubectlWith(stripped, "nocert.kubeconfig"));
  });
});
