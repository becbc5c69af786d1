import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { runCli } from "../testing/cli-run.js";
import { postObject } from "../testing/gateway-fixture.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";

const API = "management.platform/v1";
/**
 * The gateway's wait for a waking virtual cluster: short, so that a wake the quota failed to
 * refuse answers 503 within the test instead of the refusal this file expects.
 */
const WAKE_LIMIT_MS = 2_000;

/**
 * Project quotas on writes that are not creates (docs/spaces.md#quotas): waking a sleeping
 * virtual cluster (the wakeup action, `platform wakeup vcluster`, a request through the gateway)
 * past the running quota, and giving an instance to an owner at its quota, are refused with the
 * 403 naming the quota, leave the instance as it was, and are counted right when they race.
 */
describe("project quotas on wake-ups and owner changes", () => {
  let server: TestServer;
  const path = (project: string, resource: string) => `${GROUP_PATH}/namespaces/p-${project}/${resource}`;
  const vciPath = (project: string, name = "") => `${path(project, "virtualclusterinstances")}/${name}`;
  const project = (name: string, quotas: Record<string, unknown>) =>
    postObject(server, "projects", { metadata: { name }, spec: { quotas } });
  const create = async (p: string, kind: "SpaceInstance" | "VirtualClusterInstance", name: string, spec = {}) => {
    const resource = kind === "SpaceInstance" ? "spaceinstances" : "virtualclusterinstances";
    const res = await server.request("POST", path(p, resource), {
      body: { apiVersion: API, kind, metadata: { name }, spec: { clusterRef: { cluster: "c1" }, ...spec } },
    });
    assert.equal(res.status, 201, res.text);
  };
  const action = (p: string, name: string, verb: "sleep" | "wakeup") =>
    server.request("POST", `${vciPath(p, name)}/${verb}`, { body: {} });
  const asleep = async (p: string, name: string) => {
    const res = await server.request("GET", vciPath(p, name));
    assert.equal(res.status, 200, res.text);
    return res.json.status?.sleep !== undefined;
  };
  const sleepAll = async (p: string, names: string[]) => {
    for (const n of names) assert.equal((await action(p, n, "sleep")).status, 200);
  };
  const patchOwner = (p: string, resource: string, name: string, owner: unknown) =>
    server.request("PATCH", `${path(p, resource)}/${name}`, {
      body: { spec: { owner } },
      contentType: "application/merge-patch+json",
    });
  const ownerOf = async (p: string, resource: string, name: string) =>
    (await server.request("GET", `${path(p, resource)}/${name}`)).json.spec.owner;

  before(async () => {
    server = await startTestServer({ sleepMode: { wakeLimitMs: WAKE_LIMIT_MS } });
    await postObject(server, "clusters", { metadata: { name: "c1" }, spec: { local: true } });
    for (const name of ["alice", "bob", "carol"]) await postObject(server, "users", { metadata: { name }, spec: {} });
    await postObject(server, "teams", { metadata: { name: "red" }, spec: {} });
  });
  after(() => server?.stop());

  it("the wakeup action past the project's running quota: 403 naming it, and the instance stays asleep", async () => {
    await project("wake-full", { project: { runningVirtualClusterInstances: 1 } });
    await create("wake-full", "VirtualClusterInstance", "a");
    await sleepAll("wake-full", ["a"]);
    await create("wake-full", "VirtualClusterInstance", "b");
    const refused = await action("wake-full", "a", "wakeup");
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.json.kind, "Status");
    assert.equal(refused.json.reason, "Forbidden");
    assert.equal(
      refused.json.message,
      'virtualclusterinstances.management.platform "a" is forbidden: project quota runningVirtualClusterInstances=1 reached in project "wake-full" (1 used)',
    );
    assert.equal(await asleep("wake-full", "a"), true);
    // A slot freed by putting the other to sleep: the wake goes through.
    await sleepAll("wake-full", ["b"]);
    assert.equal((await action("wake-full", "a", "wakeup")).status, 200);
    assert.equal(await asleep("wake-full", "a"), false);
  });

  it("the wakeup action past the owner's running quota (user, team): 403 naming it", async () => {
    await project("wake-owner", {
      user: { runningVirtualClusterInstances: 1 },
      team: { runningVirtualClusterInstances: 1 },
    });
    for (const [name, owner] of [
      ["alices-sleeper", { user: "alice" }],
      ["reds-sleeper", { team: "red" }],
    ] as const) {
      await create("wake-owner", "VirtualClusterInstance", name, { owner });
      await sleepAll("wake-owner", [name]);
    }
    await create("wake-owner", "VirtualClusterInstance", "alices-runner", { owner: { user: "alice" } });
    await create("wake-owner", "VirtualClusterInstance", "reds-runner", { owner: { team: "red" } });
    await create("wake-owner", "VirtualClusterInstance", "bobs-runner", { owner: { user: "bob" } });
    const user = await action("wake-owner", "alices-sleeper", "wakeup");
    assert.equal(user.status, 403, user.text);
    assert.match(
      user.json.message,
      /user quota for "alice": runningVirtualClusterInstances=1 reached in project "wake-owner" \(1 used\)/,
    );
    const team = await action("wake-owner", "reds-sleeper", "wakeup");
    assert.equal(team.status, 403, team.text);
    assert.match(team.json.message, /team quota for "red": runningVirtualClusterInstances=1 reached/);
    assert.equal(await asleep("wake-owner", "alices-sleeper"), true);
    assert.equal(await asleep("wake-owner", "reds-sleeper"), true);
  });

  it("a request through the gateway that would wake it past the quota: a 403 Status at once, and it stays asleep", async () => {
    await project("wake-gw", { project: { runningVirtualClusterInstances: 1 } });
    await create("wake-gw", "VirtualClusterInstance", "sleeper");
    await sleepAll("wake-gw", ["sleeper"]);
    await create("wake-gw", "VirtualClusterInstance", "runner");
    const before = (await server.request("GET", vciPath("wake-gw", "sleeper"))).json.status;
    const res = await server.request(
      "GET",
      "/kubernetes/project/wake-gw/virtualcluster/sleeper/api/v1/namespaces/default/pods",
    );
    assert.equal(res.status, 403, res.text);
    assert.equal(res.json.kind, "Status");
    assert.match(
      res.json.message,
      /"sleeper" is forbidden: project quota runningVirtualClusterInstances=1 reached in project "wake-gw" \(1 used\)/,
    );
    assert.equal(await asleep("wake-gw", "sleeper"), true);
    await server.gateway.activity.flush();
    const after = (await server.request("GET", vciPath("wake-gw", "sleeper"))).json.status;
    assert.equal(after.lastActivity, before.lastActivity, "a refused wake-up is no activity");
  });

  it("platform wakeup vcluster past the quota fails with the server's message", async () => {
    await project("wake-cli", { project: { runningVirtualClusterInstances: 1 } });
    await create("wake-cli", "VirtualClusterInstance", "sleeper");
    await sleepAll("wake-cli", ["sleeper"]);
    await create("wake-cli", "VirtualClusterInstance", "runner");
    const home = mkdtempSync(join(tmpdir(), "platform-cli-quota-"));
    const caFile = join(home, "ca.pem");
    writeFileSync(caFile, server.caPem ?? "");
    const login = await runCli(home, [
      "login",
      server.url,
      "--access-key",
      server.adminKey,
      "--certificate-authority",
      caFile,
    ]);
    assert.equal(login.code, 0, login.stderr);
    const woken = await runCli(home, ["wakeup", "vcluster", "sleeper", "--project", "wake-cli"]);
    assert.notEqual(woken.code, 0, woken.stdout);
    assert.match(
      woken.stderr,
      /project quota runningVirtualClusterInstances=1 reached in project "wake-cli" \(1 used\)/,
    );
    assert.equal(woken.stdout, "");
    assert.equal(await asleep("wake-cli", "sleeper"), true);
  });

  it("wakes racing for the last running slots: exactly the quota's number wake, the rest get the 403", async () => {
    await project("wake-race", { project: { runningVirtualClusterInstances: 2 } });
    const names = ["w0", "w1", "w2", "w3", "w4"];
    for (const n of names) {
      await create("wake-race", "VirtualClusterInstance", n);
      await sleepAll("wake-race", [n]); // the next one finds a running slot
    }
    const results = await Promise.all(names.map((n) => action("wake-race", n, "wakeup")));
    const codes = results.map((r) => r.status).sort();
    assert.deepEqual(codes, [200, 200, 403, 403, 403], results.map((r) => r.text).join("\n"));
    let awake = 0;
    for (const n of names) if (!(await asleep("wake-race", n))) awake++;
    assert.equal(awake, 2);
  });

  it("a new spec.owner at its user or team quota: 403 naming it, and the owner stays", async () => {
    await project("owners", { user: { virtualClusterInstances: 1 }, team: { spaceInstances: 1 } });
    await create("owners", "VirtualClusterInstance", "alices", { owner: { user: "alice" } });
    await create("owners", "VirtualClusterInstance", "bobs", { owner: { user: "bob" } });
    const user = await patchOwner("owners", "virtualclusterinstances", "bobs", { user: "alice" });
    assert.equal(user.status, 403, user.text);
    assert.equal(
      user.json.message,
      'virtualclusterinstances.management.platform "bobs" is forbidden: user quota for "alice": virtualClusterInstances=1 reached in project "owners" (1 used)',
    );
    assert.deepEqual(await ownerOf("owners", "virtualclusterinstances", "bobs"), { user: "bob" });
    // To a user with room: allowed.
    const moved = await patchOwner("owners", "virtualclusterinstances", "bobs", { user: "carol" });
    assert.equal(moved.status, 200, moved.text);

    await create("owners", "SpaceInstance", "reds", { owner: { team: "red" } });
    await create("owners", "SpaceInstance", "carols", { owner: { user: "carol" } });
    const team = await patchOwner("owners", "spaceinstances", "carols", { user: null, team: "red" });
    assert.equal(team.status, 403, team.text);
    assert.match(team.json.message, /team quota for "red": spaceInstances=1 reached in project "owners" \(1 used\)/);
    assert.deepEqual(await ownerOf("owners", "spaceinstances", "carols"), { user: "carol" });

    // A PUT is the same write.
    const stored = (await server.request("GET", vciPath("owners", "alices"))).json;
    stored.spec.owner = { user: "carol" };
    const put = await server.request("PUT", vciPath("owners", "alices"), { body: stored });
    assert.equal(put.status, 403, put.text);
    assert.match(put.json.message, /user quota for "carol": virtualClusterInstances=1 reached/);

    // Taking the owner away would take the instance out of every owner quota: 422.
    const removed = await patchOwner("owners", "virtualclusterinstances", "alices", null);
    assert.equal(removed.status, 422, removed.text);
    assert.equal(removed.json.details.causes[0].field, "spec.owner");
    assert.match(removed.json.message, /project "owners" sets user or team quotas: an instance keeps an owner/);
    assert.deepEqual(await ownerOf("owners", "virtualclusterinstances", "alices"), { user: "alice" });
  });

  it("an update that claims no quota goes through in a project past its quotas", async () => {
    await project("lowered", { project: { virtualClusterInstances: 5, runningVirtualClusterInstances: 5 } });
    await create("lowered", "VirtualClusterInstance", "kept", { owner: { user: "alice" } });
    const lowered = await server.request("PATCH", `${GROUP_PATH}/projects/lowered`, {
      body: { spec: { quotas: { project: { virtualClusterInstances: 0, runningVirtualClusterInstances: 0 } } } },
      contentType: "application/merge-patch+json",
    });
    assert.equal(lowered.status, 200, lowered.text);
    const labelled = await server.request("PATCH", vciPath("lowered", "kept"), {
      body: { metadata: { labels: { tier: "dev" } } },
      contentType: "application/merge-patch+json",
    });
    assert.equal(labelled.status, 200, labelled.text);
    // Same owner, written again: nothing new is counted.
    assert.equal((await patchOwner("lowered", "virtualclusterinstances", "kept", { user: "alice" })).status, 200);
    // Sleeping frees a slot; it never claims one.
    assert.equal((await action("lowered", "kept", "sleep")).status, 200);
  });

  it("a team's key creating a virtual cluster without owner: it is the team's, counted against the team quota", async () => {
    await postObject(server, "projects", {
      metadata: { name: "team-made" },
      spec: { quotas: { team: { virtualClusterInstances: 1 } }, members: [{ kind: "Team", name: "red" }] },
    });
    await postObject(server, "clusters", {
      metadata: { name: "reds-cluster" },
      // The team's own cluster, which it administers: its instance names a virtual cluster it runs
      // there without a template, which `use` alone may not (kinds/virtual-cluster-instance/ca-source.ts).
      spec: { local: true, access: [{ verbs: ["use", "administer"], teams: ["red"] }] },
    });
    const key = (await postObject(server, "ownedaccesskeys", { metadata: { name: "red-key" }, spec: { team: "red" } }))
      .spec.key as string;
    const asTeam = (name: string) =>
      server.request("POST", path("team-made", "virtualclusterinstances"), {
        body: {
          apiVersion: API,
          kind: "VirtualClusterInstance",
          metadata: { name },
          spec: { clusterRef: { cluster: "reds-cluster" } },
        },
        token: key,
      });
    const first = await asTeam("first");
    assert.equal(first.status, 201, first.text);
    assert.deepEqual(first.json.spec.owner, { team: "red" });
    const second = await asTeam("second");
    assert.equal(second.status, 403, second.text);
    assert.match(second.json.message, /team quota for "red": virtualClusterInstances=1 reached in project "team-made"/);
  });

  it("owner changes racing for a user's last slot: one wins, the rest get the 403", async () => {
    await project("owner-race", { user: { spaceInstances: 1 } });
    const names = ["s0", "s1", "s2", "s3"];
    for (const n of names) await create("owner-race", "SpaceInstance", n, { owner: { team: "red" } });
    const results = await Promise.all(
      names.map((n) => patchOwner("owner-race", "spaceinstances", n, { team: null, user: "carol" })),
    );
    const codes = results.map((r) => r.status).sort();
    assert.deepEqual(codes, [200, 403, 403, 403], results.map((r) => r.text).join("\n"));
    let carols = 0;
    for (const n of names) if ((await ownerOf("owner-race", "spaceinstances", n)).user === "carol") carols++;
    assert.equal(carols, 1);
  });
});
