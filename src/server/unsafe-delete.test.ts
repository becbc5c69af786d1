import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, before, describe, it } from "node:test";
import { API_PREFIX } from "../api/object.js";
import { damageStoredValues } from "../testing/damage-stored-values.js";
import { suiteServer } from "../testing/suite-server.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";
import { waitFor } from "../testing/wait-for.js";
import { WatchClient } from "../testing/watch-client.js";

/**
 * KEP-3926 on both stores: an object whose stored value was damaged below the server (in the
 * SQLite file while the server was down, in etcd while it runs) is reported without its bytes,
 * refuses the normal DELETE, and goes with `ignoreStoreReadErrorWithClusterBreakingPotential`
 * for a caller holding `unsafe-delete-ignore-read-errors` — the admin role.
 */
const OPTION = "ignoreStoreReadErrorWithClusterBreakingPotential";
const KUBECTL = process.env.KUBECTL ?? "/usr/bin/kubectl";
const VERB = "unsafe-delete-ignore-read-errors";
/** What the damaged values hold, so a test can tell they were never sent. */
const SECRET_MARK = "do-not-leak-7f3a";
/** Not JSON, not even framed as an object. */
const TRUNCATED = `{"apiVersion":"management.platform/v1","kind":"Team","metadata":{"name":"x"},"spec":{"users":["${SECRET_MARK}"`;
/** Framed as an object (the fast paths' check passes it), yet not JSON. */
const FRAMED = `{"apiVersion":"management.platform/v1","kind":"VirtualClusterInstance","metadata":{"name":"x"},"spec":{"m":"${SECRET_MARK}",,}}`;
const VCI = `${GROUP_PATH}/namespaces/p-proj/virtualclusterinstances`;

type Res = Awaited<ReturnType<TestServer["request"]>>;

function assertCorrupt(res: Res, what: string): void {
  assert.equal(res.status, 500, res.text);
  assert.equal(res.json.reason, "InternalError", res.text);
  assert.match(res.json.message, /StorageError: corrupt object/);
  assert.ok(res.json.message.includes(what), res.text);
  assert.ok(!res.text.includes(SECRET_MARK), "the stored bytes are never sent");
}

