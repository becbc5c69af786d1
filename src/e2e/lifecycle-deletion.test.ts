import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";
import { waitFor } from "../testing/wait-for.js";

const JSON_PATCH = "application/json-patch+json";
const MERGE_PATCH = "application/merge-patch+json";

async function createUser(server: TestServer, name: string) {
  const res = await server.request("POST", `${GROUP_PATH}/users`, {
    body: { apiVersion: "management.platform/v1", kind: "User", metadata: { name }, spec: { username: name } },
  });
  assert.equal(res.status, 201, res.text);
  return res.json;
}

async function createKey(server: TestServer, name: string, user: string, finalizers?: string[]) {
  const res = await server.request("POST", `${GROUP_PATH}/ownedaccesskeys`, {
    body: { metadata: { name, ...(finalizers ? { finalizers } : {}) }, spec: { user } },
  });
  assert.equal(res.status, 201, res.text);
  return res.json;
}

/** Waits until GET of `path` (below the group's path) answers 404. */
const waitGone = (server: TestServer, what: string, path: string) =>
  waitFor(
    what,
    () => server.request("GET", `${GROUP_PATH}/${path}`),
    (r) => r.status === 404,
  );

describe("object lifecycle: finalizers, propagation, garbage collection", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => {
    await server.stop();
  });

  it("gives access keys an ownerReference to their user", async () => {
    const user = await createUser(server, "owner-ref");
    const key = await createKey(server, "owner-ref-key", "owner-ref");
    assert.deepEqual(key.metadata.ownerReferences, [
      {
        apiVersion: "management.platform/v1",
        kind: "User",
        name: "owner-ref",
        uid: user.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
  });

  it("gives virtual cluster instances an ownerReference to their project, and collects them with it", async () => {
    const project = await server.request("POST", `${GROUP_PATH}/projects`, {
      body: { metadata: { name: "gc" }, spec: {} },
    });
    assert.equal(project.status, 201, project.text);
    const vci = await server.request("POST", `${GROUP_PATH}/namespaces/p-gc/virtualclusterinstances`, {
      body: { metadata: { name: "one" }, spec: {} },
    });
    assert.equal(vci.status, 201, vci.text);
    assert.equal(vci.json.metadata.ownerReferences[0].uid, project.json.metadata.uid);
    assert.equal(vci.json.metadata.ownerReferences[0].kind, "Project");
    assert.equal((await server.request("DELETE", `${GROUP_PATH}/projects/gc`)).status, 200);
    await waitGone(server, "the instance to be collected", "namespaces/p-gc/virtualclusterinstances/one");
  });

  it("foreground: the user stays terminating until its keys are gone, then goes", async () => {
    await createUser(server, "fg");
    await createKey(server, "fg-1", "fg");
    await createKey(server, "fg-2", "fg");
    // This key holds on until its own finalizer is removed, keeping the user terminating meanwhile.
    await createKey(server, "fg-3", "fg", ["example.com/hold"]);

    const del = await server.request("DELETE", `${GROUP_PATH}/users/fg`, {
      body: { kind: "DeleteOptions", apiVersion: "v1", propagationPolicy: "Foreground" },
    });
    assert.equal(del.status, 200, del.text);
    assert.ok(del.json.metadata.deletionTimestamp);
    assert.deepEqual(del.json.metadata.finalizers, ["foregroundDeletion"]);

    await waitGone(server, "fg-1 gone", "ownedaccesskeys/fg-1");
    await waitGone(server, "fg-2 gone", "ownedaccesskeys/fg-2");
    const held = await waitFor(
      "fg-3 terminating",
      () => server.request("GET", `${GROUP_PATH}/ownedaccesskeys/fg-3`),
      (r) => Boolean(r.json.metadata.deletionTimestamp),
    );
    assert.equal(held.status, 200);
    const user = await server.request("GET", `${GROUP_PATH}/users/fg`);
    assert.equal(user.status, 200, "the user waits for its blocking dependents");
    assert.deepEqual(user.json.metadata.finalizers, ["foregroundDeletion"]);

    const release = await server.request("PATCH", `${GROUP_PATH}/ownedaccesskeys/fg-3`, {
      body: [{ op: "remove", path: "/metadata/finalizers" }],
      contentType: JSON_PATCH,
    });
    assert.equal(release.status, 200, release.text);
    await waitGone(server, "fg-3 gone", "ownedaccesskeys/fg-3");
    await waitGone(server, "the user gone", "users/fg");
  });

  it("orphan: the keys stay and lose the ownerReference", async () => {
    await createUser(server, "orph");
    await createKey(server, "orph-1", "orph");
    await createKey(server, "orph-2", "orph");
    const del = await server.request("DELETE", `${GROUP_PATH}/users/orph?propagationPolicy=Orphan`);
    assert.equal(del.status, 200, del.text);
    assert.deepEqual(del.json.metadata.finalizers, ["orphan"]);
    await waitGone(server, "the user gone", "users/orph");
    for (const k of ["orph-1", "orph-2"]) {
      const key = await server.request("GET", `${GROUP_PATH}/ownedaccesskeys/${k}`);
      assert.equal(key.status, 200);
      assert.equal(key.json.metadata.ownerReferences, undefined);
    }
  });

  it("orphanDependents=true is the legacy spelling of Orphan; with propagationPolicy too it is 422", async () => {
    await createUser(server, "legacy");
    const both = await server.request("DELETE", `${GROUP_PATH}/users/legacy`, {
      body: { orphanDependents: true, propagationPolicy: "Background" },
    });
    assert.equal(both.status, 422, both.text);
    const del = await server.request("DELETE", `${GROUP_PATH}/users/legacy`, { body: { orphanDependents: true } });
    assert.equal(del.status, 200);
    assert.deepEqual(del.json.metadata.finalizers, ["orphan"]);
  });

  it("background (the default): the owner goes now, the dependents after", async () => {
    await createUser(server, "bg");
    await createKey(server, "bg-1", "bg");
    const del = await server.request("DELETE", `${GROUP_PATH}/users/bg`);
    assert.equal(del.status, 200);
    assert.equal((await server.request("GET", `${GROUP_PATH}/users/bg`)).status, 404);
    await waitGone(server, "bg-1 collected", "ownedaccesskeys/bg-1");
  });

  it("collects by uid: an owner recreated under the same name does not keep old dependents", async () => {
    const old = await createUser(server, "reborn");
    await server.request("DELETE", `${GROUP_PATH}/users/reborn?propagationPolicy=Orphan`);
    await waitGone(server, "old user gone", "users/reborn");
    await createUser(server, "reborn");
    // A dependent still naming the old uid: its owner is gone although the name exists.
    const stale = await server.request("POST", `${GROUP_PATH}/ownedaccesskeys`, {
      body: {
        metadata: {
          name: "reborn-stale",
          ownerReferences: [
            { apiVersion: "management.platform/v1", kind: "User", name: "reborn", uid: old.metadata.uid },
          ],
        },
        spec: { subject: "someone" },
      },
    });
    assert.equal(stale.status, 201, stale.text);
    const live = await createKey(server, "reborn-live", "reborn");
    await waitGone(server, "stale key collected", "ownedaccesskeys/reborn-stale");
    const still = await server.request("GET", `${GROUP_PATH}/ownedaccesskeys/reborn-live`);
    assert.equal(still.status, 200, "a dependent whose owner exists under the same uid stays");
    assert.equal(still.json.metadata.uid, live.metadata.uid);
  });

  it("drops references to gone owners when another owner remains", async () => {
    const a = await createUser(server, "two-a");
    const b = await createUser(server, "two-b");
    const ref = (u: { metadata: { name: string; uid: string } }) => ({
      apiVersion: "management.platform/v1",
      kind: "User",
      name: u.metadata.name,
      uid: u.metadata.uid,
    });
    const created = await server.request("POST", `${GROUP_PATH}/ownedaccesskeys`, {
      body: { metadata: { name: "two-owners", ownerReferences: [ref(a), ref(b)] }, spec: { subject: "x" } },
    });
    assert.equal(created.status, 201, created.text);
    await server.request("DELETE", `${GROUP_PATH}/users/two-a`);
    const after = await waitFor(
      "the reference to two-a dropped",
      () => server.request("GET", `${GROUP_PATH}/ownedaccesskeys/two-owners`),
      (r) => r.json.metadata.ownerReferences?.length === 1,
    );
    assert.equal(after.json.metadata.ownerReferences[0].uid, b.metadata.uid);
  });

  it("rejects two controller references with 422", async () => {
    const a = await createUser(server, "ctl-a");
    const b = await createUser(server, "ctl-b");
    const ref = (u: { metadata: { name: string; uid: string } }) => ({
      apiVersion: "management.platform/v1",
      kind: "User",
      name: u.metadata.name,
      uid: u.metadata.uid,
      controller: true,
    });
    const res = await server.request("POST", `${GROUP_PATH}/ownedaccesskeys`, {
      body: { metadata: { name: "two-controllers", ownerReferences: [ref(a), ref(b)] }, spec: { subject: "x" } },
    });
    assert.equal(res.status, 422, res.text);
    assert.match(res.json.message, /Only one reference can have Controller set to true/);
  });

  it("finalizers: terminating state, server-owned deletion fields, no new finalizers, MODIFIED then DELETED", async () => {
    const team = await server.request("POST", `${GROUP_PATH}/teams`, {
      body: { metadata: { name: "fin", finalizers: ["example.com/a", "example.com/b"] }, spec: {} },
    });
    assert.equal(team.status, 201, team.text);
    // Clients cannot set deletionTimestamp themselves.
    const forged = await server.request("PATCH", `${GROUP_PATH}/teams/fin`, {
      body: { metadata: { deletionTimestamp: "2020-01-01T00:00:00Z" } },
      contentType: MERGE_PATCH,
    });
    assert.equal(forged.status, 200);
    assert.equal(forged.json.metadata.deletionTimestamp, undefined);

    const rv = forged.json.metadata.resourceVersion;
    const del = await server.request("DELETE", `${GROUP_PATH}/teams/fin`);
    assert.equal(del.status, 200);
    assert.ok(del.json.metadata.deletionTimestamp);
    assert.equal(del.json.metadata.deletionGracePeriodSeconds, 0);
    assert.equal(del.json.metadata.generation, team.json.metadata.generation + 1);

    const unset = await server.request("PATCH", `${GROUP_PATH}/teams/fin`, {
      body: { metadata: { deletionTimestamp: null } },
      contentType: MERGE_PATCH,
    });
    assert.equal(unset.json.metadata.deletionTimestamp, del.json.metadata.deletionTimestamp);

    const add = await server.request("PATCH", `${GROUP_PATH}/teams/fin`, {
      body: { metadata: { finalizers: ["example.com/a", "example.com/b", "example.com/c"] } },
      contentType: MERGE_PATCH,
    });
    assert.equal(add.status, 422, add.text);

    const one = await server.request("PATCH", `${GROUP_PATH}/teams/fin`, {
      body: { metadata: { finalizers: ["example.com/b"] } },
      contentType: MERGE_PATCH,
    });
    assert.equal(one.status, 200);
    assert.equal((await server.request("GET", `${GROUP_PATH}/teams/fin`)).status, 200);
    const last = await server.request("PATCH", `${GROUP_PATH}/teams/fin`, {
      body: { metadata: { finalizers: null } },
      contentType: MERGE_PATCH,
    });
    assert.equal(last.status, 200);
    assert.equal((await server.request("GET", `${GROUP_PATH}/teams/fin`)).status, 404);

    const watch = await server.request(
      "GET",
      `${GROUP_PATH}/teams?watch=true&resourceVersion=${rv}&timeoutSeconds=1&fieldSelector=metadata.name=fin`,
    );
    const events = watch.text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; object: { metadata: { deletionTimestamp?: string } } });
    assert.deepEqual(
      events.map((e) => e.type),
      ["MODIFIED", "MODIFIED", "DELETED"],
    );
    assert.ok(events[0]!.object.metadata.deletionTimestamp);
  });

  it("grace period: the object goes once the finalizers are gone and the deadline has passed", async () => {
    await server.request("POST", `${GROUP_PATH}/teams`, {
      body: { metadata: { name: "grace", finalizers: ["example.com/a"] }, spec: {} },
    });
    const del = await server.request("DELETE", `${GROUP_PATH}/teams/grace?gracePeriodSeconds=600`);
    assert.equal(del.json.metadata.deletionGracePeriodSeconds, 600);
    const deadline = Date.parse(del.json.metadata.deletionTimestamp);
    assert.ok(deadline > Date.now() + 500_000);
    // A later delete may shorten the deadline, never extend it.
    const longer = await server.request("DELETE", `${GROUP_PATH}/teams/grace?gracePeriodSeconds=900`);
    assert.equal(longer.json.metadata.deletionTimestamp, del.json.metadata.deletionTimestamp);
    const shorter = await server.request("DELETE", `${GROUP_PATH}/teams/grace?gracePeriodSeconds=2`);
    assert.equal(shorter.json.metadata.deletionGracePeriodSeconds, 2);
    assert.ok(Date.parse(shorter.json.metadata.deletionTimestamp) < deadline);

    const cleared = await server.request("PATCH", `${GROUP_PATH}/teams/grace`, {
      body: { metadata: { finalizers: null } },
      contentType: MERGE_PATCH,
    });
    assert.equal(cleared.status, 200);
    const meanwhile = await server.request("GET", `${GROUP_PATH}/teams/grace`);
    assert.equal(meanwhile.status, 200, "the deadline has not passed yet");
    assert.deepEqual(meanwhile.json.metadata.finalizers ?? [], []);
    await waitGone(server, "the team removed at its deadline", "teams/grace");
  });

  it("dryRun delete changes nothing; preconditions are checked", async () => {
    const user = await createUser(server, "dry");
    const dry = await server.request("DELETE", `${GROUP_PATH}/users/dry?dryRun=All`);
    assert.equal(dry.status, 200);
    assert.equal((await server.request("GET", `${GROUP_PATH}/users/dry`)).status, 200);
    const wrong = await server.request("DELETE", `${GROUP_PATH}/users/dry`, {
      body: { preconditions: { uid: "00000000-0000-0000-0000-000000000000" } },
    });
    assert.equal(wrong.status, 409);
    const right = await server.request("DELETE", `${GROUP_PATH}/users/dry`, {
      body: { preconditions: { uid: user.metadata.uid } },
    });
    assert.equal(right.status, 200);
  });
});

