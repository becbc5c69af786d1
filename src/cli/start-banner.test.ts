import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { banner } from "./start-banner.js";

describe("the start banner", () => {
  const dir = mkdtempSync(join(tmpdir(), "platform-banner-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const server = { url: "https://127.0.0.1:8443", port: 8443 };

  it("names the key file when the data dir holds one", () => {
    writeFileSync(join(dir, "admin-access-key"), "k\n");
    const line = banner(server, "127.0.0.1", dir)
      .split("\n")
      .find((l) => l.startsWith("admin access key:"));
    assert.equal(line, `admin access key:  ${join(dir, "admin-access-key")}`);
  });

  it("says there is none when the store already had its admin (restored or migrated)", () => {
    const empty = mkdtempSync(join(dir, "restored-"));
    const text = banner(server, "127.0.0.1", empty);
    assert.doesNotMatch(text, /admin-access-key/);
    assert.match(text, /^admin access key: {2}none in this data dir .*platform admin reset-key/m);
  });

  it("names the console, and for the CA the server made itself where it is and how to trust it", () => {
    const text = banner({ ...server, caPem: "PEM" }, "127.0.0.1", dir);
    assert.match(text, /^console: {11}https:\/\/127\.0\.0\.1:8443\/$/m);
    const ca = join(dir, "ca.crt");
    assert.match(text, new RegExp(`^CA certificate: {4}${ca}$`, "m"));
    assert.ok(text.includes(`curl --cacert ${ca} https://127.0.0.1:8443/readyz\n`), text);
    assert.match(text, /import it as a trusted authority/);
  });

  it("says nothing of data/ca.crt when the certificate was given (--tls-cert-file): that CA did not sign it", () => {
    const text = banner(server, "127.0.0.1", dir);
    assert.match(text, /^console: /m);
    assert.doesNotMatch(text, /ca\.crt|trust/);
  });
});