describe("unsafe deletion of corrupt objects (SQLite, damaged in the file)", () => {
  let server: TestServer;
  const key: Record<string, string> = {};

  before(async () => {
    const first = await startTestServer();
    const create = async (path: string, body: Record<string, unknown>) => {
      const r = await first.request("POST", `${GROUP_PATH}/${path}`, { body });
      assert.equal(r.status, 201, `${path}: ${r.text}`);
      return r.json;
    };
    // member: a plain member of project proj, so it may delete the instances in p-proj (but not unsafely).
    for (const [name, spec] of [
      ["member", {}],
      ["viewer", { clusterRoles: [{ name: "platform-management-view" }] }],
    ] as const) {
      await create("users", { metadata: { name }, spec: { username: name, ...spec } });
      key[name] = (
        await create("ownedaccesskeys", { metadata: { name: `${name}-key` }, spec: { user: name } })
      ).spec.key;
    }
    await create("projects", { metadata: { name: "proj" }, spec: { members: [{ kind: "User", name: "member" }] } });
    for (const name of ["bad-team", "bad-team-2", "good-team", "kubectl-team"])
      await create("teams", { metadata: { name }, spec: {} });
    for (const name of ["bad-vc", "bad-vc-2", "good-vc"])
      await create("namespaces/p-proj/virtualclusterinstances", { metadata: { name }, spec: {} });
    const dataDir = first.dataDir;
    await first.stop({ keepData: true });

    damageStoredValues(dataDir, [
      ["teams/bad-team", TRUNCATED],
      ["teams/bad-team-2", '["not", "an", "object"]'],
      ["teams/kubectl-team", TRUNCATED],
      ["virtualclusterinstances/p-proj/bad-vc", TRUNCATED],
      ["virtualclusterinstances/p-proj/bad-vc-2", FRAMED],
    ]);
    server = await startTestServer({ dataDir });
  });
  after(() => server.stop());

  it("GET answers 500 corrupt object, naming it, on the fast path and the normal one", async () => {
    assertCorrupt(await server.request("GET", `${GROUP_PATH}/teams/bad-team`), 'teams.management.platform "bad-team"');
    const yaml = await server.request("GET", `${GROUP_PATH}/teams/bad-team-2`, {
      headers: { accept: "application/yaml" },
    });
    assert.equal(yaml.status, 500, yaml.text);
    assert.match(yaml.text, /corrupt object/);
    // A writing verb reads it first and says the same.
    const patch = await server.request("PATCH", `${GROUP_PATH}/teams/bad-team`, {
      body: { metadata: { labels: { a: "b" } } },
      contentType: "application/merge-patch+json",
    });
    assertCorrupt(patch, '"bad-team"');
  });

  it("LIST answers 500 StorageReadError naming every damaged key, never their bytes", async () => {
    for (const query of ["", "?labelSelector=a%21%3Db", "?limit=1"]) {
      const res = await server.request("GET", `${GROUP_PATH}/teams${query}`);
      assert.equal(res.status, 500, res.text);
      assert.equal(res.json.reason, "StorageReadError", res.text);
      assert.equal(res.json.message, "failed to read one or more teams.management.platform from the storage");
      assert.ok(!res.text.includes(SECRET_MARK));
      if (query === "?limit=1") continue; // the page ends at the first damaged key
      assert.deepEqual(
        res.json.details.causes.map((c: { field: string }) => c.field),
        [
          "/registry/management.platform/teams/bad-team",
          "/registry/management.platform/teams/bad-team-2",
          "/registry/management.platform/teams/kubectl-team",
        ],
      );
    }
    // A caller whose list is filtered to what it may see is not told which keys: they name objects.
    const filtered = await server.request("GET", `${GROUP_PATH}/teams`, { token: key.member });
    assert.equal(filtered.json.reason, "StorageReadError", filtered.text);
    assert.equal(filtered.json.details.causes, undefined, filtered.text);
    // The Table path (kubectl get) decodes too.
    const table = await server.request("GET", `${GROUP_PATH}/teams`, {
      headers: { accept: "application/json;as=Table;v=v1;g=meta.k8s.io" },
    });
    assert.equal(table.json.reason, "StorageReadError", table.text);
  });

  it("DELETE without the option answers 500 corrupt object and removes nothing", async () => {
    assertCorrupt(await server.request("DELETE", `${GROUP_PATH}/teams/bad-team`), '"bad-team"');
    assertCorrupt(await server.request("DELETE", `${VCI}/bad-vc`, { token: key.member }), '"bad-vc"');
    assert.equal((await server.request("GET", `${GROUP_PATH}/teams/bad-team`)).status, 500);
  });

  it("refuses the option with 403 to a caller without the verb, before looking at the object", async () => {
    const body = { apiVersion: "v1", kind: "DeleteOptions", [OPTION]: true };
    // The member may delete the instance, but not unsafely.
    const member = await server.request("DELETE", `${VCI}/bad-vc`, { token: key.member, body });
    assert.equal(member.status, 403, member.text);
    assert.equal(member.json.reason, "Forbidden");
    assert.ok(member.json.message.includes(`cannot ${VERB} resource "virtualclusterinstances"`), member.text);
    // Healthy or not, unknown or not: the same refusal.
    for (const name of ["good-vc", "no-such-vc"]) {
      const res = await server.request("DELETE", `${VCI}/${name}`, { token: key.member, body });
      assert.equal(res.status, 403, res.text);
    }
    // The viewer may not even delete.
    const viewer = await server.request("DELETE", `${GROUP_PATH}/teams/bad-team`, { token: key.viewer, body });
    assert.equal(viewer.status, 403, viewer.text);
    assert.ok(viewer.json.message.includes('cannot delete resource "teams"'), viewer.text);
    // (A value framed as an object passes the GET fast path's check: a decoding list tells.)
    const still = await server.request("GET", `${VCI}?labelSelector=a%21%3Db`);
    assert.equal(still.json.details.causes.length, 2, still.text);
  });

  it("asks the authorizer with the verb: SelfSubjectAccessReview agrees", async () => {
    const review = async (token: string) => {
      const res = await server.request("POST", `${API_PREFIX}/apis/authorization.k8s.io/v1/selfsubjectaccessreviews`, {
        token,
        body: {
          spec: {
            resourceAttributes: {
              group: "management.platform",
              resource: "virtualclusterinstances",
              namespace: "p-proj",
              name: "bad-vc",
              verb: VERB,
            },
          },
        },
      });
      assert.equal(res.status, 201, res.text);
      return res.json.status.allowed;
    };
    assert.equal(await review(server.adminKey), true);
    assert.equal(await review(key.member), false);
    // kubectl auth can-i --list: the viewer's rules on the damaged kind (asked object by object,
    // as it may write none of them) are incomplete, not a 500.
    const rules = await server.request("POST", `${API_PREFIX}/apis/authorization.k8s.io/v1/selfsubjectrulesreviews`, {
      token: key.viewer,
      body: { spec: { namespace: "p-proj" } },
    });
    assert.equal(rules.status, 201, rules.text);
    assert.equal(rules.json.status.incomplete, true, rules.text);
  });

  it("refuses the option with other options and on a collection (422)", async () => {
    for (const [body, query, field] of [
      [{ [OPTION]: true, gracePeriodSeconds: 0 }, "", "gracePeriodSeconds"],
      [{ [OPTION]: true, propagationPolicy: "Foreground" }, "", "propagationPolicy"],
      [{ [OPTION]: true, preconditions: { uid: "x" } }, "", "preconditions"],
      [{ [OPTION]: true }, "?dryRun=All", "dryRun"],
      [undefined, `?${OPTION}=true&orphanDependents=false`, "orphanDependents"],
    ] as const) {
      const res = await server.request("DELETE", `${GROUP_PATH}/teams/bad-team${query}`, { body });
      assert.equal(res.status, 422, res.text);
      assert.equal(res.json.reason, "Invalid");
      assert.ok(res.json.message.includes(`${OPTION}: Invalid value: true: cannot be set together with .${field}`));
    }
    const wrongType = await server.request("DELETE", `${GROUP_PATH}/teams/bad-team`, { body: { [OPTION]: "yes" } });
    assert.equal(wrongType.status, 400, wrongType.text);
    // kube-apiserver's DeleteCollection answer, in the body or the query alike.
    for (const [query, body] of [
      ["", { [OPTION]: true }],
      [`?${OPTION}=true`, undefined],
    ] as const) {
      const collection = await server.request("DELETE", `${GROUP_PATH}/teams${query}`, { body });
      assert.equal(collection.status, 422, collection.text);
      assert.equal(collection.json.reason, "Invalid");
      assert.equal(
        collection.json.message,
        `DeleteOptions.meta.k8s.io "" is invalid: ${OPTION}: Invalid value: true: is not allowed with DELETECOLLECTION, try again after removing the option`,
      );
      assert.deepEqual(collection.json.details.causes, [
        {
          reason: "FieldValueInvalid",
          message: "Invalid value: true: is not allowed with DELETECOLLECTION, try again after removing the option",
          field: OPTION,
        },
      ]);
    }
    assert.equal((await server.request("GET", `${GROUP_PATH}/teams/good-team`)).status, 200, "nothing deleted");
    assert.equal((await server.request("GET", `${GROUP_PATH}/teams/bad-team`)).status, 500, "still there");
  });

  it("on a readable object the option is refused (422) and nothing is deleted, as kube does", async () => {
    const res = await server.request("DELETE", `${GROUP_PATH}/teams/good-team`, { body: { [OPTION]: true } });
    assert.equal(res.status, 422, res.text);
    assert.equal(
      res.json.message,
      `teams.management.platform "good-team" is invalid: ${OPTION}: Invalid value: true: is exclusively used to delete corrupt object(s), try again by removing this option`,
    );
    assert.equal((await server.request("GET", `${GROUP_PATH}/teams/good-team`)).status, 200);
    const missing = await server.request("DELETE", `${GROUP_PATH}/teams/no-such-team?${OPTION}=true`);
    assert.equal(missing.status, 404, missing.text);
  });

  it("the admin removes a corrupt object with it; watchers of everything see it DELETED, filtering ones relist", async () => {
    const list = await server.request("GET", `${VCI}?labelSelector=`);
    // The namespace holds damaged instances: the list is refused; watch from the current revision.
    assert.equal(list.json.reason, "StorageReadError", list.text);
    const rv = (await server.request("GET", `${GROUP_PATH}/users`)).json.metadata.resourceVersion as string;
    // Bounded by the server: a watch that never sees its event ends after 20 s and fails the test.
    const watch = (query: string) =>
      new WatchClient(server, `${VCI}?watch=true&timeoutSeconds=20&resourceVersion=${rv}${query}`, server.adminKey);
    const plain = watch("");
    const selecting = watch("&labelSelector=a%21%3Db");

    const res = await server.request("DELETE", `${VCI}/bad-vc`, { body: { kind: "DeleteOptions", [OPTION]: true } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json, {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Success",
      details: { name: "bad-vc", kind: "VirtualClusterInstance" },
      code: 200,
    });
    assert.equal((await server.request("GET", `${VCI}/bad-vc`)).status, 404);

    await plain.until((events) => events.some((e) => e.type === "DELETED"));
    plain.close();
    assert.ok(!JSON.stringify(plain.events).includes(SECRET_MARK), "the damaged bytes are not in the event");
    assert.deepEqual(
      plain.events.map((e) => e.type),
      ["DELETED"],
    );
    const deleted = plain.events[0]!.object;
    assert.equal(deleted.kind, "VirtualClusterInstance");
    assert.equal(deleted.apiVersion, "management.platform/v1");
    assert.deepEqual(Object.keys(deleted.metadata).sort(), ["name", "namespace", "resourceVersion"]);
    assert.equal(deleted.metadata.name, "bad-vc");
    assert.equal(deleted.metadata.namespace, "p-proj");
    assert.ok(Number(deleted.metadata.resourceVersion) > Number(rv));
    await selecting.until((events) => events.some((e) => e.type === "ERROR"));
    selecting.close();
    assert.equal((selecting.events.at(-1)!.object as unknown as { code: number }).code, 500);
    assert.ok(!JSON.stringify(selecting.events).includes(SECRET_MARK));
  });

  it("through kubectl 1.32: get reports it, auth can-i knows the verb, delete --raw removes it", async () => {
    // kubectl 1.32 has no flag for the option; `delete --raw` sends the DELETE with the query parameter.
    const kubectl = (args: string[], token = server.adminKey) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(
          KUBECTL,
          ["--kubeconfig", server.kubeconfig(token), ...args],
          { env: { PATH: process.env.PATH, HOME: server.dataDir }, timeout: 20_000 },
          (err, stdout, stderr) => resolve({ code: err ? 1 : 0, stdout: String(stdout), stderr: String(stderr) }),
        );
      });
    const get = await kubectl(["get", "teams.management.platform", "kubectl-team"]);
    assert.equal(get.code, 1);
    assert.match(get.stderr, /Error from server \(InternalError\): .*corrupt object/);
    assert.ok(!get.stderr.includes(SECRET_MARK));
    assert.equal((await kubectl(["auth", "can-i", VERB, "teams.management.platform"])).stdout.trim(), "yes");
    const memberCan = await kubectl(["auth", "can-i", VERB, "teams.management.platform"], key.member);
    assert.equal(memberCan.stdout.trim(), "no");
    // --raw is a path on the host: the API prefix comes with it.
    const raw = `${GROUP_PATH}/teams/kubectl-team?${OPTION}=true`;
    const refused = await kubectl(["delete", "--raw", raw], key.member);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /Forbidden/);
    const removed = await kubectl(["delete", "--raw", raw]);
    assert.equal(removed.code, 0, removed.stderr);
    assert.equal(JSON.parse(removed.stdout).status, "Success");
    const gone = await kubectl(["get", "teams.management.platform", "kubectl-team"]);
    assert.match(gone.stderr, /NotFound/);
  });

  it("the query parameter form works too, and the lists come back once the damage is gone", async () => {
    for (const path of [`${VCI}/bad-vc-2`, `${GROUP_PATH}/teams/bad-team`, `${GROUP_PATH}/teams/bad-team-2`]) {
      const res = await server.request("DELETE", `${path}?${OPTION}=true`);
      assert.equal(res.status, 200, `${path}: ${res.text}`);
    }
    const teams = await server.request("GET", `${GROUP_PATH}/teams`);
    assert.equal(teams.status, 200, teams.text);
    assert.deepEqual(
      teams.json.items.map((t: { metadata: { name: string } }) => t.metadata.name),
      ["good-team"],
    );
    const vcs = await server.request("GET", VCI);
    assert.equal(vcs.status, 200, vcs.text);
    assert.deepEqual(
      vcs.json.items.map((t: { metadata: { name: string } }) => t.metadata.name),
      ["good-vc"],
    );
  });
});

