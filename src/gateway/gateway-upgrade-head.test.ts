import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import type { IncomingMessage } from "node:http";
import { createServer, request, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Duplex } from "node:stream";
import { after, before, describe, it } from "node:test";
import { stringify } from "yaml";
import { createCertificateAuthority, createServingCertificate } from "../crypto/certificates.js";
import { connectCluster } from "../testing/gateway-fixture.js";
import { startTestServer, type TestServer } from "../testing/test-server.js";
import { waitFor } from "../testing/wait-for.js";

/**
 * A cluster may send bytes in the same TCP segment as its `101 Switching Protocols`, right after
 * the header block (a command that writes at once). node hands them to the gateway as the
 * upgrade's `head`, apart from the socket: they must reach the client all the same, before what
 * follows. The stand-in cluster waits before it writes, so this small server covers that path.
 */
const EARLY = "early bytes, sent with the 101\n";
const LATER = "later bytes\n";

interface EarlyCluster {
  server: Server;
  kubeconfig(): string;
  /** What the cluster received after the upgrade, from the client through the gateway. */
  received: string;
}

/** Answers every upgrade with the 101 head and EARLY in one write, then LATER, then echoes. */
async function startEarlyCluster(): Promise<EarlyCluster> {
  const ca = await createCertificateAuthority("early-cluster-ca", 1);
  const serving = await createServingCertificate(ca, { dnsNames: [], ipAddresses: ["127.0.0.1"], validityDays: 1 });
  const cluster: EarlyCluster = { server: undefined as unknown as Server, kubeconfig: () => "", received: "" };
  const server = createServer({ key: serving.keyPem, cert: serving.certPem }, (_req, res) => {
    // The cluster checks (/version and the like) need an answer, not this test.
    res.writeHead(200, { "content-type": "application/json" }).end('{"major":"1","minor":"32","gitVersion":"v1.32.4"}');
  });
  server.on("upgrade", (req: IncomingMessage, socket: Duplex) => {
    const upgrade = req.headers.upgrade ?? "";
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: ${upgrade}\r\n\r\n${EARLY}`);
    setImmediate(() => socket.write(LATER));
    socket.on("data", (chunk: Buffer) => {
      cluster.received += chunk.toString();
    });
    socket.on("error", () => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  cluster.server = server;
  cluster.kubeconfig = () =>
    stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "c", cluster: { server: url, "certificate-authority-data": b64(ca.certPem) } }],
      users: [{ name: "c", user: { token: "t".repeat(40) } }],
      contexts: [{ name: "c", context: { cluster: "c", user: "c" } }],
      "current-context": "c",
    });
  return cluster;
}

function b64(text: string): string {
  return Buffer.from(text).toString("base64");
}

/** Opens an upgrade through the gateway; resolves with its 101 and everything read until `until` is seen. */
function upgradeThrough(server: TestServer, path: string, protocol: string, send: string, until: string) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = request(`${server.url}${path}`, {
      ca: server.caPem,
      headers: { authorization: `Bearer ${server.adminKey}`, connection: "Upgrade", upgrade: protocol },
    });
    req.on("response", (res) => reject(new Error(`no upgrade: ${res.statusCode}`)));
    req.on("error", reject);
    req.on("upgrade", (res, socket, head) => {
      let text = head.toString();
      const check = () => {
        if (!text.includes(until)) return;
        socket.destroy();
        resolve({ status: res.statusCode ?? 0, text });
      };
      socket.on("data", (chunk: Buffer) => {
        text += chunk.toString();
        check();
      });
      socket.on("error", reject);
      socket.write(send);
      check();
    });
    req.end();
  });
}

describe("gateway upgrades: bytes sent with the 101", () => {
  let server: TestServer;
  let cluster: EarlyCluster;
  const auditFile = join(mkdtempSync(join(tmpdir(), "gw-upgrade-audit-")), "audit.log");
  /** The gateway's audit lines of exec upgrades so far (written when the connection closes). */
  const execLines = () =>
    readFileSync(auditFile, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { path?: string; bytes?: number })
      .filter((l) => l.path?.endsWith("/pods/p/exec"));

  before(async () => {
    [cluster, server] = await Promise.all([
      startEarlyCluster(),
      startTestServer({ auditLog: auditFile, allowLocalEndpoints: true }),
    ]);
    await connectCluster(server, "early", cluster);
  });
  after(async () => {
    await server.stop();
    await new Promise<void>((resolve) => cluster.server.close(() => resolve()));
  });

  for (const protocol of ["SPDY/3.1", "websocket"]) {
    it(`reach the client first, then the rest, both ways (${protocol})`, async () => {
      cluster.received = "";
      const audited = existsSync(auditFile) ? execLines().length : 0;
      const path = "/kubernetes/cluster/early/api/v1/namespaces/default/pods/p/exec?command=echo&stdout=true";
      const got = await upgradeThrough(server, path, protocol, "from the client\n", LATER);
      assert.equal(got.status, 101);
      assert.equal(got.text, EARLY + LATER);
      await waitFor(
        "the client's bytes at the cluster",
        async () => cluster.received,
        (received) => received.includes("from the client\n"),
      );
      assert.equal(cluster.received, "from the client\n");
      // The audit line counts every byte the client got after the 101, those that came with it too.
      await waitFor(
        "the exec's audit line",
        async () => (existsSync(auditFile) ? execLines().length : 0),
        (lines) => lines > audited,
      );
      assert.equal(execLines()[audited]?.bytes, Buffer.byteLength(EARLY + LATER));
    });
  }
});
