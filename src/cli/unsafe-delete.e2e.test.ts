import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type CliRun, runCli } from "../testing/cli-run.js";
import { damageStoredValues } from "../testing/damage-stored-values.js";
import { postObject } from "../testing/gateway-fixture.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";

/**
 * `platform delete secret|accesskey … --ignore-store-read-error-with-cluster-breaking-potential`
 * against a real server whose SQLite file was damaged while it was down: the flag sends
 * DeleteOptions.ignoreStoreReadErrorWithClusterBreakingPotential, the admin removes the corrupt
 * secret with it, and a user who may delete the secret otherwise is refused (403).
 */
const FLAG = "--ignore-store-read-error-with-cluster-breaking-potential";
const SECRETS = `${GROUP_PATH}/namespaces/platform/sharedsecrets`;
/** Not JSON: the stored value of a secret no server wrote. */
const DAMAGED = '{"apiVersion":"management.platform/v1","kind":"SharedSecret","metadata":{"name":"x"';

function assertOk(r: CliRun): void {
  assert.equal(r.code, 0, `exit code; stderr: ${r.stderr}`);
}

describe("platform delete with the unsafe-deletion flag", () => {
  let server: TestServer;
  const homes: Record<string, string> = {};

  before(async () => {
    const first = await startTestServer();
    const create = (path: string, body: unknown) => postObject(first, path, body);
    await create("users", { metadata: { name: "bob" }, spec: { username: "bob" } });
    const bobKey = (await create("ownedaccesskeys", { metadata: { name: "bob-key" }, spec: { user: "bob" } })).spec
      .key as string;
    // bob may delete both secrets the normal way (his access rule), but holds no unsafe deletion.
    const access = [{ verbs: ["get", "delete"], users: ["bob"] }];
    for (const name of ["broken", "broken-too", "readable"])
      await create("namespaces/platform/sharedsecrets", { metadata: { name }, spec: { data: { k: "dg==" }, access } });
    const dataDir = first.dataDir;
    await first.stop({ keepData: true });

    damageStoredValues(dataDir, [
      ["sharedsecrets/platform/broken", DAMAGED],
      ["sharedsecrets/platform/broken-too", DAMAGED],
    ]);
    server = await startTestServer({ dataDir });
    const caFile = join(dataDir, "ca.crt");
    for (const [who, key] of [
      ["admin", server.adminKey],
      ["bob", bobKey],
    ] as const) {
      homes[who] = mkdtempSync(join(tmpdir(), "platform-cli-"));
      assertOk(await runCli(homes[who], ["login", server.url, "--access-key", key, "--certificate-authority", caFile]));
    }
  });
  after(async () => {
    await server.stop();
    for (const h of Object.values(homes)) rmSync(h, { recursive: true, force: true });
  });

  const cli = (who: string, args: string[]) => runCli(homes[who]!, args);

  it("the admin removes a corrupt secret with the flag; without it, the normal delete fails", async () => {
    const plain = await cli("admin", ["delete", "secret", "broken"]);
    assert.equal(plain.code, 1, plain.stderr);
    assert.match(plain.stderr, /corrupt object/);
    assert.equal((await server.request("GET", `${SECRETS}/broken`)).status, 500, "still there");

    const unsafe = await cli("admin", ["delete", "secret", "broken", FLAG]);
    assertOk(unsafe);
    assert.equal(
      unsafe.stdout,
      "sharedsecret platform/broken deleted (unsafe deletion: its stored value was not read)\n",
    );
    assert.equal((await server.request("GET", `${SECRETS}/broken`)).status, 404);
  });

  it("refuses a user who may delete the secret but holds no unsafe deletion (403), and keeps it", async () => {
    for (const name of ["broken-too", "readable"]) {
      const r = await cli("bob", ["delete", "secret", name, FLAG]);
      assert.equal(r.code, 1, r.stderr);
      // Refused at the unsafe verb, which only the admin role holds (the corrupt one may be refused
      // at `delete` already: its access rule cannot be read).
      assert.match(
        r.stderr,
        /is forbidden: User "bob" cannot (unsafe-delete-ignore-read-errors|delete) resource "sharedsecrets"/,
      );
      if (name === "readable") assert.match(r.stderr, /cannot unsafe-delete-ignore-read-errors/);
      assert.doesNotMatch(r.stderr, /\n\s+at /, "no stack trace");
    }
    assert.equal((await server.request("GET", `${SECRETS}/broken-too`)).status, 500, "still there");
    assert.equal((await server.request("GET", `${SECRETS}/readable`)).status, 200, "still there");
    // The same user deletes the readable secret without the flag: the refusal was the flag's.
    assertOk(await cli("bob", ["delete", "secret", "readable"]));
  });

  it("sends the option from `delete accesskey` too: on a key that reads fine it is refused (422)", async () => {
    const r = await cli("admin", ["delete", "accesskey", "bob-key", FLAG]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /is exclusively used to delete corrupt object\(s\), try again by removing this option/);
    assert.equal((await server.request("GET", `${GROUP_PATH}/ownedaccesskeys/bob-key`)).status, 200);
  });
});