describe("unsafe deletion of corrupt objects (etcd, damaged while the server runs)", () => {
  const suite = suiteServer("etcd");

  it("GET and LIST report it, DELETE refuses it, the option with the admin role removes it", async () => {
    const { server, etcd } = suite;
    for (const name of ["etcd-bad", "etcd-good"]) {
      const r = await server.request("POST", `${GROUP_PATH}/teams`, { body: { metadata: { name }, spec: {} } });
      assert.equal(r.status, 201, r.text);
    }
    const b64 = (s: string) => Buffer.from(s).toString("base64");
    await etcd.post(0, "/v3/kv/put", {
      key: b64("/registry/management.platform/teams/etcd-bad"),
      value: b64(TRUNCATED),
    });
    // The server learns of the put through its watch of etcd: bounded wait for the GET to say so.
    const got = await waitFor(
      "the GET to answer the corrupt object",
      () => server.request("GET", `${GROUP_PATH}/teams/etcd-bad`),
      (res) => res.status === 500,
    );
    assertCorrupt(got, 'teams.management.platform "etcd-bad"');
    const list = await server.request("GET", `${GROUP_PATH}/teams`);
    assert.equal(list.json.reason, "StorageReadError", list.text);
    assertCorrupt(await server.request("DELETE", `${GROUP_PATH}/teams/etcd-bad`), '"etcd-bad"');

    const res = await server.request("DELETE", `${GROUP_PATH}/teams/etcd-bad`, { body: { [OPTION]: true } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.status, "Success");
    assert.equal((await server.request("GET", `${GROUP_PATH}/teams/etcd-bad`)).status, 404);
    const range = (await etcd.post(0, "/v3/kv/range", {
      key: b64("/registry/management.platform/teams/etcd-bad"),
    })) as { kvs?: unknown[] };
    assert.equal(range.kvs?.length ?? 0, 0, "gone from etcd");
    const again = await server.request("GET", `${GROUP_PATH}/teams`);
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(
      again.json.items.map((t: { metadata: { name: string } }) => t.metadata.name),
      ["etcd-good"],
    );
  });
});
