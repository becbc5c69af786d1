import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";
import { waitFor } from "../testing/wait-for.js";
import { WatchClient } from "../testing/watch-client.js";
import { parseAuditPolicy } from "./audit-policy.js";
import { RotatingFile } from "./rotating-file.js";

const G = GROUP_PATH;
const POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: []
rules:
  - level: None
    verbs: ["list"]
    resources: [{ group: management.platform, resources: ["users"] }]
  - level: Request
    resources: [{ group: management.platform, resources: ["teams"] }]
  - level: RequestResponse
    resources: [{ group: management.platform, resources: ["sharedsecrets", "projectsecrets", "ownedaccesskeys", "users/accesskeys"] }]
  - level: Metadata
`;

interface AuditEvent {
  kind: string;
  apiVersion: string;
  level: string;
  auditID: string;
  stage: string;
  verb: string;
  requestURI: string;
  user: { username?: string };
  objectRef?: { resource: string; name?: string; namespace?: string };
  responseStatus?: { code: number };
  requestObject?: { metadata?: { name?: string } };
  responseObject?: unknown;
}

describe("audit log", () => {
  let s: TestServer;
  let dir: string;
  let logFile: string;
  const events = (): AuditEvent[] =>
    readFileSync(logFile, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as AuditEvent);

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "platform-audit-"));
    logFile = join(dir, "audit.log");
    writeFileSync(join(dir, "policy.yaml"), POLICY);
    s = await startTestServer({ auditLog: logFile, auditPolicyFile: join(dir, "policy.yaml") });
  });
  after(async () => {
    await s?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("writes audit.k8s.io/v1 Events with the stages and levels of the policy", async () => {
    const r = await s.request("POST", `${G}/teams`, {
      body: { metadata: { name: "audited" }, spec: {} },
      headers: { "x-request-id": "req-audit-1" },
    });
    assert.equal(r.status, 201);
    assert.equal(r.headers["x-request-id"], "req-audit-1");
    assert.equal((await s.request("GET", `${G}/users`)).status, 200);
    await s.close(); // flushes the log
    const mine = events().filter((e) => e.auditID === "req-audit-1");
    assert.deepEqual(
      mine.map((e) => e.stage),
      ["RequestReceived", "ResponseComplete"],
    );
    for (const e of mine) {
      assert.equal(e.kind, "Event");
      assert.equal(e.apiVersion, "audit.k8s.io/v1");
      assert.equal(e.level, "Request");
      assert.equal(e.verb, "create");
      assert.equal(e.user.username, "admin");
      assert.equal(e.objectRef?.resource, "teams");
      assert.equal(e.requestObject?.metadata?.name, "audited");
    }
    assert.equal(mine[1]?.responseStatus?.code, 201);
    assert.ok(!events().some((e) => e.objectRef?.resource === "users" && e.verb === "list"), "level None");
  });

  it("never logs the bodies of secret-bearing kinds, whatever the policy", async () => {
    s = await startTestServer({ auditLog: logFile, auditPolicyFile: join(dir, "policy.yaml") });
    const secretValue = Buffer.from("very-secret-audit-value").toString("base64");
    const secret = await s.request("POST", `${G}/namespaces/platform/sharedsecrets`, {
      body: { metadata: { name: "audit-s" }, spec: { data: { k: secretValue } } },
    });
    assert.equal(secret.status, 201, secret.text);
    assert.equal((await s.request("GET", `${G}/namespaces/platform/sharedsecrets/audit-s`)).status, 200);
    const projectValue = Buffer.from("very-secret-project-value").toString("base64");
    assert.equal(
      (await s.request("POST", `${G}/projects`, { body: { metadata: { name: "aud" }, spec: {} } })).status,
      201,
    );
    const projectSecret = await s.request("POST", `${G}/namespaces/p-aud/projectsecrets`, {
      body: { metadata: { name: "audit-ps" }, spec: { data: { k: projectValue } } },
    });
    assert.equal(projectSecret.status, 201, projectSecret.text);
    assert.equal((await s.request("GET", `${G}/namespaces/p-aud/projectsecrets/audit-ps`)).status, 200);
    assert.equal(
      (await s.request("POST", `${G}/users`, { body: { metadata: { name: "kim" }, spec: {} } })).status,
      201,
    );
    const key = await s.request("POST", `${G}/ownedaccesskeys`, {
      body: { metadata: { name: "kim" }, spec: { user: "kim" } },
    });
    assert.equal(key.status, 201);
    const keyValue = key.json.spec.key as string;
    assert.ok(keyValue);
    await s.close();
    const text = readFileSync(logFile, "utf8");
    assert.ok(!text.includes(secretValue), "secret data");
    assert.ok(!text.includes("very-secret-audit-value"));
    assert.ok(!text.includes(projectValue), "project secret data");
    assert.ok(!text.includes("very-secret-project-value"));
    assert.ok(
      events().filter((e) => e.objectRef?.resource === "projectsecrets").length >= 4,
      "project secrets audited",
    );
    assert.ok(!text.includes(keyValue), "access key");
    const secretEvents = events().filter((e) => e.objectRef?.resource === "sharedsecrets");
    assert.ok(secretEvents.length >= 4);
    for (const e of secretEvents) {
      assert.equal(e.requestObject, undefined);
      assert.equal(e.responseObject, undefined);
    }
  });

  it("names who signed in to the console, in every stage of the sign-in", async () => {
    s = await startTestServer({ auditLog: logFile });
    const admin = await s.request("GET", `${G}/teams`);
    assert.equal(admin.status, 200);
    const signIn = await s.request("POST", "/console/api/session", { token: null, body: { accessKey: s.adminKey } });
    assert.equal(signIn.status, 201, signIn.text);
    const refused = await s.request("POST", "/console/api/session", { token: null, body: { accessKey: "not-a-key" } });
    assert.equal(refused.status, 401);
    await s.close();
    const adminName = events().find((e) => e.requestURI === `${G}/teams` && e.verb === "list")?.user.username;
    assert.ok(adminName && adminName !== "system:anonymous", `the admin's name: ${adminName}`);
    const sessions = events().filter((e) => e.requestURI === "/console/api/session");
    const stages = (code: number) =>
      sessions
        .filter((e) => e.stage === "RequestReceived" || e.responseStatus?.code === code)
        .map((e) => `${e.stage} ${e.user.username}`);
    assert.ok(stages(201).includes(`RequestReceived ${adminName}`), JSON.stringify(sessions));
    assert.ok(stages(201).includes(`ResponseComplete ${adminName}`), JSON.stringify(sessions));
    const failed = sessions.filter((e) => e.responseStatus?.code === 401);
    assert.equal(failed.length, 1, JSON.stringify(sessions));
    assert.notEqual(failed[0]!.user.username, adminName, "a refused sign-in is nobody's");
  });

  it("audits the paths anyone may read as their caller: a key's user, system:anonymous without one; a bad key is 401", async () => {
    s = await startTestServer({ auditLog: logFile });
    const paths = [
      "/version",
      "/kubernetes/management/version",
      "/healthz",
      "/readyz/ping",
      "/livez",
      "/.well-known/jwks.json",
    ];
    const callers = { key: s.adminKey, none: null, bad: "not-a-valid-access-key" } as const;
    const answers: string[] = [];
    let adminName: string | undefined;
    try {
      for (const path of paths) {
        for (const [caller, token] of Object.entries(callers)) {
          const res = await s.request("GET", path, { token, headers: { "user-agent": `public-paths-${caller}` } });
          answers.push(
            `${path} ${caller} ${res.status}${res.status === 200 ? "" : ` ${res.json?.kind} ${res.json?.reason}`}`,
          );
        }
      }
      adminName = (
        await s.request("POST", "/kubernetes/management/apis/authentication.k8s.io/v1/selfsubjectreviews", {
          body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" },
        })
      ).json?.status?.userInfo?.username;
    } finally {
      await s.close();
    }
    assert.deepEqual(
      answers,
      paths.flatMap((p) => [`${p} key 200`, `${p} none 200`, `${p} bad 401 Status Unauthorized`]),
    );
    const audited = (caller: string) =>
      events().filter(
        (e) => (e as { userAgent?: string }).userAgent === `public-paths-${caller}` && e.stage !== "RequestReceived",
      );
    const lines = (caller: string) =>
      audited(caller).map((e) => `${e.requestURI} ${e.responseStatus?.code} ${e.user.username}`);
    assert.ok(adminName, "the admin's user name");
    assert.deepEqual(
      lines("key"),
      paths.map((p) => `${p} 200 ${adminName}`),
    );
    assert.deepEqual(
      lines("none"),
      paths.map((p) => `${p} 200 system:anonymous`),
    );
    for (const e of audited("none"))
      assert.deepEqual(e.user, { username: "system:anonymous", groups: ["system:unauthenticated"] });
    assert.deepEqual(
      audited("bad").map((e) => `${e.requestURI} ${e.responseStatus?.code} ${e.stage} ${JSON.stringify(e.user)}`),
      paths.map((p) => `${p} 401 ResponseStarted {}`),
    );
  });

  it("logs a request refused at authentication as kube-apiserver does: no user, one ResponseStarted event saying what was tried", async () => {
    s = await startTestServer({ auditLog: logFile });
    const tries = [
      { agent: "refused-bearer", path: `${G}/teams`, method: "GET", token: "not-a-valid-access-key", body: undefined },
      { agent: "refused-none", path: `${G}/teams`, method: "GET", token: null, body: undefined },
      {
        agent: "refused-sign-in",
        path: "/console/api/session",
        method: "POST",
        token: null,
        body: { accessKey: "not-a-key" },
      },
    ];
    try {
      for (const t of tries) {
        const res = await s.request(t.method, t.path, {
          token: t.token,
          body: t.body,
          headers: { "user-agent": t.agent },
        });
        assert.equal(res.status, 401, res.text);
      }
    } finally {
      await s.close();
    }
    const of = (agent: string) => events().filter((e) => (e as { userAgent?: string }).userAgent === agent);
    const expected = {
      "refused-bearer": "Authentication failed, attempted: bearer",
      "refused-none": "Authentication failed, no credentials provided",
      "refused-sign-in": "Authentication failed, attempted: console sign-in",
    };
    for (const [agent, message] of Object.entries(expected)) {
      const mine = of(agent);
      assert.equal(mine.length, 1, JSON.stringify(mine));
      const e = mine[0]!;
      assert.equal(e.stage, "ResponseStarted");
      assert.deepEqual(e.user, {});
      assert.deepEqual(e.responseStatus, { metadata: {}, message, code: 401 });
    }
    const list = of("refused-bearer")[0]!;
    assert.equal(list.verb, "list");
    assert.equal(list.objectRef?.resource, "teams");
    assert.ok(!readFileSync(logFile, "utf8").includes("not-a-valid-access-key"), "the key is never logged");
  });

  it("writes ResponseStarted when a watch starts streaming", async () => {
    s = await startTestServer({ auditLog: logFile });
    const w = new WatchClient(s, `${G}/teams?watch=true`, s.adminKey);
    await w.until(() => true);
    const watchAt = (stage: string) =>
      waitFor(
        `the watch's ${stage} line`,
        async () => events(),
        (logged) => logged.some((e) => e.verb === "watch" && e.stage === stage),
      );
    await watchAt("ResponseStarted");
    w.close();
    // The server sees the client go: ResponseComplete (a watch never "finishes", it closes).
    await watchAt("ResponseComplete");
    await s.close();
    const watch = events().filter((e) => e.verb === "watch");
    assert.ok(watch.some((e) => e.stage === "ResponseStarted" && e.level === "Metadata"));
    assert.ok(watch.some((e) => e.stage === "ResponseComplete"));
  });

  it("refuses a malformed policy with where the mistake is", () => {
    assert.throws(
      () => parseAuditPolicy({ kind: "Policy", apiVersion: "audit.k8s.io/v1", rules: [{ level: "All" }] }),
      /rules\[0\]\.level/,
    );
    assert.throws(() => parseAuditPolicy({ kind: "Policy", apiVersion: "v1", rules: [] }), /apiVersion/);
  });
});

describe("rotating file", () => {
  it("rotates by size and keeps maxBackups files", async () => {
    const dir = mkdtempSync(join(tmpdir(), "platform-rotate-"));
    try {
      const path = join(dir, "a.log");
      const f = new RotatingFile(path, { maxBytes: 100, maxBackups: 2 });
      for (let i = 0; i < 20; i++) f.write(`${String(i).padStart(2, "0")} ${"x".repeat(36)}\n`); // 40 bytes each
      await f.close();
      await new Promise((r) => setTimeout(r, 50));
      assert.ok(existsSync(`${path}.1`) && existsSync(`${path}.2`));
      assert.ok(!existsSync(`${path}.3`));
      for (const p of [path, `${path}.1`, `${path}.2`]) assert.ok(readFileSync(p).length <= 100);
      assert.ok(readFileSync(path, "utf8").includes("19 "));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
