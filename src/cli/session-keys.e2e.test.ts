import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type CliRun, runCli } from "../testing/cli-run.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";
import { waitFor } from "../testing/wait-for.js";

function assertOk(r: CliRun): void {
  assert.equal(r.code, 0, `exit code; stderr: ${r.stderr}`);
}

/** The session key `platform login` stored in `home`. */
function storedLogin(home: string): { accessKeyName: string; accessKey: string } {
  return JSON.parse(readFileSync(join(home, "config.json"), "utf8")).login;
}

/** The session keys of `platform login` against a real server: their idle lifetime and their revocation. */
describe("platform login session keys", () => {
  let server: TestServer;
  let other: TestServer;
  const homes: string[] = [];
  const newHome = () => {
    const h = mkdtempSync(join(tmpdir(), "platform-session-"));
    homes.push(h);
    return h;
  };
  const login = (h: string, s: TestServer, extra: string[] = []) =>
    runCli(h, [
      "login",
      s.url,
      "--access-key",
      s.adminKey,
      "--certificate-authority",
      join(s.dataDir, "ca.crt"),
      ...extra,
    ]);
  const keyStatus = async (s: TestServer, name: string) =>
    (await s.request("GET", `${GROUP_PATH}/ownedaccesskeys/${name}`)).status;

  before(async () => {
    [server, other] = await Promise.all([startTestServer(), startTestServer()]);
  });
  after(async () => {
    await Promise.all([server.stop(), other.stop()]);
    for (const h of homes) rmSync(h, { recursive: true, force: true });
  });

  it("the session key expires after a week unused, renewed on each use; --session-ttl changes that", async () => {
    const h = newHome();
    assertOk(await login(h, server));
    const key = await server.request("GET", `${GROUP_PATH}/ownedaccesskeys/${storedLogin(h).accessKeyName}`);
    assert.equal(key.json.spec.type, "Login");
    assert.equal(key.json.spec.ttl, 7 * 24 * 3600);
    assert.equal(key.json.spec.ttlAfterLastActivity, true);
    // A use records the key's last activity, from which its lifetime counts (bounded wait: the write is async).
    assertOk(await runCli(h, ["whoami"]));
    await waitFor(
      "status.lastActivity set by the use",
      async () =>
        (await server.request("GET", `${GROUP_PATH}/ownedaccesskeys/${storedLogin(h).accessKeyName}`)).json.status
          ?.lastActivity,
      (seen) => Boolean(seen),
    );

    const shorter = newHome();
    assertOk(await login(shorter, server, ["--session-ttl", "12h"]));
    const short = await server.request("GET", `${GROUP_PATH}/ownedaccesskeys/${storedLogin(shorter).accessKeyName}`);
    assert.equal(short.json.spec.ttl, 12 * 3600);
    assert.equal(short.json.spec.ttlAfterLastActivity, true);
  });

  it("--session-ttl: too short, not a duration, or with --reuse-key is a usage error and nothing is created", async () => {
    const h = newHome();
    const cases: Array<[string[], RegExp]> = [
      [["--session-ttl", "30s"], /--session-ttl must be at least 120s/],
      [["--session-ttl", "soon"], /not a duration: "soon"/],
      [["--session-ttl", "1h", "--reuse-key"], /--session-ttl applies to the session key a login creates/],
    ];
    for (const [extra, message] of cases) {
      const r = await login(h, server, extra);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, message);
    }
    assert.throws(() => storedLogin(h), /ENOENT/, "no login stored");
  });

  it("a new login revokes the session key of the login it replaces; logout revokes its own", async () => {
    const h = newHome();
    assertOk(await login(h, server));
    const first = storedLogin(h).accessKeyName;
    assertOk(await login(h, server));
    const second = storedLogin(h).accessKeyName;
    assert.notEqual(first, second);
    assert.equal(await keyStatus(server, first), 404, "the first session key is deleted on the server");
    assert.equal(await keyStatus(server, second), 200);
    assertOk(await runCli(h, ["logout"]));
    assert.equal(await keyStatus(server, second), 404);

    // A replaced key that is already gone is no obstacle (nor a warning).
    assertOk(await login(h, server));
    const gone = storedLogin(h).accessKeyName;
    assert.equal((await server.request("DELETE", `${GROUP_PATH}/ownedaccesskeys/${gone}`)).status, 200);
    const again = await login(h, server);
    assertOk(again);
    assert.doesNotMatch(again.stderr, /warning/);
    // Logging in with the stored session key itself (--reuse-key) stores that very key: it stays alive.
    const { accessKey, accessKeyName } = storedLogin(h);
    const reused = await runCli(h, [
      "login",
      server.url,
      "--access-key",
      accessKey,
      "--certificate-authority",
      join(server.dataDir, "ca.crt"),
      "--reuse-key",
    ]);
    assertOk(reused);
    assert.equal(await keyStatus(server, accessKeyName), 200);
    assertOk(await runCli(h, ["whoami"]));
  });

  it("a login to another server revokes the replaced login's key on its own server", async () => {
    const h = newHome();
    assertOk(await login(h, server));
    const onFirst = storedLogin(h).accessKeyName;
    assertOk(await login(h, other));
    assert.equal(await keyStatus(server, onFirst), 404);
    assert.equal(await keyStatus(other, storedLogin(h).accessKeyName), 200);
  });
});
