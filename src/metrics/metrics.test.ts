import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";
import { waitFor } from "../testing/wait-for.js";
import { WatchClient } from "../testing/watch-client.js";
import { startMetricsListener } from "./metrics-endpoint.js";

const G = GROUP_PATH;

/** The value of one sample (`name{labels} value`) whose labels include all of `labels`; 0 when absent. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) total += Number(line.split(" ").pop());
  }
  return total;
}

describe("metrics", () => {
  let s: TestServer;
  let viewerKey: string;
  let aliceKey: string;
  const scrape = async (token?: string) => {
    const r = await s.request("GET", "/metrics", { token, headers: { accept: "text/plain" } });
    assert.equal(r.status, 200, r.text);
    return r.text;
  };

  before(async () => {
    s = await startTestServer();
    for (const [name, spec] of [
      ["viewer", { clusterRoles: [{ name: "platform-management-view" }] }],
      ["alice", {}],
    ] as const) {
      assert.equal((await s.request("POST", `${G}/users`, { body: { metadata: { name }, spec } })).status, 201);
    }
    const key = async (user: string) => {
      const r = await s.request("POST", `${G}/ownedaccesskeys`, { body: { metadata: { name: user }, spec: { user } } });
      assert.equal(r.status, 201, r.text);
      return r.json.spec.key as string;
    };
    viewerKey = await key("viewer");
    aliceKey = await key("alice");
  });
  after(() => s?.stop());

  it("counts requests of both paths, with kube-apiserver's labels", async () => {
    const before = await scrape();
    const team = { metadata: { name: "counted" }, spec: {} };
    assert.equal((await s.request("POST", `${G}/teams`, { body: team })).status, 201);
    // Twice: the second GET is answered by the fast path (the key is in the identity cache).
    for (let i = 0; i < 2; i++) assert.equal((await s.request("GET", `${G}/teams/counted`)).status, 200);
    assert.equal((await s.request("GET", `${G}/teams/missing`)).status, 404);
    assert.equal((await s.request("GET", `${G}/teams`)).status, 200);
    const after = await scrape();
    const delta = (labels: Record<string, string>) =>
      sample(after, "apiserver_request_total", labels) - sample(before, "apiserver_request_total", labels);
    const teams = { group: "management.platform", version: "v1", resource: "teams", component: "apiserver" };
    assert.equal(delta({ ...teams, verb: "POST", scope: "cluster", code: "201" }), 1);
    assert.equal(delta({ ...teams, verb: "GET", scope: "resource", code: "200" }), 2);
    assert.equal(delta({ ...teams, verb: "GET", scope: "resource", code: "404" }), 1);
    assert.equal(delta({ ...teams, verb: "LIST", scope: "cluster", code: "200" }), 1);
    const count = (t: string) =>
      sample(t, "apiserver_request_duration_seconds_count", { ...teams, verb: "GET", scope: "resource" });
    assert.equal(count(after) - count(before), 3);
    assert.ok(sample(after, "authentication_attempts", { result: "success" }) > 0);
    assert.ok(sample(after, "apiserver_storage_objects", { resource: "teams.management.platform" }) >= 1);
    assert.ok(sample(after, "platform_sqlite_request_duration_seconds_count", { operation: "create" }) > 0);
    assert.ok(sample(after, "platform_sqlite_wal_fsync_duration_seconds_count") > 0);
    assert.equal(sample(after, "platform_storage_available"), 1);
    assert.ok(sample(after, "process_resident_memory_bytes") > 0);
  });

  it("labels no series after a resource nobody serves", async () => {
    assert.equal((await s.request("GET", `${G}/made-up-resource-x1/abc`)).status, 404);
    assert.equal((await s.request("GET", `${G}/teams/counted/made-Up-SUB`)).status, 404);
    const text = await scrape();
    assert.ok(!text.includes("made-up-resource-x1"));
    assert.ok(!text.includes("made-Up-SUB"));
  });

  it("counts failed authentications", async () => {
    const before = sample(await scrape(), "authentication_attempts", { result: "failure" });
    assert.equal((await s.request("GET", `${G}/teams`, { token: "not-a-key" })).status, 401);
    assert.equal(sample(await scrape(), "authentication_attempts", { result: "failure" }), before + 1);
  });

  it("counts watchers and watch events", async () => {
    const labels = { group: "management.platform", version: "v1", kind: "Team" };
    const w = new WatchClient(s, `${G}/teams?watch=true`, s.adminKey);
    await w.until((events) => events.some((e) => e.object.metadata?.name === "counted"));
    const open = await scrape();
    assert.ok(sample(open, "apiserver_registered_watchers", labels) >= 1);
    assert.ok(sample(open, "apiserver_watch_events_total", labels) >= 1);
    assert.ok(sample(open, "apiserver_longrunning_requests", { verb: "WATCH", resource: "teams" }) >= 1);
    w.close();
    // The client went away: both gauges come back down (a dropped watch never "finishes").
    const settled = (t: string) =>
      sample(t, "apiserver_registered_watchers", labels) === 0 &&
      sample(t, "apiserver_longrunning_requests", { verb: "WATCH", resource: "teams" }) === 0;
    await waitFor("the watch gauges back down", () => scrape(), settled);
    const closed = await scrape();
    assert.equal(sample(closed, "apiserver_registered_watchers", labels), 0);
    assert.equal(sample(closed, "apiserver_longrunning_requests", { verb: "WATCH", resource: "teams" }), 0);
    assert.equal(sample(closed, "apiserver_request_total", { verb: "WATCH", resource: "teams" }), 1);
  });

  it("serves /metrics to admins and the view role only", async () => {
    assert.ok((await scrape(viewerKey)).includes("apiserver_request_total"));
    const denied = await s.request("GET", "/metrics", { token: aliceKey });
    assert.equal(denied.status, 403);
    assert.equal(denied.json.kind, "Status");
    assert.equal(denied.json.message, 'forbidden: User "alice" cannot get path "/metrics"');
    assert.ok(!denied.text.includes("apiserver_request_total"));
    assert.equal((await s.request("GET", "/metrics", { token: null })).status, 401);
  });

  it("serves GET /metrics alone on the plain-HTTP listener", async () => {
    const listener = await startMetricsListener("127.0.0.1", 0);
    try {
      const address = listener.address();
      const port = typeof address === "object" && address ? address.port : 0;
      const ok = await fetch(`http://127.0.0.1:${port}/metrics`);
      assert.equal(ok.status, 200);
      assert.ok((await ok.text()).includes("apiserver_request_total"));
      assert.equal((await fetch(`http://127.0.0.1:${port}/kubernetes/management/version`)).status, 404);
    } finally {
      await new Promise((r) => listener.close(r));
    }
  });
});
