import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { loggedInHome, runCli } from "../testing/cli-run.js";
import { postObject } from "../testing/gateway-fixture.js";
import { GROUP_PATH, startTestServer, type TestServer, userWithKey } from "../testing/test-server.js";

/**
 * `--owner-team` of `create vcluster` and `create space`, against a real server: the instance is
 * the team's, and the server's rule on naming an owner other than oneself (docs/permissions.md)
 * holds for the CLI too. bob is a plain member of project web, dana its project admin; both are
 * in team devs.
 */
describe("platform create vcluster|space --owner-team", { timeout: 120_000 }, () => {
  let server: TestServer;
  const homes: string[] = [];
  let bob: string;
  let dana: string;

  /** A home logged in as the key's user. */
  const loggedIn = async (key: string) => {
    const home = await loggedInHome(server, key, { prefix: "platform-owner-team-", reuseKey: true });
    homes.push(home);
    return home;
  };

  before(async () => {
    server = await startTestServer();
    const bobKey = await userWithKey(server, "bob");
    const danaKey = await userWithKey(server, "dana");
    await postObject(server, "teams", { metadata: { name: "devs" }, spec: { users: ["bob", "dana"] } });
    await postObject(server, "clusters", {
      metadata: { name: "c1" },
      spec: { local: true, access: [{ verbs: ["use"], users: ["*"] }] },
    });
    await postObject(server, "projects", {
      metadata: { name: "web" },
      spec: {
        members: [
          { kind: "User", name: "bob" },
          { kind: "User", name: "dana", clusterRole: "platform-management-admin" },
        ],
      },
    });
    bob = await loggedIn(bobKey);
    dana = await loggedIn(danaKey);
  });
  after(async () => {
    await server?.stop();
    for (const home of homes) rmSync(home, { recursive: true, force: true });
  });

  it("create vcluster --owner-team makes the instance the team's", async () => {
    const run = await runCli(dana, [
      "create",
      "vcluster",
      "teams",
      "--project",
      "web",
      "--owner-team",
      "devs",
      "--no-wait",
    ]);
    assert.equal(run.code, 0, run.stderr);
    const stored = await server.request("GET", `${GROUP_PATH}/namespaces/p-web/virtualclusterinstances/teams`);
    assert.deepEqual(stored.json.spec.owner, { team: "devs" });
  });

  it("create space --owner-team makes the space the team's", async () => {
    const run = await runCli(dana, [
      "create",
      "space",
      "teams",
      "--project",
      "web",
      "--cluster",
      "c1",
      "--owner-team",
      "devs",
      // No cluster runs here: the owner is what this test is about, not the space becoming Ready.
      "--no-wait",
    ]);
    assert.equal(run.code, 0, run.stderr);
    const stored = await server.request("GET", `${GROUP_PATH}/namespaces/p-web/spaceinstances/teams`);
    assert.deepEqual(stored.json.spec.owner, { team: "devs" });
  });

  it("a caller who does not administer the instance is refused, with the server's reason", async () => {
    for (const args of [
      ["create", "vcluster", "bobs", "--project", "web", "--owner-team", "devs", "--no-wait"],
      ["create", "space", "bobs", "--project", "web", "--cluster", "c1", "--owner-team", "devs"],
    ]) {
      const run = await runCli(bob, args);
      assert.equal(run.code, 1, `${args[1]}: ${run.stderr}`);
      assert.match(run.stderr, /User "bob" cannot set spec\.owner to team "devs"/, args[1]);
    }
  });
});
