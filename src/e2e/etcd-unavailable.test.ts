/**
 * While etcd is unreachable every verb answers 503 ServiceUnavailable with Retry-After (never a
 * 500), /readyz reports not-ready naming the etcd check, and both recover when etcd is back.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { suiteServer } from "../testing/suite-server.js";
import { GROUP_PATH, type TestResponse, type TestServer } from "../testing/test-server.js";

const POLL_MS = 100;
const MAX_POLLS = 300;

const suite = suiteServer("etcd");

const team = (name: string) => ({
  apiVersion: "management.platform/v1",
  kind: "Team",
  metadata: { name },
  spec: { displayName: name },
});

function assertUnavailable(what: string, res: TestResponse): void {
  assert.equal(res.status, 503, `${what}: ${res.status} ${res.text}`);
  assert.equal(res.json?.kind, "Status", `${what}: ${res.text}`);
  assert.equal(res.json.reason, "ServiceUnavailable");
  assert.equal(res.json.code, 503);
  assert.match(String(res.headers["retry-after"]), /^\d+$/, `${what}: no Retry-After`);
}

/** Polls until `ok` holds (bounded); etcd and the cache notice a dead or revived member in their own time. */
async function eventually(what: string, ok: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < MAX_POLLS; i++) {
    if (await ok()) return;
    await sleep(POLL_MS);
  }
  assert.fail(`${what} never happened`);
}

test("etcd down: every verb answers 503 with Retry-After, /readyz is not ready; both recover", {
  timeout: 120_000,
}, async () => {
  const { server, etcd } = suite;
  const teams = `${GROUP_PATH}/teams`;
  const before = await server.request("POST", teams, { body: team("before") });
  assert.equal(before.status, 201, before.text);
  const ready = await server.request("GET", "/readyz?verbose", { token: null });
  assert.equal(ready.status, 200, ready.text);
  assert.match(ready.text, /^\[\+\]ping ok$/m);
  assert.match(ready.text, /^\[\+\]etcd ok$/m);
  assert.match(ready.text, /readyz check passed/);

  await etcd.kill(0);
  await eventually(
    "/readyz failing",
    async () => (await server.request("GET", "/readyz", { token: null })).status === 500,
  );
  const verbose = await server.request("GET", "/readyz?verbose", { token: null });
  assert.equal(verbose.status, 500);
  assert.match(verbose.text, /^\[\+\]ping ok$/m);
  assert.match(verbose.text, /^\[-\]etcd failed: reason withheld$/m);
  assert.match(verbose.text, /readyz check failed/);
  // The one check alone says what failed, never the store's own error (its addresses).
  const one = await server.request("GET", "/readyz/etcd", { token: null });
  assert.deepEqual([one.status, one.text], [500, "internal server error: etcd did not answer\n"]);
  assert.equal((await server.request("GET", "/livez", { token: null })).status, 200);

  const patch = { body: { spec: { displayName: "x" } }, contentType: "application/merge-patch+json" };
  const calls: [string, string, string, Parameters<TestServer["request"]>[2]?][] = [
    ["get", "GET", `${teams}/before`],
    ["list", "GET", teams],
    ["list with selector", "GET", `${teams}?labelSelector=a%3Db`],
    ["create", "POST", teams, { body: team("during") }],
    ["update", "PUT", `${teams}/before`, { body: before.json }],
    ["merge patch", "PATCH", `${teams}/before`, patch],
    ["delete", "DELETE", `${teams}/before`],
    ["delete collection", "DELETE", teams],
    [
      "json patch",
      "PATCH",
      `${teams}/before`,
      { raw: '[{"op":"add","path":"/spec/displayName","value":"y"}]', contentType: "application/json-patch+json" },
    ],
    [
      "apply",
      "PATCH",
      `${teams}/before?fieldManager=t`,
      { body: team("before"), contentType: "application/apply-patch+yaml" },
    ],
    ["another kind", "GET", `${GROUP_PATH}/users`],
    ["watch", "GET", `${teams}?watch=true&timeoutSeconds=2`],
    ["namespaced list", "GET", `${GROUP_PATH}/namespaces/p-x/sharedsecrets`],
  ];
  for (const [what, method, path, options] of calls) {
    assertUnavailable(what, await server.request(method, path, options));
  }

  await etcd.restart(0);
  await eventually(
    "/readyz ready again",
    async () => (await server.request("GET", "/readyz", { token: null })).status === 200,
  );
  await eventually("GET works again", async () => (await server.request("GET", `${teams}/before`)).status === 200);
  const created = await server.request("POST", teams, { body: team("after") });
  assert.equal(created.status, 201, created.text);
});
