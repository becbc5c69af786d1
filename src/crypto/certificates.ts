/**
 * X.509 certificates for the server: a local certificate authority, serving
 * certificates for HTTPS and client certificates in the form Kubernetes reads
 * (CN = user name, O = groups). Keys are ECDSA P-256 signed with SHA-256: small,
 * fast, and accepted by every TLS stack the clients use (Go, Node, OpenSSL).
 */
import {
  createPrivateKey,
  createPublicKey,
  X509Certificate as NodeX509Certificate,
  randomBytes,
  webcrypto,
} from "node:crypto";
import { isIP } from "node:net";
import { hostname } from "node:os";
import { join } from "node:path";
import type * as X509 from "@peculiar/x509";
import { PRIVATE_FILE_MODE, PUBLIC_FILE_MODE, readTextIfExists, writeFileAtomic } from "./files.js";

export interface CertificateAndKey {
  /** PEM "CERTIFICATE". */
  certPem: string;
  /** PEM PKCS#8 "PRIVATE KEY"; loads in `tls.createSecureContext` and `https.createServer`. */
  keyPem: string;
}

export interface ServingCertificateOptions {
  dnsNames: string[];
  ipAddresses: string[];
  validityDays: number;
}

export interface ClientCertificateOptions {
  /** The user name. */
  commonName: string;
  /** The user's groups. */
  organizations: string[];
  validitySeconds: number;
}

export interface ServerTls {
  caPem: string;
  certPem: string;
  keyPem: string;
}

export interface ServerTlsOptions {
  /** More host names or IP addresses the serving certificate must cover. */
  extraHosts?: string[];
}

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

const KEY_ALGORITHM: webcrypto.EcKeyGenParams = { name: "ECDSA", namedCurve: "P-256" };
const SIGNING_ALGORITHM: webcrypto.EcdsaParams = { name: "ECDSA", hash: "SHA-256" };
const DAY_MS = 24 * 60 * 60 * 1000;
/**
 * Certificates start this long before issue, so a client whose clock is a little
 * behind does not see a just-issued certificate as "not yet valid" (Kubernetes'
 * signer backdates by the same amount).
 */
const BACKDATE_MS = 5 * 60 * 1000;
/** A stored serving certificate this close to expiry is reissued on start. */
const RENEW_BEFORE_MS = 30 * DAY_MS;
const CA_VALIDITY_DAYS = 3650;
const SERVER_VALIDITY_DAYS = 365;

// Pass Node's WebCrypto explicitly rather than registering it in @peculiar/x509's
// global provider, so importing this module has no side effects.
const crypto = webcrypto;

type X509Module = typeof X509;
let x509Module: Promise<X509Module> | undefined;

/**
 * @peculiar/x509, loaded the first time a certificate is made: it takes a second or more to
 * load on a busy machine, and a server starting on an existing data dir makes none (its
 * stored certificates are checked with node:crypto alone). It registers its services with
 * tsyringe, which needs the Reflect metadata API loaded first.
 */
function loadX509(): Promise<X509Module> {
  x509Module ??= import("reflect-metadata").then(() => import("@peculiar/x509"));
  return x509Module;
}

export async function createCertificateAuthority(commonName: string, validityDays: number): Promise<CertificateAndKey> {
  const x509 = await loadX509();
  requirePositive("validityDays", validityDays);
  const keys = await generateKeys();
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: randomSerialNumber(),
      name: distinguishedName(x509, [["CN", commonName]]),
      notBefore: new Date(now - BACKDATE_MS),
      notAfter: new Date(now + validityDays * DAY_MS),
      keys,
      signingAlgorithm: SIGNING_ALGORITHM,
      extensions: [
        // pathLength 0: this CA signs leaf certificates only, never other CAs.
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(
          x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature,
          true,
        ),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey, false, crypto),
      ],
    },
    crypto,
  );
  return { certPem: cert.toString("pem"), keyPem: await exportPrivateKey(keys.privateKey) };
}

export async function createServingCertificate(
  ca: CertificateAndKey,
  options: ServingCertificateOptions,
): Promise<CertificateAndKey> {
  requirePositive("validityDays", options.validityDays);
  const x509 = await loadX509();
  const names: X509.JsonGeneralName[] = [
    ...options.dnsNames.map((value): X509.JsonGeneralName => ({ type: "dns", value })),
    ...options.ipAddresses.map((value): X509.JsonGeneralName => {
      if (isIP(value) === 0) throw new TypeError(`not an IP address: ${JSON.stringify(value)}`);
      return { type: "ip", value };
    }),
  ];
  if (names.length === 0) throw new TypeError("a serving certificate needs at least one DNS name or IP address");
  // Modern clients ignore the CN and match on SANs only; it is set for people reading the certificate.
  const commonName = options.dnsNames[0] ?? options.ipAddresses[0]!;
  return issue(ca, {
    subject: distinguishedName(x509, [["CN", commonName]]),
    lifetimeMs: options.validityDays * DAY_MS,
    extendedKeyUsage: x509.ExtendedKeyUsage.serverAuth,
    extra: [new x509.SubjectAlternativeNameExtension(names, false)],
  });
}

