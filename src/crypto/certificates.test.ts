import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import type { Server } from "node:https";
import { createServer as createHttpsServer, request } from "node:https";
import type { AddressInfo } from "node:net";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
// @peculiar/x509 registers its services with tsyringe, which needs the Reflect metadata API loaded first.
import "reflect-metadata";
import type { TLSSocket } from "node:tls";
import { createSecureContext } from "node:tls";
import * as x509 from "@peculiar/x509";
import {
  type CertificateAndKey,
  createCertificateAuthority,
  createClientCertificate,
  createServingCertificate,
  loadOrCreateServerTls,
} from "./certificates.js";

const SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
const CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";
const BACKDATE_MS = 5 * 60_000;

interface ClientOptions {
  ca?: string;
  cert?: string;
  key?: string;
  servername?: string;
}

/** One GET over a fresh connection (no keep-alive agent, so servers close promptly); resolves with the body. */
function get(port: number, options: ClientOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: "/", agent: false, ...options }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
      });
      res.on("end", () => resolve(body));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

function errorCode(err: unknown): string {
  return err instanceof Error && "code" in err ? String(err.code) : String(err);
}

describe("createCertificateAuthority", () => {
  it("makes a self-signed CA certificate with a PKCS#8 key", async () => {
    const ca = await createCertificateAuthority("test-ca", 10);
    const cert = new X509Certificate(ca.certPem);
    assert.equal(cert.ca, true);
    assert.equal(cert.subject, "CN=test-ca");
    assert.equal(cert.issuer, "CN=test-ca");
    assert.equal(cert.verify(cert.publicKey), true);
    assert.match(ca.keyPem, /^-----BEGIN PRIVATE KEY-----\n/);
    assert.equal(cert.publicKey.asymmetricKeyType, "ec");
    assert.equal(cert.publicKey.asymmetricKeyDetails?.namedCurve, "prime256v1");
    // Ten days from issue, plus the five minutes it is backdated.
    assert.equal(Date.parse(cert.validTo) - Date.parse(cert.validFrom), 10 * 86_400_000 + BACKDATE_MS);
  });

  it("refuses a non-positive validity", async () => {
    await assert.rejects(createCertificateAuthority("x", 0), RangeError);
  });
});

describe("serving certificates over HTTPS", () => {
  let ca: CertificateAndKey;
  let serving: CertificateAndKey;
  let server: Server;
  let port: number;

  before(async () => {
    ca = await createCertificateAuthority("serving-ca", 1);
    serving = await createServingCertificate(ca, {
      dnsNames: ["localhost", "api.example.test"],
      ipAddresses: ["127.0.0.1", "::1"],
      validityDays: 1,
    });
    // The key must load in a secure context as well as in https.createServer.
    createSecureContext({ cert: serving.certPem, key: serving.keyPem });
    server = createHttpsServer({ cert: serving.certPem, key: serving.keyPem }, (_req, res) => res.end("hello"));
    port = await listen(server);
  });

  after(async () => {
    await close(server);
  });

  it("has the SANs, serverAuth EKU and the CA as issuer", () => {
    const cert = new X509Certificate(serving.certPem);
    const caCert = new X509Certificate(ca.certPem);
    assert.equal(cert.ca, false);
    assert.deepEqual(cert.keyUsage, [SERVER_AUTH]);
    assert.equal(cert.checkIssued(caCert), true);
    assert.equal(cert.verify(caCert.publicKey), true);
    assert.equal(cert.checkHost("localhost"), "localhost");
    assert.equal(cert.checkHost("api.example.test"), "api.example.test");
    assert.equal(cert.checkHost("other.example.test"), undefined);
    assert.equal(cert.checkIP("127.0.0.1"), "127.0.0.1");
    assert.equal(cert.checkIP("::1"), "::1");
    assert.equal(cert.checkIP("10.0.0.1"), undefined);
  });

  it("is trusted by a client given the CA, by IP and by name", async () => {
    assert.equal(await get(port, { ca: ca.certPem }), "hello");
    assert.equal(await get(port, { ca: ca.certPem, servername: "localhost" }), "hello");
  });

  it("is refused by a client without the CA", async () => {
    await assert.rejects(get(port, {}), (err) => {
      assert.equal(errorCode(err), "UNABLE_TO_VERIFY_LEAF_SIGNATURE");
      return true;
    });
  });

  it("is refused by a client trusting another CA", async () => {
    const other = await createCertificateAuthority("other-ca", 1);
    await assert.rejects(get(port, { ca: other.certPem }), (err) => {
      assert.equal(errorCode(err), "UNABLE_TO_VERIFY_LEAF_SIGNATURE");
      return true;
    });
  });

  it("is refused for a name it does not cover", async () => {
    await assert.rejects(get(port, { ca: ca.certPem, servername: "elsewhere.example.test" }), (err) => {
      assert.equal(errorCode(err), "ERR_TLS_CERT_ALTNAME_INVALID");
      return true;
    });
  });

  it("refuses bad input", async () => {
    await assert.rejects(
      createServingCertificate(ca, { dnsNames: [], ipAddresses: ["not-an-ip"], validityDays: 1 }),
      TypeError,
    );
    await assert.rejects(createServingCertificate(ca, { dnsNames: [], ipAddresses: [], validityDays: 1 }), TypeError);
  });
});