describe("garbage collection across a restart", () => {
  it("a foreground deletion in progress finishes after the server restarts", async () => {
    let server = await startTestServer();
    const dataDir = server.dataDir;
    try {
      await createUser(server, "restart");
      await createKey(server, "restart-1", "restart", ["example.com/hold"]);
      await createKey(server, "restart-2", "restart", ["example.com/hold"]);
      const del = await server.request("DELETE", `${GROUP_PATH}/users/restart?propagationPolicy=Foreground`);
      assert.equal(del.status, 200);
      await waitFor(
        "keys terminating",
        () => server.request("GET", `${GROUP_PATH}/ownedaccesskeys/restart-2`),
        (r) => Boolean(r.json.metadata.deletionTimestamp),
      );
      await server.stop({ keepData: true });

      server = await startTestServer({ dataDir });
      const user = await server.request("GET", `${GROUP_PATH}/users/restart`);
      assert.equal(user.status, 200);
      assert.deepEqual(user.json.metadata.finalizers, ["foregroundDeletion"]);
      for (const k of ["restart-1", "restart-2"]) {
        const r = await server.request("PATCH", `${GROUP_PATH}/ownedaccesskeys/${k}`, {
          body: { metadata: { finalizers: null } },
          contentType: MERGE_PATCH,
        });
        assert.equal(r.status, 200, r.text);
      }
      await waitGone(server, "the user gone after the restart", "users/restart");
    } finally {
      await server.stop();
    }
  });
});
