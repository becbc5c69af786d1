import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { ServerConfig } from "./config.js";
import { loadKeys } from "./keys.js";

/** The generated serving certificate of a server listening on `host`, in a data dir of its own. */
async function servingCertificateFor(parent: string, host: string): Promise<X509Certificate> {
  const dataDir = mkdtempSync(join(parent, "data-"));
  const { tls } = await loadKeys({ dataDir, host } satisfies ServerConfig, dataDir);
  return new X509Certificate(tls.certPem);
}

describe("loadKeys: the generated serving certificate names the --listen host", () => {
  let dir: string;
  let defaults: string | undefined;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "platform-keys-"));
    defaults = (await servingCertificateFor(dir, "0.0.0.0")).subjectAltName;
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  it("an IP address as an IP SAN", async () => {
    const cert = await servingCertificateFor(dir, "10.1.2.3");
    assert.equal(cert.checkIP("10.1.2.3"), "10.1.2.3");
    assert.match(cert.subjectAltName ?? "", /IP Address:10\.1\.2\.3(,|$)/);
    assert.equal(cert.checkIP("127.0.0.1"), "127.0.0.1", "the defaults stay");
  });

  it("an IPv6 address as an IP SAN", async () => {
    const cert = await servingCertificateFor(dir, "fd00::5");
    assert.equal(cert.checkIP("fd00::5"), "fd00::5");
  });

  it("a host name as a DNS SAN", async () => {
    const cert = await servingCertificateFor(dir, "platform.example.test");
    assert.equal(cert.checkHost("platform.example.test"), "platform.example.test");
    assert.match(cert.subjectAltName ?? "", /DNS:platform\.example\.test(,|$)/);
    assert.equal(cert.checkHost("localhost"), "localhost", "the defaults stay");
  });

  it("a wildcard address adds nothing to the defaults", async () => {
    assert.match(defaults ?? "", /DNS:localhost/);
    for (const host of ["::", "0:0:0:0:0:0:0:0", ""]) {
      assert.equal((await servingCertificateFor(dir, host)).subjectAltName, defaults, host);
    }
  });
});
