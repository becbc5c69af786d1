import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { API_PREFIX } from "../api/object.js";
import { testKindList } from "../testing/kinds/index.js";
import { GROUP_PATH, startTestServer, type TestServer, userWithKey } from "../testing/test-server.js";

const G = GROUP_PATH;
const TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io";
const SECRET = "gizmo-secret-value-for-the-audit-check";
/** Every body logged, where the kind allows it: what stays out of the log is the kind's declaration. */
const POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: []
rules:
  - level: RequestResponse
`;

/**
 * A kind declared only in its folder (src/testing/kinds/gizmo/: access rules, a secret field,
 * a console column) and added to the registration list, nothing else: the authorizer honours
 * its access rules, escalation checks them, its Table and the console show its column, the
 * console learns its secret field, and the audit log keeps none of its bodies.
 */
describe("a kind added to the registration list, declared in its folder alone", () => {
  let s: TestServer;
  let dir: string;
  let alice: string;
  let bob: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "platform-declared-kind-"));
    writeFileSync(join(dir, "policy.yaml"), POLICY);
    s = await startTestServer({
      kinds: testKindList,
      auditLog: join(dir, "audit.log"),
      auditPolicyFile: join(dir, "policy.yaml"),
    });
    alice = await userWithKey(s, "alice");
    bob = await userWithKey(s, "bob");
    const created = await s.request("POST", `${G}/gizmos`, {
      body: {
        metadata: { name: "g1" },
        spec: { color: "teal", secret: SECRET, access: [{ verbs: ["get", "update", "use"], users: ["alice"] }] },
      },
    });
    assert.equal(created.status, 201, created.text);
  });
  after(async () => {
    await s?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("is authorized by its access rules: the verbs they grant to whom they name, nothing else", async () => {
    assert.equal((await s.request("GET", `${G}/gizmos/g1`, { token: alice })).status, 200);
    assert.equal((await s.request("GET", `${G}/gizmos/g1`, { token: bob })).status, 403);
    assert.equal((await s.request("DELETE", `${G}/gizmos/g1`, { token: alice })).status, 403);
    const names = async (token: string) =>
      (await s.request("GET", `${G}/gizmos`, { token })).json.items.map(
        (o: { metadata: { name: string } }) => o.metadata.name,
      );
    assert.deepEqual(
      (await names(alice)).filter((n: string) => n !== "g2"),
      ["g1"],
    );
    assert.deepEqual(await names(bob), []);
  });

  it("tells the caller what its access rules grant (kubectl auth can-i --list), `use` included", async () => {
    const review = await s.request("POST", `${API_PREFIX}/apis/authorization.k8s.io/v1/selfsubjectrulesreviews`, {
      token: alice,
      body: { spec: { namespace: "default" } },
    });
    assert.equal(review.status, 201, review.text);
    const onG1 = review.json.status.resourceRules.filter(
      (r: { resources: string[]; resourceNames?: string[] }) =>
        r.resources.includes("gizmos") && r.resourceNames?.includes("g1"),
    );
    assert.deepEqual(onG1.flatMap((r: { verbs: string[] }) => r.verbs).sort(), ["get", "update", "use"], review.text);
  });

  it("lets an access rule's update through, but not a wider rule (no escalation)", async () => {
    const got = (await s.request("GET", `${G}/gizmos/g1`, { token: alice })).json;
    const widen = structuredClone(got);
    widen.spec.access = [...widen.spec.access, { verbs: ["delete"], users: ["alice"] }];
    const refused = await s.request("PUT", `${G}/gizmos/g1`, { token: alice, body: widen });
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.json.kind, "Status");
    got.spec.color = "amber";
    const put = await s.request("PUT", `${G}/gizmos/g1`, { token: alice, body: got });
    assert.equal(put.status, 200, put.text);
  });

  it("is listed with its columns", async () => {
    const violet = await s.request("POST", `${G}/gizmos`, {
      body: { metadata: { name: "g2" }, spec: { color: "violet" } },
    });
    assert.equal(violet.status, 201, violet.text);
    const table = await s.request("GET", `${G}/gizmos/g2`, { headers: { accept: TABLE } });
    assert.equal(table.status, 200, table.text);
    const names = table.json.columnDefinitions.map((c: { name: string }) => c.name);
    assert.deepEqual(names, ["Name", "Display Name", "Color", "Age"]);
    assert.equal(table.json.rows[0].cells[names.indexOf("Color")], "violet");
  });

  it("is in the console's kinds, with its columns, access rules and secret field", async () => {
    const answer = await s.request("GET", "/console/api/kinds", { token: alice });
    assert.equal(answer.status, 200, answer.text);
    const gizmo = answer.json.kinds.find((k: { plural: string }) => k.plural === "gizmos");
    assert.deepEqual(
      { ...gizmo, fields: gizmo.fields.map((f: { path: string }) => f.path) },
      {
        plural: "gizmos",
        kind: "Gizmo",
        namespaced: false,
        title: "Gizmos",
        access: true,
        fields: ["spec.displayName", "spec.description", "spec.color"],
        columns: ["Color"],
        secretFields: ["spec.secret"],
      },
    );
    const teams = answer.json.kinds.find((k: { plural: string }) => k.plural === "teams");
    assert.deepEqual(teams.secretFields, [], "a kind without secret fields declares none");
  });

  it("refuses the console's kinds to a caller without credentials", async () => {
    const refused = await s.request("GET", "/console/api/kinds", { token: null });
    assert.equal(refused.status, 401, refused.text);
    assert.equal(refused.json.kind, "Status");
  });

  it("keeps its bodies out of the audit log, while another kind's are logged", async () => {
    const team = await s.request("POST", `${G}/teams`, { body: { metadata: { name: "logged-team" }, spec: {} } });
    assert.equal(team.status, 201, team.text);
    await s.close(); // flushes the log
    const text = readFileSync(join(dir, "audit.log"), "utf8");
    const events = text
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    assert.ok(
      events.some((e) => e.objectRef?.resource === "teams" && e.requestObject?.metadata?.name === "logged-team"),
      "the policy logs bodies",
    );
    const gizmoEvents = events.filter((e) => e.objectRef?.resource === "gizmos");
    assert.ok(gizmoEvents.length > 0);
    for (const e of gizmoEvents) assert.equal(e.requestObject ?? e.responseObject, undefined, e.requestURI);
    assert.ok(!text.includes(SECRET), "the secret field's value");
  });
});

/**
 * A project's instance declared in its folder alone (src/testing/kinds/doodad/,
 * `projectInstance`): the project must exist and allow its cluster and owns it, its members
 * manage it, and naming a cluster needs `use` on it, as for virtual clusters and spaces.
 */
describe("a project's instance added to the registration list, declared in its folder alone", () => {
  let s: TestServer;
  let carol: string;
  let dave: string;
  const doodads = (project: string) => `${G}/namespaces/p-${project}/doodads`;

  before(async () => {
    s = await startTestServer({ kinds: testKindList });
    carol = await userWithKey(s, "carol");
    dave = await userWithKey(s, "dave");
    const project = await s.request("POST", `${G}/projects`, {
      body: {
        metadata: { name: "web" },
        spec: { members: [{ kind: "User", name: "carol" }], allowedClusters: [{ name: "prod" }] },
      },
    });
    assert.equal(project.status, 201, project.text);
  });
  after(() => s?.stop());

  it("is managed by the project's members, and owned by the project", async () => {
    const created = await s.request("POST", doodads("web"), { token: carol, body: { metadata: { name: "d1" } } });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(
      created.json.metadata.ownerReferences.map((r: { kind: string; name: string }) => `${r.kind}/${r.name}`),
      ["Project/web"],
    );
    assert.equal((await s.request("DELETE", `${doodads("web")}/d1`, { token: carol })).status, 200);
  });

  it("refuses who is not a member", async () => {
    const refused = await s.request("POST", doodads("web"), { token: dave, body: { metadata: { name: "d2" } } });
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.json.kind, "Status");
  });

  it("needs its project, a cluster the project allows, and `use` on that cluster", async () => {
    const noProject = await s.request("POST", doodads("missing"), { body: { metadata: { name: "d3" } } });
    assert.equal(noProject.status, 404, noProject.text);
    const other = await s.request("POST", doodads("web"), {
      body: { metadata: { name: "d4" }, spec: { clusterRef: { cluster: "other" } } },
    });
    assert.equal(other.status, 422, other.text);
    assert.match(other.text, /not in the allowedClusters of project/);
    const withoutUse = await s.request("POST", doodads("web"), {
      token: carol,
      body: { metadata: { name: "d5" }, spec: { clusterRef: { cluster: "prod" } } },
    });
    assert.equal(withoutUse.status, 403, withoutUse.text);
    assert.match(withoutUse.text, /use/);
  });
});
