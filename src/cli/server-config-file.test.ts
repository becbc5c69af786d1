import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { Command } from "commander";
import { addOidcOptions, oidcConfigOf } from "./oidc-options.js";
import { applyServerConfigFile, switchValue } from "./server-config-file.js";

const dir = mkdtempSync(join(tmpdir(), "platform-config-file-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function parse(args: string[], yaml: string): Record<string, string | undefined> {
  const file = join(dir, `c-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, yaml);
  const command = addOidcOptions(
    new Command("start")
      .exitOverride()
      .option("--listen <hostport>", "", "0.0.0.0:8443")
      .option("--data-dir <dir>", "", "./data")
      .option("--allow-local-endpoints")
      .option("--config <file>"),
  );
  command.parse([...args, "--config", file], { from: "user" });
  applyServerConfigFile(command, file);
  return command.opts();
}

describe("platform start --config", () => {
  it("takes flags from the file, the oidc section included; command-line flags win", () => {
    writeFileSync(join(dir, "secret"), "s3cret\n");
    const opts = parse(
      ["--listen", "127.0.0.1:9443"],
      `listen: 0.0.0.0:1
data-dir: /var/lib/platform
oidc:
  issuer-url: https://dex.example.com
  client-id: platform
  client-secret-file: ${join(dir, "secret")}
  allowed-groups: [a, b]
  login-key-ttl: 600
`,
    );
    assert.equal(opts.listen, "127.0.0.1:9443");
    assert.equal(opts.dataDir, "/var/lib/platform");
    const oidc = oidcConfigOf(opts);
    assert.equal(oidc?.issuerUrl, "https://dex.example.com");
    assert.equal(oidc?.clientSecret, "s3cret");
    assert.deepEqual(oidc?.allowedGroups, ["a", "b"]);
    assert.equal(oidc?.loginKeyTtlSeconds, 600);
    assert.equal(oidc?.usernameClaim, "preferred_username");
    assert.deepEqual(oidc?.scopes, ["openid", "profile", "email", "groups", "offline_access"]);
  });

  it("a switch is on from the command line or `true` in the file, off by default or with `false`", () => {
    const on = (args: string[], yaml: string) =>
      switchValue(parse(args, yaml).allowLocalEndpoints, "--allow-local-endpoints");
    assert.equal(on([], "listen: 0.0.0.0:1\n"), false);
    assert.equal(on([], "allow-local-endpoints: true\n"), true);
    assert.equal(on([], "allow-local-endpoints: false\n"), false);
    assert.equal(on(["--allow-local-endpoints"], "allow-local-endpoints: false\n"), true);
    assert.throws(() => on([], "allow-local-endpoints: yes-please\n"), {
      message: '--allow-local-endpoints takes no value (in --config: true or false), got "yes-please"',
    });
  });

  it("accepts top-level oidc-* keys too", () => {
    const opts = parse(
      [],
      "oidc-issuer-url: https://kc.example.com/realms/x\noidc-client-id: p\noidc-scopes: profile email\n",
    );
    assert.deepEqual(oidcConfigOf(opts)?.scopes, ["openid", "profile", "email"]);
  });

  it("refuses unknown keys and wrong values", () => {
    assert.throws(() => parse([], "lisen: 1\n"), /unknown key "lisen"/);
    assert.throws(() => parse([], "oidc: [1]\n"), /must be a mapping/);
    assert.throws(() => parse([], "listen: {a: 1}\n"), /must be a string/);
  });

  it("without an issuer SSO is off; a half configuration is refused", () => {
    assert.equal(oidcConfigOf(parse([], "")), undefined);
    assert.throws(() => oidcConfigOf(parse(["--oidc-client-id", "x"], "")), /needs --oidc-issuer-url/);
    assert.throws(() => oidcConfigOf(parse(["--oidc-issuer-url", "https://i"], "")), /needs --oidc-client-id/);
    assert.throws(
      () => oidcConfigOf(parse(["--oidc-issuer-url", "http://i", "--oidc-client-id", "c"], "")),
      /must be an https URL/,
    );
    assert.throws(
      () =>
        oidcConfigOf(
          parse(["--oidc-issuer-url", "https://i", "--oidc-client-id", "c", "--oidc-login-key-ttl", "0"], ""),
        ),
      /positive number of seconds/,
    );
  });

  it("takes the sign-in limits from flags or the file, defaults otherwise, and refuses odd values", () => {
    const base = ["--oidc-issuer-url", "https://i", "--oidc-client-id", "c"];
    assert.deepEqual(oidcConfigOf(parse(base, ""))?.signInLimits, {
      burstPerAddress: 20,
      perAddressPerMinute: 6,
      globalPerSecond: 10,
      maxAddresses: 10_000,
    });
    const set = oidcConfigOf(
      parse([...base, "--oidc-sign-in-burst", "3"], "oidc:\n  sign-ins-per-minute: 2\n  max-sign-ins-per-second: 50\n"),
    );
    assert.deepEqual(set?.signInLimits, {
      burstPerAddress: 3,
      perAddressPerMinute: 2,
      globalPerSecond: 50,
      maxAddresses: 10_000,
    });
    assert.throws(
      () => oidcConfigOf(parse([...base, "--oidc-max-sign-ins-per-second", "0"], "")),
      /--oidc-max-sign-ins-per-second must be a positive whole number/,
    );
    assert.throws(
      () => oidcConfigOf(parse([...base, "--oidc-sign-in-burst", "1.5"], "")),
      /--oidc-sign-in-burst must be a positive whole number/,
    );
  });
});
