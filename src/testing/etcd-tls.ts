/**
 * Test helper: TLS material for an etcd with --client-cert-auth, written to a directory.
 *
 * Two client certificates: one without a CommonName (etcd users then come from user/password
 * only), and one naming the etcd user `root` (etcd's gateway refuses those once auth is on).
 *
 * The member certificate allows both server and client auth, as etcd's own guides and kubeadm
 * issue it: etcd's HTTP/JSON gateway reaches etcd's gRPC server on the same port with the
 * member's certificate as its client certificate, and a server-only certificate is refused.
 */
import "reflect-metadata";
import { webcrypto } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import * as x509 from "@peculiar/x509";
import { createCertificateAuthority } from "../crypto/certificates.js";

const crypto = webcrypto;
const EC = { name: "ECDSA", namedCurve: "P-256" } as const;
const SIGN = { name: "ECDSA", hash: "SHA-256" } as const;
const DAY_MS = 86_400_000;

/** Files (paths) of a CA, an etcd member's certificate and a client's. */
export interface EtcdTlsFiles {
  readonly ca: string;
  readonly memberCert: string;
  readonly memberKey: string;
  readonly clientCert: string;
  readonly clientKey: string;
  /** A client certificate with CN=root. */
  readonly namedClientCert: string;
  readonly namedClientKey: string;
}

function pemBody(pem: string): ArrayBuffer {
  const der = Buffer.from(pem.replace(/-----[^-]+-----|\s/g, ""), "base64");
  return der.buffer.slice(der.byteOffset, der.byteOffset + der.byteLength) as ArrayBuffer;
}

async function leaf(
  ca: { certPem: string; keyPem: string },
  subject: string,
  usages: x509.ExtendedKeyUsage[],
): Promise<{ cert: string; key: string }> {
  const caCert = new x509.X509Certificate(ca.certPem);
  const caKey = await crypto.subtle.importKey("pkcs8", pemBody(ca.keyPem), EC, false, ["sign"]);
  const keys = (await crypto.subtle.generateKey(EC, true, ["sign", "verify"])) as webcrypto.CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.create(
    {
      serialNumber: Buffer.from(webcrypto.getRandomValues(new Uint8Array(8)))
        .toString("hex")
        .replace(/^./, "1"),
      subject,
      issuer: caCert.subjectName,
      notBefore: new Date(Date.now() - DAY_MS),
      notAfter: new Date(Date.now() + DAY_MS),
      publicKey: keys.publicKey,
      signingKey: caKey,
      signingAlgorithm: SIGN,
      extensions: [
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension(usages),
        new x509.SubjectAlternativeNameExtension([
          { type: "ip", value: "127.0.0.1" },
          { type: "dns", value: "localhost" },
        ]),
      ],
    },
    crypto,
  );
  const pkcs8 = Buffer.from(await crypto.subtle.exportKey("pkcs8", keys.privateKey)).toString("base64");
  const key = `-----BEGIN PRIVATE KEY-----\n${pkcs8.replace(/.{64}/g, "$&\n")}\n-----END PRIVATE KEY-----\n`;
  return { cert: cert.toString("pem"), key };
}

/** A fresh CA, a member certificate for 127.0.0.1 and a client certificate, in `dir`. */
export async function writeEtcdTls(dir: string): Promise<EtcdTlsFiles> {
  const ca = await createCertificateAuthority("etcd test CA", 1);
  const { serverAuth, clientAuth } = x509.ExtendedKeyUsage;
  const member = await leaf(ca, "CN=etcd-member", [serverAuth, clientAuth]);
  const client = await leaf(ca, "O=platform", [clientAuth]);
  const named = await leaf(ca, "CN=root", [clientAuth]);
  const files: EtcdTlsFiles = {
    ca: join(dir, "ca.pem"),
    memberCert: join(dir, "member.pem"),
    memberKey: join(dir, "member-key.pem"),
    clientCert: join(dir, "client.pem"),
    clientKey: join(dir, "client-key.pem"),
    namedClientCert: join(dir, "named.pem"),
    namedClientKey: join(dir, "named-key.pem"),
  };
  await writeFile(files.ca, ca.certPem);
  await writeFile(files.memberCert, member.cert);
  await writeFile(files.memberKey, member.key, { mode: 0o600 });
  await writeFile(files.clientCert, client.cert);
  await writeFile(files.clientKey, client.key, { mode: 0o600 });
  await writeFile(files.namedClientCert, named.cert);
  await writeFile(files.namedClientKey, named.key, { mode: 0o600 });
  return files;
}
