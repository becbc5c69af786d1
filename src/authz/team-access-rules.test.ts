import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { GROUP_PATH, startTestServer, type TestServer, userWithKey } from "../testing/test-server.js";

describe("access rules", () => {
  describe("a Team's access rules", () => {
    let s: TestServer;
    let alice: string;
    let bob: string;
    before(async () => {
      s = await startTestServer();
      alice = await userWithKey(s, "alice");
      bob = await userWithKey(s, "bob");
      const team = await s.request("POST", `${GROUP_PATH}/teams`, {
        body: {
          metadata: { name: "ops" },
          spec: { displayName: "Ops", access: [{ verbs: ["get", "update"], users: ["alice"] }] },
        },
      });
      assert.equal(team.status, 201, team.text);
    });
    after(() => s?.stop());

    it("grant their verbs to the users they name", async () => {
      const got = await s.request("GET", `${GROUP_PATH}/teams/ops`, { token: alice });
      assert.equal(got.status, 200, got.text);
      got.json.spec.displayName = "Operations";
      const put = await s.request("PUT", `${GROUP_PATH}/teams/ops`, { token: alice, body: got.json });
      assert.equal(put.status, 200, put.text);
      const list = await s.request("GET", `${GROUP_PATH}/teams`, { token: alice });
      assert.deepEqual(
        list.json.items.map((t: { metadata: { name: string } }) => t.metadata.name),
        ["ops"],
      );
    });

    it("refuse who they do not name, and verbs they do not list", async () => {
      assert.equal((await s.request("GET", `${GROUP_PATH}/teams/ops`, { token: bob })).status, 403);
      assert.equal((await s.request("DELETE", `${GROUP_PATH}/teams/ops`, { token: alice })).status, 403);
      const list = await s.request("GET", `${GROUP_PATH}/teams`, { token: bob });
      assert.deepEqual(list.json.items, []);
    });

    it("an update granted by a rule still cannot add members or widen the rules", async () => {
      const got = await s.request("GET", `${GROUP_PATH}/teams/ops`, { token: alice });
      const join = structuredClone(got.json);
      join.spec.users = ["alice"];
      assert.equal((await s.request("PUT", `${GROUP_PATH}/teams/ops`, { token: alice, body: join })).status, 403);
      const widen = structuredClone(got.json);
      widen.spec.access = [...widen.spec.access, { verbs: ["delete"], users: ["alice"] }];
      assert.equal((await s.request("PUT", `${GROUP_PATH}/teams/ops`, { token: alice, body: widen })).status, 403);
    });
  });
});