export async function createClientCertificate(
  ca: CertificateAndKey,
  options: ClientCertificateOptions,
): Promise<CertificateAndKey> {
  requirePositive("validitySeconds", options.validitySeconds);
  const x509 = await loadX509();
  if (options.commonName === "") throw new TypeError("a client certificate needs a common name (the user name)");
  // One RDN per attribute, organizations first, as Kubernetes' own tooling writes them.
  // Kubernetes reads every O value as a group and the CN as the user name.
  const subject = distinguishedName(x509, [
    ...options.organizations.map((o): [string, string] => ["O", o]),
    ["CN", options.commonName],
  ]);
  return issue(ca, {
    subject,
    lifetimeMs: options.validitySeconds * 1000,
    extendedKeyUsage: x509.ExtendedKeyUsage.clientAuth,
    extra: [],
  });
}

/**
 * The names a generated serving certificate must carry, beyond the defaults, for a server
 * listening on `host` (`--listen`): the host itself, an IP address as an IP SAN and a name as a
 * DNS SAN (loadOrCreateServerTls sorts them), so that a client sent to that address accepts the
 * certificate. A wildcard host (`0.0.0.0`, `::`, empty) is every address of the machine and
 * adds nothing: the defaults (localhost, the loopback addresses, the machine's name) stay.
 */
export function servingHostsForListen(host: string | undefined): string[] {
  if (host === undefined || host === "" || isWildcardAddress(host)) return [];
  return [host];
}

function isWildcardAddress(host: string): boolean {
  if (isIP(host) === 4) return host === "0.0.0.0";
  // Any spelling of the IPv6 unspecified address (`::`, `0:0::0`, …): the URL parser normalizes it.
  return isIP(host) === 6 && new URL(`https://[${host}]/`).hostname === "[::]";
}

/**
 * The server's own TLS material, kept in `dataDir`: `ca.crt`/`ca.key` (the local
 * CA) and `server.crt`/`server.key` (the serving certificate it signed). The
 * first start creates them; later starts reuse them, so clients that trust the CA
 * keep working. The serving certificate (never the CA) is reissued when it no
 * longer covers a requested host, expires within 30 days, does not match its
 * key, or was not signed by the stored CA. A CA or server pair with one file
 * missing is an error rather than something to overwrite.
 */
export async function loadOrCreateServerTls(dataDir: string, options: ServerTlsOptions = {}): Promise<ServerTls> {
  const paths = {
    caCert: join(dataDir, "ca.crt"),
    caKey: join(dataDir, "ca.key"),
    serverCert: join(dataDir, "server.crt"),
    serverKey: join(dataDir, "server.key"),
  };
  const hosts = [...new Set(["localhost", "127.0.0.1", "::1", hostname(), ...(options.extraHosts ?? [])])].filter(
    (h) => h !== "",
  );

  let ca = readPair(paths.caCert, paths.caKey);
  if (ca === undefined) {
    ca = await createCertificateAuthority(`platform-ca@${Math.floor(Date.now() / 1000)}`, CA_VALIDITY_DAYS);
    writeFileAtomic(paths.caKey, ca.keyPem, PRIVATE_FILE_MODE);
    writeFileAtomic(paths.caCert, ca.certPem, PUBLIC_FILE_MODE);
  }

  let server = readPair(paths.serverCert, paths.serverKey);
  if (server === undefined || !servingCertificateIsUsable(server, ca.certPem, hosts)) {
    server = await createServingCertificate(ca, {
      dnsNames: hosts.filter((h) => isIP(h) === 0),
      ipAddresses: hosts.filter((h) => isIP(h) !== 0),
      validityDays: SERVER_VALIDITY_DAYS,
    });
    // A crash between these two writes leaves a certificate that does not match its
    // key; the next start sees that (servingCertificateIsUsable) and reissues.
    writeFileAtomic(paths.serverKey, server.keyPem, PRIVATE_FILE_MODE);
    writeFileAtomic(paths.serverCert, server.certPem, PUBLIC_FILE_MODE);
  }
  return { caPem: ca.certPem, certPem: server.certPem, keyPem: server.keyPem };
}

