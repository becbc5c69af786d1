import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { after, before, describe, it } from "node:test";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";
import { waitFor } from "../testing/wait-for.js";

const KUBECTL = process.env.KUBECTL ?? "/usr/bin/kubectl";
const EVENTS = "/kubernetes/management/api/v1/events";

interface EventItem {
  reason: string;
  type: string;
  message: string;
  count: number;
  involvedObject: { kind: string; name: string };
  metadata: { name: string; namespace: string };
}

/**
 * Core v1 Events as kubectl and callers see them: written by the platform on what it does,
 * shown only to who may get the object, never written by a caller, watched with `kubectl events -w`.
 */
describe("core v1 Events", () => {
  let server: TestServer;
  let bobKey: string;
  let aliceKey: string;
  const kubectl = (config: string, args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        KUBECTL,
        ["--kubeconfig", config, ...args],
        { timeout: 20_000, env: { PATH: process.env.PATH, HOME: server.dataDir } },
        (err, stdout, stderr) =>
          resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr }),
      );
    });
  const reasons = (items: EventItem[]) => items.map((e) => `${e.involvedObject.name}/${e.reason}`).sort();
  const createKey = async (name: string, user: string): Promise<string> => {
    const res = await server.request("POST", `${GROUP_PATH}/ownedaccesskeys`, {
      body: { metadata: { name }, spec: { user } },
    });
    assert.equal(res.status, 201, res.text);
    return res.json.spec.key;
  };
  const disable = async (name: string) => {
    const res = await server.request("PATCH", `${GROUP_PATH}/ownedaccesskeys/${name}`, {
      body: { spec: { disabled: true } },
      contentType: "application/merge-patch+json",
    });
    assert.equal(res.status, 200, res.text);
  };
  /** Waits for the controller's Event to be written (it reacts to a watch, so not at once). */
  const eventsOf = async (token: string | undefined, query = ""): Promise<EventItem[]> => {
    await server.events.recorder.flush();
    const res = await server.request("GET", `${EVENTS}${query}`, { token });
    assert.equal(res.status, 200, res.text);
    return res.json.items;
  };

  before(async () => {
    server = await startTestServer();
    for (const name of ["alice", "bob"]) {
      const res = await server.request("POST", `${GROUP_PATH}/users`, { body: { metadata: { name }, spec: {} } });
      assert.equal(res.status, 201, res.text);
    }
    aliceKey = await createKey("alice-main", "alice");
    bobKey = await createKey("bob-main", "bob");
    await createKey("bob-ci", "bob");
  });
  after(async () => {
    await server.stop();
  });

  it("a disabled key is an Event its owner and admins see, and nobody else", async () => {
    await disable("bob-ci");
    await waitFor(
      "the Disabled Event",
      () => eventsOf(undefined),
      (events) => events.some((e) => e.reason === "Disabled"),
    );
    const admin = await eventsOf(undefined);
    const event = admin.find((e) => e.involvedObject.name === "bob-ci" && e.reason === "Disabled");
    assert.ok(event);
    assert.equal(event.type, "Warning");
    assert.equal(event.metadata.namespace, "default", "cluster-scoped objects' events live in default");
    assert.match(event.message, /bob-ci of user bob was disabled/);
    assert.deepEqual(reasons(await eventsOf(bobKey)), ["bob-ci/Disabled"]);
    // Alice may not get bob's key: not in her list, and a direct GET answers as if absent.
    assert.deepEqual(await eventsOf(aliceKey), []);
    const direct = await server.request(
      "GET",
      `/kubernetes/management/api/v1/namespaces/default/events/${event.metadata.name}`,
      {
        token: aliceKey,
      },
    );
    assert.equal(direct.status, 404, direct.text);
    assert.equal(direct.json.reason, "NotFound");
    const own = await server.request(
      "GET",
      `/kubernetes/management/api/v1/namespaces/default/events/${event.metadata.name}`,
      {
        token: bobKey,
      },
    );
    assert.equal(own.status, 200, own.text);
    // A limited list does not count the hidden ones either.
    const page = await server.request("GET", `${EVENTS}?limit=1`, { token: aliceKey });
    assert.equal(page.json.metadata.remainingItemCount, undefined);
  });

  it("an expired key is an Event once its lifetime ended", async () => {
    const res = await server.request("POST", `${GROUP_PATH}/ownedaccesskeys`, {
      body: { metadata: { name: "bob-short" }, spec: { user: "bob", ttl: 1 } },
    });
    assert.equal(res.status, 201, res.text);
    await waitFor(
      "the Expired Event",
      () => {
        // The controller looks every 30 s; ask it now once the key's second is over.
        server.events.accessKeys.checkExpiries();
        return eventsOf(undefined);
      },
      (events) => events.some((e) => e.reason === "Expired"),
    );
    const expired = (await eventsOf(bobKey)).find((e) => e.reason === "Expired");
    assert.match(expired?.message ?? "", /bob-short of user bob expired at /);
  });

  it("nobody writes Events, not even an admin: 403, authorized before the kind's verbs are looked at", async () => {
    const body = {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name: "fake", namespace: "default" },
      involvedObject: { apiVersion: "management.platform/v1", kind: "User", name: "alice" },
      reason: "Fake",
      message: "made up",
    };
    const [{ metadata }] = await eventsOf(undefined);
    const one = `/kubernetes/management/api/v1/namespaces/default/events/${metadata.name}`;
    for (const [method, path, token] of [
      ["POST", "/kubernetes/management/api/v1/namespaces/default/events", undefined],
      ["POST", "/kubernetes/management/api/v1/namespaces/default/events", bobKey],
      ["PUT", one, undefined],
      ["PATCH", one, undefined],
      ["DELETE", one, undefined],
      ["DELETE", "/kubernetes/management/api/v1/namespaces/default/events", undefined],
    ] as const) {
      const res = await server.request(method, path, {
        body,
        token,
        contentType: method === "PATCH" ? "application/merge-patch+json" : undefined,
      });
      // kube-apiserver authorizes first, and no role grants a write of Events: 403, not 405.
      assert.equal(res.status, 403, `${method} ${path}: ${res.text}`);
      assert.equal(res.json.reason, "Forbidden", `${method} ${path}: ${res.text}`);
    }
    const refused = await server.request("POST", "/kubernetes/management/api/v1/namespaces/default/events", { body });
    assert.equal(
      refused.json.message,
      'events is forbidden: User "admin" cannot create resource "events" in API group "" in the namespace "default"',
    );
    assert.ok((await server.request("GET", one)).status === 200, "the event is still there");
    // kubectl auth can-i says the same.
    const canI = async (verb: string, token?: string) =>
      (
        await server.request("POST", "/kubernetes/management/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", {
          token,
          body: {
            apiVersion: "authorization.k8s.io/v1",
            kind: "SelfSubjectAccessReview",
            spec: { resourceAttributes: { verb, group: "", resource: "events", namespace: "default" } },
          },
        })
      ).json.status.allowed;
    assert.equal(await canI("create"), false);
    assert.equal(await canI("delete"), false);
    assert.equal(await canI("list", bobKey), true);
    // Without a credential: 401, as everywhere.
    assert.equal((await server.request("GET", EVENTS, { token: null })).status, 401);
  });

  it("the same happening again counts on one Event", async () => {
    const user = (await server.request("GET", `${GROUP_PATH}/users/alice`)).json;
    server.events.recorder.record(user, "Normal", "Checked", "checked twice");
    server.events.recorder.record(user, "Normal", "Checked", "checked twice");
    const checked = (await eventsOf(undefined)).filter((e) => e.reason === "Checked");
    assert.equal(checked.length, 1);
    assert.equal(checked[0]!.count, 2);
    // Alice may get her own User: she sees this one.
    assert.deepEqual(reasons(await eventsOf(aliceKey)), ["alice/Checked"]);
    // A scoped key reads Events too, each shown when its scope lets it get the object:
    // the CLI scope gets alice's own User, not her access keys.
    const key = (await server.request("GET", `${GROUP_PATH}/ownedaccesskeys/alice-main`)).json;
    server.events.recorder.record(key, "Normal", "Checked", "key checked");
    assert.deepEqual(reasons(await eventsOf(aliceKey)), ["alice-main/Checked", "alice/Checked"]);
    const res = await server.request("POST", `${GROUP_PATH}/ownedaccesskeys`, {
      body: { metadata: { name: "alice-cli" }, spec: { user: "alice", scope: { allowPlatformCli: true } } },
    });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(reasons(await eventsOf(res.json.spec.key)), ["alice/Checked"]);
  });

  it("the garbage collector's deletions are Events", async () => {
    const owner = await server.request("POST", `${GROUP_PATH}/teams`, {
      body: { metadata: { name: "owners" }, spec: {} },
    });
    assert.equal(owner.status, 201, owner.text);
    const dependent = await server.request("POST", `${GROUP_PATH}/ownedaccesskeys`, {
      body: {
        metadata: {
          name: "owned-by-team",
          ownerReferences: [
            { apiVersion: "management.platform/v1", kind: "Team", name: "owners", uid: owner.json.metadata.uid },
          ],
        },
        spec: { team: "owners" },
      },
    });
    assert.equal(dependent.status, 201, dependent.text);
    assert.equal((await server.request("DELETE", `${GROUP_PATH}/teams/owners`)).status, 200);
    await waitFor(
      "the GarbageCollected Event",
      () => eventsOf(undefined),
      (events) => events.some((e) => e.reason === "GarbageCollected"),
    );
    const gc = (await eventsOf(undefined)).find((e) => e.reason === "GarbageCollected")!;
    assert.equal(gc.involvedObject.name, "owned-by-team");
    assert.match(gc.message, /its owner Team owners is gone/);
  });

  it("kubectl events, get events, describe and events -w", async () => {
    const config = server.kubeconfig();
    const all = await kubectl(config, ["events", "-A"]);
    assert.equal(all.code, 0, all.stderr);
    assert.match(all.stdout, /Warning\s+Disabled\s+OwnedAccessKey\/bob-ci/);
    const forKey = await kubectl(config, ["events", "-A", "--for", "ownedaccesskey/bob-ci"]);
    assert.equal(forKey.code, 0, forKey.stderr);
    assert.doesNotMatch(forKey.stdout, /GarbageCollected/);
    const table = await kubectl(config, ["get", "events", "-A"]);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE/);
    const describe = await kubectl(config, ["describe", "ownedaccesskey", "bob-ci"]);
    assert.equal(describe.code, 0, describe.stderr);
    assert.match(
      describe.stdout,
      /Events:\n\s+Type\s+Reason\s+Age\s+From\s+Message[\s\S]*Warning\s+Disabled\s+\S+\s+platform\s+access key bob-ci/,
    );
    // Bob's kubectl does not see alice's Event.
    const asBob = await kubectl(server.kubeconfig(bobKey), ["events", "-A"]);
    assert.equal(asBob.code, 0, asBob.stderr);
    assert.doesNotMatch(asBob.stdout, /alice/);

    const watch = spawn(KUBECTL, ["--kubeconfig", config, "events", "-A", "-w"], {
      env: { PATH: process.env.PATH, HOME: server.dataDir },
    });
    let out = "";
    watch.stdout.on("data", (d: Buffer) => {
      out += d.toString();
    });
    try {
      const watched = async () => out;
      await waitFor("kubectl events -w showing bob-ci's Event", watched, (o) => o.includes("bob-ci"));
      await disable("bob-main");
      await waitFor("kubectl events -w showing bob-main disabled", watched, (o) =>
        /Disabled\s+OwnedAccessKey\/bob-main/.test(o),
      );
    } finally {
      watch.kill();
    }
  });
});
