import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { describeRequest } from "../api/request-description.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";

/** Shared secrets are never audited; everything else with its bodies. */
const POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
  - level: None
    resources: [{ group: management.platform, resources: ["sharedsecrets"] }]
  - level: RequestResponse
`;

/**
 * A path whose resource is percent-encoded (`shared%73ecrets`) is served as the resource it
 * decodes to, so the audit log must read it so too: the policy's rules naming the resource,
 * and the guard that never logs the bodies of secret-bearing kinds, apply to it.
 */
describe("audit of percent-encoded paths", () => {
  let server: TestServer;
  let dir: string;
  let logFile: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "platform-audit-paths-"));
    logFile = join(dir, "audit.log");
    writeFileSync(join(dir, "policy.yaml"), POLICY);
    server = await startTestServer({ auditLog: logFile, auditPolicyFile: join(dir, "policy.yaml") });
  });
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("describes the decoded resource, namespace and name", () => {
    const d = describeRequest("GET", `${GROUP_PATH}/namespaces/pl%61tform/shared%73ecrets/a%2Db?x=1`);
    assert.deepEqual(
      [d.resourceRequest, d.resource, d.namespace, d.name, d.verb],
      [true, "sharedsecrets", "platform", "a-b", "get"],
    );
    // A segment that does not decode is described as it came (the router refuses it with 400).
    assert.equal(describeRequest("GET", `${GROUP_PATH}/shared%ZZsecrets`).resource, "shared%ZZsecrets");
    assert.equal(describeRequest("GET", "/v%65rsion").resource, "/version");
  });

  it("applies the policy and the secret-body guard to the resource the path decodes to", async () => {
    const value = Buffer.from("encoded-path-secret-value").toString("base64");
    const encoded = `${GROUP_PATH}/namespaces/platform/shared%73ecrets`;
    const created = await server.request("POST", encoded, {
      body: { metadata: { name: "encoded-s" }, spec: { data: { k: value } } },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.kind, "SharedSecret", "served as the shared secrets");
    assert.equal((await server.request("GET", `${encoded}/encoded-s`)).status, 200);
    // A request the policy logs, to know the log is written up to here.
    assert.equal((await server.request("GET", `${GROUP_PATH}/teams`)).status, 200);
    const lines = () => readFileSync(logFile, "utf8");
    for (let i = 0; !lines().includes(`"requestURI":"${GROUP_PATH}/teams"`); i++) {
      assert.ok(i < 500, "the audit log was not written");
      await new Promise((r) => setTimeout(r, 10));
    }
    const text = lines();
    assert.ok(!text.includes(value), "the secret's data is not in the audit log");
    assert.ok(!text.includes("shared%73ecrets"), "the policy's None for sharedsecrets applied to the encoded path");
  });
});