describe("client certificates", () => {
  let ca: CertificateAndKey;
  let server: Server;
  let port: number;
  const seen: string[] = [];

  before(async () => {
    ca = await createCertificateAuthority("client-ca", 1);
    const serving = await createServingCertificate(ca, {
      dnsNames: ["localhost"],
      ipAddresses: ["127.0.0.1"],
      validityDays: 1,
    });
    server = createHttpsServer(
      { cert: serving.certPem, key: serving.keyPem, ca: ca.certPem, requestCert: true, rejectUnauthorized: true },
      (req, res) => {
        const peer = (req.socket as TLSSocket).getPeerCertificate();
        const cn = String(peer.subject.CN);
        seen.push(cn);
        res.end(`hello ${cn}`);
      },
    );
    port = await listen(server);
  });

  after(async () => {
    await close(server);
  });

  it("carries the user as CN and the groups as O, with the clientAuth EKU", async () => {
    const client = await createClientCertificate(ca, {
      commonName: "alice",
      organizations: ["team-a", "system:masters"],
      validitySeconds: 3600,
    });
    const cert = new X509Certificate(client.certPem);
    assert.equal(cert.subject, "O=team-a\nO=system:masters\nCN=alice");
    assert.deepEqual(cert.keyUsage, [CLIENT_AUTH]);
    assert.equal(cert.ca, false);
    assert.equal(cert.checkIssued(new X509Certificate(ca.certPem)), true);
    assert.equal(Date.parse(cert.validTo) - Date.parse(cert.validFrom), 3600_000 + BACKDATE_MS);
  });

  it("keeps names with DN special characters verbatim", async () => {
    // Each would change meaning if read as DN syntax: quotes, escapes, "#" (hex DER), separators.
    const names = ['bob "admin"', 'q"r"', "back\\slash", "#0c0561646d696e", "x, CN=admin", "a+b", "ünïcode"];
    for (const name of names) {
      const client = await createClientCertificate(ca, {
        commonName: name,
        organizations: [name],
        validitySeconds: 60,
      });
      const subject = new x509.X509Certificate(client.certPem).subjectName;
      assert.deepEqual(subject.getField("CN"), [name]);
      assert.deepEqual(subject.getField("O"), [name]);
    }
  });

  it("works without groups", async () => {
    const client = await createClientCertificate(ca, { commonName: "carol", organizations: [], validitySeconds: 60 });
    assert.equal(new X509Certificate(client.certPem).subject, "CN=carol");
  });

  it("is accepted by a mutual-TLS server trusting its CA", async () => {
    const client = await createClientCertificate(ca, { commonName: "dave", organizations: [], validitySeconds: 60 });
    const body = await get(port, { ca: ca.certPem, cert: client.certPem, key: client.keyPem });
    assert.equal(body, "hello dave");
    assert.ok(seen.includes("dave"));
  });

  it("is rejected when signed by another CA", async () => {
    const other = await createCertificateAuthority("other-client-ca", 1);
    const client = await createClientCertificate(other, {
      commonName: "mallory",
      organizations: [],
      validitySeconds: 60,
    });
    // With TLS 1.3 the server's alert may arrive after the client finished its side of
    // the handshake, so the error code varies (alert, reset); that it fails is what matters.
    await assert.rejects(get(port, { ca: ca.certPem, cert: client.certPem, key: client.keyPem }));
    assert.ok(!seen.includes("mallory"));
  });

  it("is rejected when no certificate is presented", async () => {
    await assert.rejects(get(port, { ca: ca.certPem }));
  });

  it("refuses bad input", async () => {
    await assert.rejects(createClientCertificate(ca, { commonName: "", organizations: [], validitySeconds: 60 }));
    await assert.rejects(
      createClientCertificate(ca, { commonName: "x", organizations: [], validitySeconds: 0 }),
      RangeError,
    );
  });
});