interface IssueParams {
  subject: X509.Name;
  lifetimeMs: number;
  extendedKeyUsage: X509.ExtendedKeyUsage;
  extra: X509.Extension[];
}

async function issue(ca: CertificateAndKey, params: IssueParams): Promise<CertificateAndKey> {
  const x509 = await loadX509();
  const caCert = new x509.X509Certificate(ca.certPem);
  const caKey = await importPrivateKey(ca.keyPem);
  const keys = await generateKeys();
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.create(
    {
      serialNumber: randomSerialNumber(),
      subject: params.subject,
      issuer: caCert.subjectName,
      notBefore: new Date(now - BACKDATE_MS),
      notAfter: new Date(now + params.lifetimeMs),
      publicKey: keys.publicKey,
      signingKey: caKey,
      signingAlgorithm: SIGNING_ALGORITHM,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        // ECDSA keys only sign in TLS (no key encipherment as with RSA key exchange).
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([params.extendedKeyUsage], false),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey, false, crypto),
        await x509.AuthorityKeyIdentifierExtension.create(caCert.publicKey, false, crypto),
        ...params.extra,
      ],
    },
    crypto,
  );
  return { certPem: cert.toString("pem"), keyPem: await exportPrivateKey(keys.privateKey) };
}

function servingCertificateIsUsable(pair: CertificateAndKey, caPem: string, hosts: string[]): boolean {
  const cert = new NodeX509Certificate(pair.certPem);
  const ca = new NodeX509Certificate(caPem);
  const spki = (k: ReturnType<typeof createPublicKey>) => k.export({ type: "spki", format: "der" });
  if (!spki(cert.publicKey).equals(spki(createPublicKey(pair.keyPem)))) return false;
  if (!cert.checkIssued(ca) || !cert.verify(ca.publicKey)) return false;
  if (Date.parse(cert.validTo) - Date.now() < RENEW_BEFORE_MS) return false;
  return hosts.every((h) => (isIP(h) === 0 ? cert.checkHost(h) : cert.checkIP(h)) !== undefined);
}

/** Both files of a pair, or undefined when neither exists; one without the other is an error, not a reason to overwrite. */
function readPair(certPath: string, keyPath: string): CertificateAndKey | undefined {
  const certPem = readTextIfExists(certPath);
  const keyPem = readTextIfExists(keyPath);
  if (certPem === undefined && keyPem === undefined) return undefined;
  if (certPem === undefined || keyPem === undefined) {
    const [present, missing] = certPem === undefined ? [keyPath, certPath] : [certPath, keyPath];
    throw new Error(`${present} exists but ${missing} does not; restore it or remove both to generate new ones`);
  }
  return { certPem, keyPem };
}

/**
 * A name with one attribute per RDN, each value stored verbatim as a UTF8String.
 * Values go in the object form on purpose: @peculiar/x509 treats plain string
 * values as DN syntax (strips quotes, unescapes backslashes, reads a leading "#"
 * as hex DER), so a user named `q"admin"` would otherwise get the CN `admin`.
 */
function distinguishedName(x509: X509Module, attributes: [type: string, value: string][]): X509.Name {
  return new x509.Name(attributes.map(([type, value]) => ({ [type]: [{ utf8String: value }] })));
}

function generateKeys(): Promise<CryptoKeyPair> {
  return crypto.subtle.generateKey(KEY_ALGORITHM, true, ["sign", "verify"]);
}

async function exportPrivateKey(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await crypto.subtle.exportKey("pkcs8", key));
  const body = der.toString("base64").replace(/.{64}/g, "$&\n");
  return `-----BEGIN PRIVATE KEY-----\n${body}${body.endsWith("\n") ? "" : "\n"}-----END PRIVATE KEY-----\n`;
}

async function importPrivateKey(pem: string): Promise<CryptoKey> {
  // Through Node's parser so a CA key in SEC1 ("EC PRIVATE KEY") form, as OpenSSL
  // writes it, is accepted as well as PKCS#8.
  const der = createPrivateKey(pem).export({ format: "der", type: "pkcs8" });
  return crypto.subtle.importKey("pkcs8", der, KEY_ALGORITHM, false, ["sign"]);
}

/**
 * 128 random bits as a positive DER integer: the top bit is cleared (a set one
 * would read as negative) and the next one set (so there is no leading zero byte
 * to strip, which would shorten the serial).
 */
function randomSerialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0]! & 0x7f) | 0x40;
  return bytes.toString("hex");
}

function requirePositive(name: string, value: number): void {
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`${name} must be a positive number, got ${value}`);
}
