import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { accessKey, postObject } from "../testing/gateway-fixture.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";
import { waitFor } from "../testing/wait-for.js";

const G = GROUP_PATH;
/** Request level for Teams: the events keep the request's body too, which a fast create reads itself. */
const POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
  - level: Request
    resources: [{ group: management.platform, resources: ["teams"] }]
  - level: Metadata
`;

type AuditEvent = Record<string, unknown> & { auditID: string; stage: string };

/** The value of the sample `name{…label="value"…} N`; 0 when absent. */
function sample(text: string, name: string, label: string, value: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${name}{`) && l.includes(`${label}="${value}"`));
  return line === undefined ? 0 : Number(line.split(" ").pop());
}

/**
 * With an audit log, the fast branches still answer (platform_fast_path_requests_total counts
 * them), and the events of a request they answered are those of the same request fastify routes.
 * An Accept of YAML sends a request down fastify's path without changing anything the audit
 * event records.
 */
describe("audit log and the fast branches", () => {
  let s: TestServer;
  let dir: string;
  let logFile: string;
  // ResponseComplete is written once the answer is out, which may be just after the client read it.
  const eventsOf = (id: string): Promise<AuditEvent[]> =>
    waitFor(
      `the ResponseComplete event of ${id}`,
      async () =>
        readFileSync(logFile, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l) as AuditEvent)
          .filter((e) => e.auditID === id),
      (mine) => mine.some((e) => e.stage === "ResponseComplete"),
    );
  /** What may differ between two requests: their id and timestamps, and the name `name` stands for. */
  const comparable = (events: AuditEvent[], name: string) =>
    events.map((e) => {
      const { auditID: _id, requestReceivedTimestamp: _r, stageTimestamp: _s, ...rest } = e;
      return JSON.parse(JSON.stringify(rest).replaceAll(name, "NAME"));
    });
  const fastPathCount = async (path: "get" | "create") => {
    const r = await s.request("GET", "/metrics", { headers: { accept: "text/plain" } });
    assert.equal(r.status, 200, r.text);
    return sample(r.text, "platform_fast_path_requests_total", "path", path);
  };
  const team = (name: string) => ({
    apiVersion: "management.platform/v1",
    kind: "Team",
    metadata: { name },
    spec: { description: "audited" },
  });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "platform-audit-fast-"));
    logFile = join(dir, "audit.log");
    writeFileSync(join(dir, "policy.yaml"), POLICY);
    s = await startTestServer({ auditLog: logFile, auditPolicyFile: join(dir, "policy.yaml") });
    // The admin key's first use: from now on the identity cache knows it.
    assert.equal((await s.request("GET", `${G}/teams`)).status, 200);
  });
  after(async () => {
    await s?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers a create on the fast branch with the events the routed create writes", async () => {
    const before = await fastPathCount("create");
    const fast = await s.request("POST", `${G}/teams`, {
      body: team("fast-audited"),
      headers: { "x-request-id": "fast-create" },
    });
    assert.equal(fast.status, 201, fast.text);
    assert.equal(await fastPathCount("create"), before + 1, "the fast branch answered the create");
    const routed = await s.request("POST", `${G}/teams`, {
      body: team("routed-audited"),
      headers: { "x-request-id": "routed-create", accept: "application/yaml" },
    });
    assert.equal(routed.status, 201, routed.text);
    assert.equal(await fastPathCount("create"), before + 1, "fastify routed the YAML one");
    const fastEvents = await eventsOf("fast-create");
    assert.deepEqual(
      fastEvents.map((e) => e.stage),
      ["RequestReceived", "ResponseComplete"],
    );
    assert.equal((fastEvents[0]!.requestObject as { metadata: { name: string } }).metadata.name, "fast-audited");
    assert.deepEqual(
      comparable(fastEvents, "fast-audited"),
      comparable(await eventsOf("routed-create"), "routed-audited"),
    );
  });

  it("answers a GET on the fast branch with the events the routed GET writes", async () => {
    const before = await fastPathCount("get");
    const fast = await s.request("GET", `${G}/teams/fast-audited`, { headers: { "x-request-id": "fast-get" } });
    assert.equal(fast.status, 200, fast.text);
    assert.equal(await fastPathCount("get"), before + 1, "the fast branch answered the GET");
    const routed = await s.request("GET", `${G}/teams/fast-audited`, {
      headers: { "x-request-id": "routed-get", accept: "application/yaml" },
    });
    assert.equal(routed.status, 200, routed.text);
    assert.equal(await fastPathCount("get"), before + 1, "fastify routed the YAML one");
    const fastEvents = await eventsOf("fast-get");
    assert.deepEqual(
      fastEvents.map((e) => e.stage),
      ["RequestReceived", "ResponseComplete"],
    );
    assert.deepEqual(comparable(fastEvents, "fast-get"), comparable(await eventsOf("routed-get"), "routed-get"));
  });

  it("writes one RequestReceived for a request a fast branch identified and then left to fastify", async () => {
    await postObject(s, "users", { metadata: { name: "dora" }, spec: {} });
    const token = await accessKey(s, "dora");
    // Twice: the second time the identity cache knows the key, and the branch asks the authorizer.
    for (const id of ["denied-get-1", "denied-get-2"]) {
      const denied = await s.request("GET", `${G}/teams/fast-audited`, { token, headers: { "x-request-id": id } });
      assert.equal(denied.status, 403, denied.text);
    }
    const events = await eventsOf("denied-get-2");
    assert.deepEqual(
      events.map((e) => [e.stage, (e.responseStatus as { code: number } | undefined)?.code]),
      [
        ["RequestReceived", undefined],
        ["ResponseComplete", 403],
      ],
    );
  });
});