describe("loadOrCreateServerTls", () => {
  let dir: string;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), "platform-tls-"));
  });

  after(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it("creates the CA and serving certificate on first start with private keys 0600", async () => {
    const tls = await loadOrCreateServerTls(dir);
    for (const name of ["ca.crt", "ca.key", "server.crt", "server.key"]) {
      assert.ok(existsSync(join(dir, name)), name);
    }
    assert.equal(statSync(join(dir, "ca.key")).mode & 0o777, 0o600);
    assert.equal(statSync(join(dir, "server.key")).mode & 0o777, 0o600);
    assert.equal(readFileSync(join(dir, "ca.crt"), "utf8"), tls.caPem);
    assert.equal(readFileSync(join(dir, "server.crt"), "utf8"), tls.certPem);
    assert.equal(readFileSync(join(dir, "server.key"), "utf8"), tls.keyPem);

    const cert = new X509Certificate(tls.certPem);
    assert.equal(cert.checkIssued(new X509Certificate(tls.caPem)), true);
    assert.equal(cert.checkHost("localhost"), "localhost");
    assert.equal(cert.checkHost(hostname()), hostname());
    assert.equal(cert.checkIP("127.0.0.1"), "127.0.0.1");
    assert.equal(cert.checkIP("::1"), "::1");
    createSecureContext({ cert: tls.certPem, key: tls.keyPem, ca: tls.caPem });
  });

  it("reuses the stored files on later starts", async () => {
    const first = await loadOrCreateServerTls(dir);
    const second = await loadOrCreateServerTls(dir);
    assert.deepEqual(second, first);
  });

  it("reissues only the serving certificate when a new host is asked for", async () => {
    const before = await loadOrCreateServerTls(dir);
    const after = await loadOrCreateServerTls(dir, { extraHosts: ["platform.example.test", "192.0.2.10"] });
    assert.equal(after.caPem, before.caPem);
    assert.notEqual(after.certPem, before.certPem);
    const cert = new X509Certificate(after.certPem);
    assert.equal(cert.checkHost("platform.example.test"), "platform.example.test");
    assert.equal(cert.checkIP("192.0.2.10"), "192.0.2.10");
    assert.equal(cert.checkHost("localhost"), "localhost");
    // Asking for fewer hosts than covered is no reason to reissue.
    assert.deepEqual(await loadOrCreateServerTls(dir), after);
  });

  it("reissues a serving certificate that does not match its key", async () => {
    const before = await loadOrCreateServerTls(dir);
    const stray = await createCertificateAuthority("stray", 1);
    writeFileSync(join(dir, "server.key"), stray.keyPem, { mode: 0o600 });
    const after = await loadOrCreateServerTls(dir);
    assert.equal(after.caPem, before.caPem);
    assert.notEqual(after.certPem, before.certPem);
    createSecureContext({ cert: after.certPem, key: after.keyPem });
  });

  it("refuses a half-present CA instead of overwriting it", async () => {
    const other = mkdtempSync(join(tmpdir(), "platform-tls-"));
    try {
      await loadOrCreateServerTls(other);
      unlinkSync(join(other, "ca.crt"));
      await assert.rejects(loadOrCreateServerTls(other), /ca\.key exists but .*ca\.crt does not/);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it("serves HTTPS that a client trusting the stored CA accepts", async () => {
    const tls = await loadOrCreateServerTls(dir);
    const server = createHttpsServer({ cert: tls.certPem, key: tls.keyPem }, (_req, res) => res.end("ok"));
    const port = await listen(server);
    try {
      assert.equal(await get(port, { ca: tls.caPem, servername: "localhost" }), "ok");
    } finally {
      await close(server);
    }
  });
});
