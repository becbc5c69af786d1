import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { API_PREFIX } from "../api/object.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";

/**
 * Debian's ruby-kubeclient (4.9), whose watches use kube-apiserver's deprecated `/watch/`
 * paths: `…/v1/watch/teams`, `…/v1/watch/teams/{name}` (a watch of that object alone) and
 * `…/v1/watch/namespaces/{ns}/sharedsecrets`. The script lives in src/e2e/testdata (tsc copies
 * no .rb to dist).
 */
const SCRIPT = fileURLToPath(new URL("../../src/e2e/testdata/ruby_kubeclient.rb", import.meta.url));

function runRuby(env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile("/usr/bin/ruby", [SCRIPT], { env: { ...process.env, ...env }, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe("ruby-kubeclient", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());

  it("watches through the /watch/ paths: a collection, one object, a namespace", async () => {
    const from = (await server.request("GET", `${GROUP_PATH}/teams`)).json.metadata.resourceVersion;
    for (const name of ["ruby-a", "ruby-b"]) {
      const res = await server.request("POST", `${GROUP_PATH}/teams`, { body: { metadata: { name }, spec: {} } });
      assert.equal(res.status, 201, res.text);
    }
    const secret = await server.request("POST", `${GROUP_PATH}/namespaces/platform/sharedsecrets`, {
      body: { metadata: { name: "ruby-s" }, spec: {} },
    });
    assert.equal(secret.status, 201, secret.text);
    const labelled = await server.request("PATCH", `${GROUP_PATH}/teams/ruby-b`, {
      body: { metadata: { labels: { seen: "yes" } } },
      contentType: "application/merge-patch+json",
    });
    assert.equal(labelled.status, 200, labelled.text);

    const ca = join(server.dataDir, "ruby-ca.pem");
    writeFileSync(ca, server.caPem ?? "");
    const { code, stdout, stderr } = await runRuby({
      PLATFORM_URL: `${server.url}${API_PREFIX}`,
      PLATFORM_TOKEN: server.adminKey,
      PLATFORM_CA: ca,
      PLATFORM_FROM: String(from),
    });
    assert.equal(code, 0, `ruby said:\n${stdout}\n${stderr}`);
    const watches = Object.fromEntries(
      stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { watch: string; events: string[] })
        .map((w) => [w.watch, w.events]),
    );
    assert.deepEqual(watches, {
      teams: ["ADDED ruby-a", "ADDED ruby-b", "MODIFIED ruby-b"],
      "teams/ruby-b": ["ADDED ruby-b", "MODIFIED ruby-b"],
      "namespaces/platform/sharedsecrets": ["ADDED ruby-s"],
    });
  });

  it("a /watch/ path serves GET only, and no subresource", async () => {
    const post = await server.request("POST", `${GROUP_PATH}/watch/teams`, { body: { metadata: { name: "x" } } });
    assert.equal(post.status, 405, post.text);
    const status = await server.request("GET", `${GROUP_PATH}/watch/projects/p/status`);
    assert.equal(status.status, 404, status.text);
  });

  it("a caller refused the watch gets 403, and learns nothing", async () => {
    const user = await server.request("POST", `${GROUP_PATH}/users`, { body: { metadata: { name: "nobody" } } });
    assert.equal(user.status, 201, user.text);
    const key = await server.request("POST", `${GROUP_PATH}/ownedaccesskeys`, {
      body: { metadata: { name: "nobody-key" }, spec: { user: "nobody" } },
    });
    const res = await server.request("GET", `${GROUP_PATH}/watch/teams/ruby-a`, { token: key.json.spec.key });
    assert.equal(res.status, 403, res.text);
    assert.match(res.json.message, /cannot watch resource "teams"/);
  });
});
