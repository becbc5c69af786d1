import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { KubeObject } from "../api/object.js";
import { spaceInstanceResource } from "../kinds/space-instance/space-instance.js";
import { virtualClusterInstanceResource } from "../kinds/virtual-cluster-instance/virtual-cluster-instance.js";
import { admissionAttributes } from "../registry/admission.js";
import { type RequestContext, systemContext, type UserInfo } from "../registry/request-context.js";
import { postObject } from "../testing/gateway-fixture.js";
import { GROUP_PATH, startTestServer, type TestServer, userWithKey } from "../testing/test-server.js";
import { CreatorOwnerAdmission } from "./creator-owner.js";

/**
 * A project's instance created without `spec.owner` is owned by its creator (docs/virtual-clusters.md
 * and docs/spaces.md, "Owner"): a user, a team key's team; a caller that is neither gets no owner.
 */

const INSTANCES = `${GROUP_PATH}/namespaces/p-web/virtualclusterinstances`;
const instance = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: "management.platform/v1",
  kind: "VirtualClusterInstance",
  metadata: { name },
  spec,
});

describe("an instance created without an owner, through the API", () => {
  let server: TestServer;
  let alice: string;
  let bob: string;
  let devsKey: string;
  const create = (body: unknown, token?: string) => server.request("POST", INSTANCES, { body, token });

  before(async () => {
    server = await startTestServer();
    alice = await userWithKey(server, "alice");
    bob = await userWithKey(server, "bob");
    await userWithKey(server, "carol");
    await postObject(server, "teams", { metadata: { name: "devs" }, spec: { users: ["carol"] } });
    const key = await server.request("POST", `${GROUP_PATH}/ownedaccesskeys`, {
      body: { metadata: { name: "devs-key" }, spec: { team: "devs" } },
    });
    assert.equal(key.status, 201, key.text);
    devsKey = key.json.spec.key;
    await postObject(server, "projects", {
      metadata: { name: "web" },
      spec: {
        members: [
          { kind: "User", name: "alice" },
          { kind: "User", name: "bob" },
          { kind: "Team", name: "devs" },
        ],
      },
    });
  });
  after(() => server?.stop());

  it("a virtual cluster instance is its creating user's, who then gives any role inside as its owner", async () => {
    const created = await create(instance("alices", { access: [{ verbs: ["use"], users: ["bob"] }] }), alice);
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.json.spec.owner, { user: "alice" });
  });

  it("a team's key makes it the team's", async () => {
    const created = await create(instance("teams"), devsKey);
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.json.spec.owner, { team: "devs" });
  });

  it("an owner given is kept, and still needs the right to name it", async () => {
    const named = await create(instance("for-devs", { owner: { team: "devs" } }));
    assert.equal(named.status, 201, named.text);
    assert.deepEqual(named.json.spec.owner, { team: "devs" });
    // bob may create instances in web but may not read user carol: naming her is refused.
    const refused = await create(instance("for-carol", { owner: { user: "carol" } }), bob);
    assert.equal(refused.status, 403, refused.text);
    assert.match(refused.json.message, /spec\.owner\.user/);
    assert.equal((await server.request("GET", `${INSTANCES}/for-carol`)).status, 404);
  });
});

describe("CreatorOwnerAdmission alone", () => {
  const plugin = new CreatorOwnerAdmission();
  const as = (user: Partial<UserInfo> & Pick<UserInfo, "name" | "subjectKind">): RequestContext => ({
    user: { groups: [], teams: [], ...user },
    warnings: [],
  });
  const admitted = (rt: typeof spaceInstanceResource, ctx: RequestContext, spec: Record<string, unknown> = {}) => {
    const obj: KubeObject = { metadata: { name: "x", namespace: "p-web" }, spec };
    plugin.admit(admissionAttributes("CREATE", rt, obj, undefined, ctx, false));
    return obj.spec?.owner;
  };

  it("gives no owner for a caller that is neither a user nor a team, nor on the server's own creates", () => {
    for (const rt of [spaceInstanceResource, virtualClusterInstanceResource]) {
      assert.equal(admitted(rt, as({ name: "ci-bot", subjectKind: "Subject" })), undefined, rt.kind);
      assert.equal(admitted(rt, systemContext()), undefined, rt.kind);
      assert.deepEqual(admitted(rt, as({ name: "alice", subjectKind: "User" })), { user: "alice" }, rt.kind);
      assert.deepEqual(admitted(rt, as({ name: "devs", subjectKind: "Team" })), { team: "devs" }, rt.kind);
      assert.deepEqual(
        admitted(rt, as({ name: "alice", subjectKind: "User" }), { owner: { team: "qa" } }),
        { team: "qa" },
        rt.kind,
      );
    }
  });
});
