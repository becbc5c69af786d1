import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type CliRun, runCli } from "../testing/cli-run.js";
import { projectWithViewer } from "../testing/project-secrets-fixture.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";

// `platform get|set secret … --project P` and `platform list secrets --project P`: the real
// executable against a real server, as an admin and as a project viewer (docs/cli.md).

function assertOk(r: CliRun): void {
  assert.equal(r.code, 0, `exit code; stderr: ${r.stderr}`);
}

describe("platform CLI: project secrets", () => {
  let server: TestServer;
  let admin: string;
  let viewer: string;
  const homes: string[] = [];
  const cli = (home: string, args: string[], input = "") => runCli(home, args, {}, input);

  async function loggedIn(key: string): Promise<string> {
    const home = mkdtempSync(join(tmpdir(), "platform-cli-"));
    homes.push(home);
    const caFile = join(server.dataDir, "ca.crt");
    assertOk(await cli(home, ["login", server.url, "--access-key", key, "--certificate-authority", caFile]));
    return home;
  }

  before(async () => {
    server = await startTestServer();
    const veraKey = await projectWithViewer(server, "shared");
    admin = await loggedIn(server.adminKey);
    viewer = await loggedIn(veraKey);
  });
  after(async () => {
    await server.stop();
    for (const h of homes) rmSync(h, { recursive: true, force: true });
  });

  it("set creates the project secret, get reads a key, list shows the project's secrets", async () => {
    const created = await cli(admin, ["set", "secret", "api.token", "t0k", "--project", "web"]);
    assertOk(created);
    assert.match(created.stdout, /^projectsecret p-web\/api created with key token$/m);
    assertOk(await cli(admin, ["set", "secret", "api.url", "-", "-p", "web"], "https://example.test"));

    const token = await cli(admin, ["get", "secret", "api.token", "--project", "web"]);
    assertOk(token);
    assert.equal(token.stdout, "t0k");
    const all = await cli(admin, ["get", "secret", "api", "--project", "web", "-o", "json"]);
    assertOk(all);
    assert.deepEqual(JSON.parse(all.stdout), { token: "t0k", url: "https://example.test" });
    // The shared secret of the same name is another object.
    assert.equal((await cli(admin, ["get", "secret", "db.password"])).stdout, "shared");
    const notInProject = await cli(admin, ["get", "secret", "db.password", "--project", "web"]);
    assert.equal(notInProject.code, 1, notInProject.stderr);
    assert.match(notInProject.stderr, /projectsecrets.* "db" not found/);

    const list = await cli(admin, ["list", "secrets", "--project", "web"]);
    assertOk(list);
    assert.match(list.stdout, /^NAME\s+DISPLAY NAME\s+KEYS\s+SOURCE\s+AGE$/m);
    assert.match(list.stdout, /^api\s+2\s+/m);
    assert.doesNotMatch(list.stdout, /^db\s/m, "shared secrets are not listed");
    const empty = await cli(admin, ["list", "secrets", "--project", "nope"]);
    assertOk(empty);
    assert.match(empty.stderr, /No project secrets found in nope\./);
  });

  it("a viewer lists them but reads no value and writes none", async () => {
    const list = await cli(viewer, ["list", "secrets", "--project", "web"]);
    assertOk(list);
    assert.match(list.stdout, /^api\s/m);
    const get = await cli(viewer, ["get", "secret", "api.token", "--project", "web"]);
    assert.equal(get.code, 1);
    assert.match(get.stderr, /project secret p-web\/api has no key "token" \(it has no data\)/);
    assert.doesNotMatch(get.stdout + get.stderr, /t0k/);
    const set = await cli(viewer, ["set", "secret", "api.token", "mine", "--project", "web"]);
    assert.equal(set.code, 1);
    assert.match(set.stderr, /forbidden/i);
  });

  it("a sourced project secret's keys are not set by hand", async () => {
    const made = await server.request("POST", `${GROUP_PATH}/namespaces/p-web/projectsecrets`, {
      body: { metadata: { name: "db" }, spec: { source: { sharedSecret: { name: "db" } } } },
    });
    assert.equal(made.status, 201, made.text);
    const set = await cli(admin, ["set", "secret", "db.password", "by-hand", "--project", "web"]);
    assert.equal(set.code, 1);
    assert.match(set.stderr, /spec\.data.*kept equal to spec\.source/);
  });

  it("--project and --namespace together is a usage error", async () => {
    for (const args of [
      ["get", "secret", "api.token", "--project", "web", "-n", "platform"],
      ["set", "secret", "api.token", "x", "--project", "web", "-n", "platform"],
      ["list", "secrets", "--project", "web", "-n", "platform"],
    ]) {
      const r = await cli(admin, args);
      assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
      assert.match(r.stderr, /--project and --namespace/);
    }
  });
});
