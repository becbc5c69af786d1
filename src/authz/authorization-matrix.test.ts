import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";

const G = GROUP_PATH;
const ADMIN = "platform-management-admin";
const VIEW = "platform-management-view";
const b64 = (s: string) => Buffer.from(s).toString("base64");

/**
 * The authorization matrix over HTTPS against a real server: built-in roles, every access-rule
 * form, both team-membership paths, project members, self rules, every key-scope form,
 * and the escalation attempts — each row one request and the status it must get.
 */
describe("authorization matrix", () => {
  let s: TestServer;
  const key: Record<string, string> = {};

  const create = async (path: string, body: Record<string, unknown>, token?: string) => {
    const r = await s.request("POST", `${G}/${path}`, { body, token });
    assert.ok(r.status === 201, `${path}: ${r.status} ${r.text}`);
    return r.json;
  };
  const newKey = async (name: string, spec: Record<string, unknown>) => {
    const r = await create("ownedaccesskeys", { metadata: { name }, spec });
    key[name] = r.spec.key;
  };

  before(async () => {
    s = await startTestServer({ maxFailedAuthPerMinute: 1000 });
    key.admin = s.adminKey;
    for (const [name, spec] of Object.entries({
      alice: {},
      viewer: { clusterRoles: [{ name: VIEW }] },
      boss: { clusterRoles: [{ name: ADMIN }] },
      bob: {},
      carol: { groups: ["eng"] },
      dave: {},
      eve: {},
    })) {
      await create("users", { metadata: { name }, spec });
    }
    await create("teams", { metadata: { name: "devs" }, spec: { users: ["bob"] } });
    await create("teams", { metadata: { name: "engteam" }, spec: { groups: ["eng"] } });
    await create("teams", { metadata: { name: "admins" }, spec: { users: ["dave"], clusterRoles: [{ name: ADMIN }] } });
    await create("clusters", {
      metadata: { name: "c1" },
      spec: { local: true, access: [{ verbs: ["get", "use"], teams: ["devs"] }] },
    });
    await create("clusters", {
      metadata: { name: "c2" },
      spec: { local: true, access: [{ verbs: ["*"], users: ["*"] }] },
    });
    await create("clusters", {
      metadata: { name: "c3" },
      spec: { local: true, access: [{ verbs: ["get"], teams: ["engteam"], subresources: ["status"] }] },
    });
    await create("clusters", { metadata: { name: "c4" }, spec: { local: true } });
    await create("clusters", { metadata: { name: "c5" }, spec: { local: true } });
    await create("clusters", {
      metadata: { name: "c6" },
      spec: { local: true, access: [{ verbs: ["*"], users: ["*"] }] },
    });
    await create("namespaces/platform/sharedsecrets", {
      metadata: { name: "s1" },
      spec: { data: { password: b64("hunter2") }, access: [{ verbs: ["get"], users: ["alice"] }] },
    });
    await create("namespaces/platform/sharedsecrets", { metadata: { name: "s2" }, spec: { data: { x: b64("y") } } });
    await create("projects", { metadata: { name: "web" }, spec: { members: [{ kind: "User", name: "alice" }] } });
    await create("projects", {
      metadata: { name: "ops" },
      spec: {
        members: [
          { kind: "Team", name: "engteam", clusterRole: ADMIN },
          { kind: "User", name: "eve", clusterRole: VIEW },
        ],
      },
    });
    await create("projects", { metadata: { name: "other" }, spec: {} });
    await create("namespaces/p-web/virtualclusterinstances", { metadata: { name: "vc1" }, spec: {} });
    await create("namespaces/p-web/virtualclusterinstances", { metadata: { name: "vc9" }, spec: {} });
    await create("namespaces/p-ops/virtualclusterinstances", { metadata: { name: "vc2" }, spec: {} });
    await create("namespaces/p-ops/virtualclusterinstances", { metadata: { name: "vc4" }, spec: {} });
    await create("namespaces/p-other/virtualclusterinstances", {
      metadata: { name: "vc3" },
      spec: { access: [{ verbs: ["get", "update"], users: ["bob"] }] },
    });
    for (const [ns, name] of [
      ["p-web", "sp1"],
      ["p-web", "sp2"],
      ["p-ops", "sp3"],
    ]) {
      await create(`namespaces/${ns}/spaceinstances`, { metadata: { name }, spec: { clusterRef: { cluster: "c6" } } });
    }
    for (const u of ["alice", "viewer", "boss", "bob", "carol", "dave", "eve"]) await newKey(u, { user: u });
    await newKey("devs-key", { team: "devs" });
    await newKey("alice-ci", { user: "alice", scope: { projects: [{ project: "web" }] } });
    await newKey("alice-vc", {
      user: "alice",
      scope: { virtualClusters: [{ project: "web", virtualCluster: "vc1" }] },
    });
    await newKey("alice-cli", { user: "alice", scope: { allowPlatformCli: true } });
    await newKey("alice-space", { user: "alice", scope: { spaces: [{ project: "web", space: "*" }] } });
    // An admin's key narrowed to one space: the scope alone decides what it reaches.
    await newKey("boss-sp1", { user: "boss", scope: { spaces: [{ project: "web", space: "sp1" }] } });
    await newKey("admin-rules", {
      user: "admin",
      scope: {
        rules: [{ verbs: ["get", "list"], resources: [{ group: "management.platform", resources: ["clusters"] }] }],
      },
    });
    await newKey("admin-named", {
      user: "admin",
      scope: {
        rules: [{ resources: [{ group: "management.platform", resources: ["users"] }], resourceNames: ["bob"] }],
      },
    });
    await newKey("admin-ns", { user: "admin", scope: { rules: [{ namespaces: ["p-ops"] }] } });
  });
  after(async () => {
    await s?.stop();
  });

  const patch = (annotation: string) => ({
    body: { metadata: { annotations: { "example.com/t": annotation } } },
    contentType: "application/merge-patch+json",
  });

  // [caller, method, path, expected status, note]
  const rows: Array<[string, string, string, number, string]> = [
    // built-in roles
    ["admin", "GET", "users/bob", 200, "admin reads anything"],
    ["admin", "DELETE", "clusters/c5", 200, "admin deletes anything"],
    ["boss", "GET", "namespaces/platform/sharedsecrets/s2", 200, "user with admin role"],
    ["dave", "GET", "clusters/c3", 200, "admin role through team spec.users"],
    ["dave", "PATCH", "users/alice", 200, "admin role through team: writes"],
    ["viewer", "GET", "users/bob", 200, "view reads users"],
    ["viewer", "GET", "clusters/c4", 200, "view reads clusters"],
    ["viewer", "GET", "teams/admins", 200, "view reads teams"],
    ["viewer", "GET", "projects/other", 200, "view reads projects"],
    ["viewer", "GET", "namespaces/p-other/virtualclusterinstances/vc3", 200, "view reads instances"],
    ["viewer", "PATCH", "users/bob", 403, "view cannot patch"],
    ["viewer", "DELETE", "clusters/c4", 403, "view cannot delete"],
    ["viewer", "POST", "clusters", 403, "view cannot create"],
    ["viewer", "GET", "ownedaccesskeys/bob", 403, "view never reads others' keys"],
    ["viewer", "GET", "users/bob/accesskeys", 403, "view never lists others' keys"],
    ["viewer", "DELETE", "clusters", 403, "view cannot deletecollection"],
    // no role
    ["alice", "GET", "users/bob", 403, "no role: others' users"],
    ["alice", "GET", "teams/devs", 403, "no role: teams not belonged to"],
    ["alice", "GET", "clusters/c4", 403, "no role: cluster without rules"],
    ["alice", "POST", "users", 403, "no role: create users"],
    ["alice", "DELETE", "users/alice", 403, "self rules do not include deleting oneself"],
    ["alice", "PATCH", "users/alice", 403, "self rules do not include changing oneself"],
    // self rules
    ["alice", "GET", "users/alice", 200, "own user"],
    ["alice", "GET", "users/alice/accesskeys", 200, "own keys"],
    ["alice", "GET", "ownedaccesskeys/alice", 200, "own key"],
    ["alice", "PATCH", "ownedaccesskeys/alice", 200, "own key: patch"],
    ["alice", "GET", "ownedaccesskeys/bob", 403, "another's key"],
    ["alice", "DELETE", "ownedaccesskeys/bob", 403, "another's key: delete"],
    ["bob", "GET", "teams/devs", 200, "own team through spec.users"],
    ["bob", "GET", "teams/devs/accesskeys", 200, "own team's keys"],
    ["carol", "GET", "teams/engteam", 200, "own team through groups"],
    ["carol", "GET", "teams/devs", 403, "other team"],
    ["alice", "POST", "selves", 201, "selves for everyone"],
    // access rules on clusters
    ["bob", "GET", "clusters/c1", 200, "team rule: get"],
    ["bob", "PATCH", "clusters/c1", 403, "team rule: verb not granted"],
    ["devs-key", "GET", "clusters/c1", 200, "team key acts as the team"],
    ["devs-key", "GET", "users/bob", 403, "team key has the team's rights only"],
    ["alice", "GET", "clusters/c1", 403, "team rule: not a member"],
    ["alice", "PATCH", "clusters/c2", 200, "* verbs, * users"],
    ["eve", "DELETE", "clusters/c6", 200, "* verbs include delete"],
    ["carol", "GET", "clusters/c3/status", 200, "rule covering a subresource, team by groups"],
    ["carol", "PATCH", "clusters/c3/status", 403, "subresource rule: verb not granted"],
    ["bob", "GET", "clusters/c1/status", 403, "rule without subresources does not cover status"],
    // access rules on shared secrets and instances
    ["alice", "GET", "namespaces/platform/sharedsecrets/s1", 200, "user rule on a secret"],
    ["alice", "GET", "namespaces/platform/sharedsecrets/s2", 403, "secret without rule"],
    ["alice", "PATCH", "namespaces/platform/sharedsecrets/s1", 403, "secret rule: get only"],
    ["bob", "GET", "namespaces/p-other/virtualclusterinstances/vc3", 200, "rule on an instance"],
    ["bob", "PATCH", "namespaces/p-other/virtualclusterinstances/vc3", 403, "update granted, patch not"],
    // project members
    ["alice", "GET", "projects/web", 200, "member reads the project"],
    ["alice", "PATCH", "projects/web", 403, "plain member cannot change the project"],
    ["alice", "GET", "namespaces/p-web/virtualclusterinstances/vc1", 200, "member reads instances"],
    ["alice", "PATCH", "namespaces/p-web/virtualclusterinstances/vc1", 200, "member manages instances"],
    ["alice", "GET", "namespaces/p-ops/virtualclusterinstances/vc2", 403, "not a member of ops"],
    ["carol", "PATCH", "projects/ops", 200, "team member with admin role manages the project"],
    ["carol", "DELETE", "namespaces/p-ops/virtualclusterinstances/vc4", 200, "… and its instances"],
    ["eve", "GET", "projects/ops", 200, "view member reads"],
    ["eve", "PATCH", "projects/ops", 403, "view member cannot write"],
    ["eve", "GET", "projects/web", 403, "not a member"],
    // key scopes: projects
    ["alice-ci", "GET", "projects/web", 200, "project scope: its project"],
    ["alice-ci", "GET", "namespaces/p-web/virtualclusterinstances/vc1", 200, "project scope: its instances"],
    ["alice-ci", "GET", "users/alice", 403, "project scope: not even own user"],
    ["alice-ci", "GET", "namespaces/platform/sharedsecrets/s1", 403, "project scope: nothing else"],
    ["alice-ci", "POST", "selves", 403, "project scope without allowPlatformCli"],
    // virtualClusters
    ["alice-vc", "GET", "namespaces/p-web/virtualclusterinstances/vc1", 200, "instance scope: the instance"],
    ["alice-vc", "GET", "namespaces/p-web/virtualclusterinstances/vc9", 403, "instance scope: another instance"],
    ["alice-vc", "GET", "projects/web", 200, "instance scope reads its project"],
    ["alice-vc", "PATCH", "projects/web", 403, "… and only reads it"],
    // spaces
    ["alice-space", "GET", "projects/web", 200, "space scope reads its project"],
    ["alice-space", "GET", "namespaces/p-web/virtualclusterinstances/vc1", 403, "space scope: no instances"],
    ["alice-space", "GET", "namespaces/p-web/spaceinstances/sp2", 200, "space scope (*): its project's spaces"],
    ["alice-ci", "GET", "namespaces/p-web/spaceinstances/sp1", 200, "project scope: its spaces"],
    ["boss-sp1", "GET", "namespaces/p-web/spaceinstances/sp1", 200, "space scope: the space"],
    ["boss-sp1", "PATCH", "namespaces/p-web/spaceinstances/sp1", 200, "space scope: changes the space"],
    ["boss-sp1", "GET", "namespaces/p-web/spaceinstances/sp2", 403, "space scope: another space"],
    ["boss-sp1", "GET", "namespaces/p-ops/spaceinstances/sp3", 403, "space scope: another project"],
    ["boss-sp1", "GET", "projects/web", 200, "space scope reads its project"],
    ["boss-sp1", "PATCH", "projects/web", 403, "… and only reads it"],
    ["boss-sp1", "GET", "projects/ops", 403, "space scope: not another project"],
    ["boss-sp1", "GET", "clusters/c6", 403, "space scope: not the cluster"],
    ["boss-sp1", "POST", "namespaces/p-web/spaceinstances", 403, "space scope: no new spaces"],
    ["boss-sp1", "POST", "namespaces/p-web/virtualclusterinstances", 403, "space scope: no management writes outside"],
    // allowPlatformCli
    ["alice-cli", "POST", "selves", 201, "cli: selves"],
    ["alice-cli", "GET", "users/alice", 200, "cli: own user"],
    ["alice-cli", "GET", "projects/web", 403, "cli: nothing more"],
    ["alice-cli", "PATCH", "ownedaccesskeys/alice-cli", 403, "cli: read-only"],
    // deprecated rules
    ["admin-rules", "GET", "clusters/c4", 200, "rule: verbs and resources"],
    ["admin-rules", "PATCH", "clusters/c4", 403, "rule: verb outside"],
    ["admin-rules", "GET", "users/bob", 403, "rule: resource outside"],
    ["admin-rules", "GET", "clusters/c3/status", 403, "rule: subresource not named"],
    ["admin-named", "GET", "users/bob", 200, "rule: resourceNames"],
    ["admin-named", "DELETE", "users/carol", 403, "rule: other name"],
    ["admin-ns", "GET", "namespaces/p-ops/virtualclusterinstances/vc2", 200, "rule: namespaces"],
    ["admin-ns", "GET", "namespaces/p-web/virtualclusterinstances/vc1", 403, "rule: other namespace"],
    ["admin-ns", "GET", "users/bob", 403, "rule: cluster-scoped is the empty namespace"],
  ];

  for (const [who, method, path, want, note] of rows) {
    it(`${who} ${method} ${path} → ${want} (${note})`, async () => {
      const body =
        method === "PATCH"
          ? patch(who)
          : method === "POST"
            ? { body: { metadata: { name: `x-${who}` }, spec: {} } }
            : {};
      const r = await s.request(method, `${G}/${path}`, { token: key[who], ...body });
      assert.equal(r.status, want, r.text);
      if (want === 403) {
        assert.equal(r.json.kind, "Status");
        assert.equal(r.json.reason, "Forbidden");
      }
    });
  }

  it("refusals carry the Kubernetes message", async () => {
    const r = await s.request("GET", `${G}/users/bob`, { token: key.alice });
    assert.equal(
      r.json.message,
      'users.management.platform "bob" is forbidden: User "alice" cannot get resource "users" in API group "management.platform"',
    );
    const n = await s.request("GET", `${G}/namespaces/p-ops/virtualclusterinstances/vc2`, { token: key.alice });
    assert.equal(
      n.json.message,
      'virtualclusterinstances.management.platform "vc2" is forbidden: User "alice" cannot get resource "virtualclusterinstances" in API group "management.platform" in the namespace "p-ops"',
    );
  });

  const names = (r: { json: { items: Array<{ metadata: { name: string } }> } }) =>
    r.json.items.map((i) => i.metadata.name).sort();

  it("lists return only what the caller may get", async () => {
    assert.deepEqual(names(await s.request("GET", `${G}/clusters`, { token: key.bob })), ["c1", "c2"]);
    assert.deepEqual(names(await s.request("GET", `${G}/users`, { token: key.alice })), ["alice"]);
    assert.deepEqual(names(await s.request("GET", `${G}/projects`, { token: key.alice })), ["web"]);
    assert.deepEqual(names(await s.request("GET", `${G}/projects`, { token: key["alice-ci"] })), ["web"]);
    assert.deepEqual(names(await s.request("GET", `${G}/virtualclusterinstances`, { token: key["alice-vc"] })), [
      "vc1",
    ]);
    assert.deepEqual(names(await s.request("GET", `${G}/sharedsecrets`, { token: key.alice })), ["s1"]);
    const spaces = (path: string) => s.request("GET", `${G}/${path}`, { token: key["boss-sp1"] });
    assert.deepEqual(names(await spaces("spaceinstances")), ["sp1"]);
    assert.deepEqual(names(await spaces("namespaces/p-web/spaceinstances")), ["sp1"]);
    assert.deepEqual(names(await spaces("projects")), ["web"]);
    assert.deepEqual(names(await s.request("GET", `${G}/teams`, { token: key.carol })), ["engteam"]);
  });

  it("ownedaccesskeys lists hold only the caller's keys, except for admins", async () => {
    const own = names(await s.request("GET", `${G}/ownedaccesskeys`, { token: key.alice }));
    assert.deepEqual(own, ["alice", "alice-ci", "alice-cli", "alice-space", "alice-vc"]);
    const viewer = names(await s.request("GET", `${G}/ownedaccesskeys`, { token: key.viewer }));
    assert.deepEqual(viewer, ["viewer"]);
    const all = names(await s.request("GET", `${G}/ownedaccesskeys`));
    assert.ok(all.includes("bob") && all.includes("devs-key"));
  });

  it("view sees shared secrets without data; an access rule shows the data", async () => {
    const v = await s.request("GET", `${G}/namespaces/platform/sharedsecrets/s1`, { token: key.viewer });
    assert.equal(v.status, 200);
    assert.equal(v.json.spec.data, undefined);
    const list = await s.request("GET", `${G}/sharedsecrets`, { token: key.viewer });
    assert.ok(list.json.items.length >= 2);
    for (const i of list.json.items) assert.equal(i.spec.data, undefined);
    const a = await s.request("GET", `${G}/namespaces/platform/sharedsecrets/s1`, { token: key.alice });
    assert.equal(a.json.spec.data.password, b64("hunter2"));
  });

  it("watches are filtered like lists", async () => {
    const r = await s.request("GET", `${G}/clusters?watch=true&timeoutSeconds=1`, { token: key.bob });
    assert.equal(r.status, 200);
    const seen = r.text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .filter((e) => e.type === "ADDED")
      .map((e) => e.object.metadata.name)
      .sort();
    assert.deepEqual(seen, ["c1", "c2"]);
  });

  it("discovery and version are open to every authenticated caller, even a scoped key", async () => {
    for (const p of ["/kubernetes/management/apis", `${G}`, "/kubernetes/management/version"]) {
      const r = await s.request("GET", p, { token: key["alice-ci"] });
      assert.equal(r.status, 200, p);
    }
  });

  describe("no escalation", () => {
    const escalations: Array<[string, string, string, Record<string, unknown>, string]> = [
      [
        "viewer",
        "POST",
        "ownedaccesskeys",
        { metadata: { name: "v-for-bob" }, spec: { user: "bob" } },
        "key for another user",
      ],
      [
        "alice",
        "POST",
        "ownedaccesskeys",
        { metadata: { name: "a-team" }, spec: { team: "devs" } },
        "key for a team not belonged to",
      ],
      [
        "alice",
        "POST",
        "ownedaccesskeys",
        { metadata: { name: "a-subj" }, spec: { subject: "robot" } },
        "key for a subject",
      ],
      [
        "carol",
        "POST",
        "ownedaccesskeys",
        { metadata: { name: "c-grp" }, spec: { groups: ["admins-group"] } },
        "key with groups not held",
      ],
      [
        "alice-ci",
        "POST",
        "ownedaccesskeys",
        { metadata: { name: "a-wide" }, spec: { scope: { projects: [{ project: "*" }] } } },
        "key scope wider than own",
      ],
      [
        "alice-ci",
        "POST",
        "ownedaccesskeys",
        { metadata: { name: "a-none" }, spec: {} },
        "unscoped key from a scoped one",
      ],
      [
        "alice-ci",
        "POST",
        "directclusterendpointtokens",
        { metadata: { name: "t" }, spec: {} },
        "unscoped token from a scoped key",
      ],
      [
        "alice",
        "POST",
        "namespaces/p-web/virtualclusterinstances",
        {
          metadata: { name: "vcx" },
          spec: {
            // Its owner gives roles inside the virtual cluster (admission/instance-inside-roles.ts).
            owner: { user: "alice" },
            access: [{ verbs: ["get", "list", "watch", "update", "patch", "delete", "use", "bind"], users: ["*"] }],
          },
        },
        "allowed: members hold every verb on their instances but administer",
      ],
      [
        "alice",
        "POST",
        "namespaces/p-web/virtualclusterinstances",
        { metadata: { name: "vcy" }, spec: { access: [{ verbs: ["*"], users: ["*"] }] } },
        "access rule granting administer (*), which a plain member does not hold",
      ],
      [
        "bob",
        "PATCH:vc3",
        "namespaces/p-other/virtualclusterinstances/vc3",
        {
          spec: {
            access: [
              { verbs: ["get", "update"], users: ["bob"] },
              { verbs: ["delete"], users: ["bob"] },
            ],
          },
        },
        "access rule granting a verb not held",
      ],
    ];
    for (const [who, method, path, body, note] of escalations) {
      it(`${who}: ${note}`, async () => {
        const want = note.startsWith("allowed") ? 201 : 403;
        const r =
          method === "POST"
            ? await s.request("POST", `${G}/${path}`, { token: key[who], body })
            : await s.request("PUT", `${G}/${path}`, {
                token: key[who],
                body: await (async () => {
                  const cur = (await s.request("GET", `${G}/${path}`)).json;
                  return { ...cur, spec: { ...cur.spec, ...(body.spec as object) } };
                })(),
              });
        assert.equal(r.status, want, r.text);
      });
    }

    it("admins may grant roles; a view user cannot grant even through its own key", async () => {
      const ok = await s.request("PATCH", `${G}/users/eve`, {
        ...patch("x"),
        body: { spec: { clusterRoles: [{ name: VIEW }] } },
      });
      assert.equal(ok.status, 200, ok.text);
      const scoped = await s.request("PATCH", `${G}/users/eve`, {
        token: key["admin-named"],
        contentType: "application/merge-patch+json",
        body: { spec: { clusterRoles: [{ name: ADMIN }] } },
      });
      assert.equal(scoped.status, 403, "a scoped admin key cannot hand out the admin role");
    });

    it("a team member with rights on a cluster can share only what it holds", async () => {
      const cur = (await s.request("GET", `${G}/clusters/c2`)).json;
      const widened = {
        ...cur,
        spec: { ...cur.spec, access: [...cur.spec.access, { verbs: ["*"], teams: ["engteam"] }] },
      };
      // eve holds * on c2 through the everyone rule, so she may pass it on.
      const r = await s.request("PUT", `${G}/clusters/c2`, { token: key.eve, body: widened });
      assert.equal(r.status, 200, r.text);
    });

    it("own key: may narrow, may not point at someone else", async () => {
      const mine = await s.request("POST", `${G}/ownedaccesskeys`, {
        token: key.alice,
        body: { metadata: { name: "alice-narrow" }, spec: { scope: { projects: [{ project: "web" }] } } },
      });
      assert.equal(mine.status, 201, mine.text);
      assert.equal(mine.json.spec.user, "alice");
      const moved = await s.request("PATCH", `${G}/ownedaccesskeys/alice-narrow`, {
        token: key.alice,
        contentType: "application/merge-patch+json",
        body: { spec: { user: "boss" } },
      });
      assert.equal(moved.status, 403, moved.text);
      const teamKey = await s.request("POST", `${G}/ownedaccesskeys`, {
        token: key.bob,
        body: { metadata: { name: "bob-devs" }, spec: { team: "devs" } },
      });
      assert.equal(teamKey.status, 201, "a member may create a key of its team (the team's rights only)");
    });
  });
});
