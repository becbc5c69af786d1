import assert from "node:assert/strict";
import { request } from "node:https";
import { after, before, describe, it } from "node:test";
import { FakeClusterApiServer } from "../testing/fake-cluster-apiserver.js";
import { connectCluster, postObject } from "../testing/gateway-fixture.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";
import { waitFor } from "../testing/wait-for.js";

/**
 * The gateway answers a key it knows, on a cluster whose upstream is built, from memory (no
 * audit log here, so that path serves every request after the first): each change to who may
 * use the cluster, who the caller is, or where the cluster is, holds from the very next request.
 *
 * Stand-in clusters (testing/fake-cluster-apiserver.ts): the assertions are which of two
 * servers each request reached and with which credentials, which only a stand-in records. What
 * a real cluster's RBAC makes of forwarded requests: gateway-real-cluster.test.ts.
 */
describe("cluster gateway: requests answered from memory", () => {
  let server: TestServer;
  let first: FakeClusterApiServer;
  let second: FakeClusterApiServer;
  const POD = "/kubernetes/cluster/c1/api/v1/namespaces/default/pods/web-1";

  const get = (token: string) => server.request("GET", POD, { token });
  const patch = async (path: string, body: unknown) => {
    const res = await server.request("PATCH", `${GROUP_PATH}/${path}`, {
      body,
      contentType: "application/merge-patch+json",
    });
    assert.equal(res.status, 200, res.text);
  };
  /** A new key of `user`, with the name of its OwnedAccessKey. */
  const newKey = async (user: string) => {
    const created = await postObject(server, "ownedaccesskeys", {
      metadata: { generateName: `${user}-` },
      spec: { user },
    });
    return { key: created.spec.key as string, name: created.metadata.name as string };
  };
  /**
   * GETs until the key is served from memory: the first authenticates the key and builds the
   * upstream; it also records the key's activity, a change that makes the next one authenticate
   * again; after that, GETs are answered from memory.
   */
  const warm = async (key: { key: string; name: string }) => {
    assert.equal((await get(key.key)).status, 200);
    await waitFor(
      `${key.name}'s activity recorded`,
      () => server.request("GET", `${GROUP_PATH}/ownedaccesskeys/${key.name}`),
      (res) => Boolean(res.json.status?.lastActivity),
    );
    for (let i = 0; i < 2; i++) assert.equal((await get(key.key)).status, 200);
  };

  before(async () => {
    [first, second, server] = await Promise.all([
      FakeClusterApiServer.start(),
      FakeClusterApiServer.start(),
      startTestServer({ allowLocalEndpoints: true }),
    ]);
    for (const c of [first, second]) c.add("pods", "default", "web-1");
    await postObject(server, "users", { metadata: { name: "alice" }, spec: { groups: ["qa"] } });
    await postObject(server, "users", { metadata: { name: "carol" }, spec: {} });
    await connectCluster(server, "c1", first, { access: [{ verbs: ["use"], users: ["alice", "carol"] }] });
  });
  after(async () => {
    await server.stop();
    await Promise.all([first.stop(), second.stop()]);
  });

  it("a `use` rule taken away refuses the next request", async () => {
    const { key, name } = await newKey("carol");
    await warm({ key, name });
    await patch("clusters/c1", { spec: { access: [{ verbs: ["use"], users: ["alice"] }] } });
    const res = await get(key);
    assert.equal(res.status, 403, res.text);
    assert.match(res.json.message, /User "carol" cannot use resource "clusters"/);
  });

  it("a disabled key is refused on the next request", async () => {
    const { key, name } = await newKey("alice");
    await warm({ key, name });
    await patch(`ownedaccesskeys/${name}`, { spec: { disabled: true } });
    assert.equal((await get(key)).status, 401);
  });

  it("a user's new group and team are impersonated from the next request on", async () => {
    const { key, name } = await newKey("alice");
    await warm({ key, name });
    const last = () => first.seen.filter((s) => s.path.endsWith("/pods/web-1")).at(-1)!;
    assert.deepEqual([...last().impersonateGroups].sort(), ["qa"]);
    await patch("users/alice", { spec: { groups: ["qa", "ops"] } });
    assert.equal((await get(key)).status, 200);
    assert.deepEqual([...last().impersonateGroups].sort(), ["ops", "qa"]);
    await postObject(server, "teams", { metadata: { name: "devs" }, spec: { users: ["alice"] } });
    assert.equal((await get(key)).status, 200);
    assert.deepEqual([...last().impersonateGroups].sort(), ["ops", "platform:team:devs", "qa"]);
  });

  it("a cluster whose kubeconfig now names another API server: the next request goes there", async () => {
    const { key, name } = await newKey("alice");
    await warm({ key, name });
    // The cluster health check talks to them too: only the pod GETs count.
    const gets = (c: FakeClusterApiServer) => c.seen.filter((s) => s.path.endsWith("/pods/web-1")).length;
    const before = { first: gets(first), second: gets(second) };
    const config = Buffer.from(second.kubeconfig()).toString("base64");
    await patch("namespaces/platform/sharedsecrets/c1-kubeconfig", { spec: { data: { config } } });
    assert.equal((await get(key)).status, 200);
    assert.equal(gets(first), before.first, "nothing went to the API server the cluster no longer names");
    assert.equal(gets(second), before.second + 1);
  });

  it("forwards the caller's header lines as they came, without hop-by-hop headers, credentials or identity claims", async () => {
    const { key, name } = await newKey("alice");
    await warm({ key, name });
    const status = await new Promise<number>((resolve, reject) => {
      const r = request({ host: "127.0.0.1", port: new URL(server.url).port, path: POD, ca: server.caPem }, (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      });
      r.on("error", reject);
      r.setHeader("Authorization", `Bearer ${key}`);
      r.setHeader("X-Offer", ["one", "two"]);
      r.setHeader("Connection", "keep-alive, X-Hop");
      r.setHeader("X-Hop", "for the gateway only");
      r.setHeader("Cookie", "session=1");
      r.setHeader("Proxy-Authorization", "Basic eDp5");
      r.setHeader("Impersonate-Extra-Scopes", "admin");
      // A front proxy's identity headers, which an API server trusting the gateway's client
      // certificate as a front proxy would take as who is calling.
      r.setHeader("X-Remote-User", "system:admin");
      r.setHeader("X-Remote-Group", "system:masters");
      r.setHeader("X-Remote-Extra-Scopes", "all");
      r.end();
    });
    assert.equal(status, 200);
    // The cluster may have been repointed at the second stand-in by an earlier test.
    const seen = [...first.seen, ...second.seen].find((s) => s.rawHeaders.some((h) => h.toLowerCase() === "x-offer"));
    assert.ok(seen, "the request reached a stand-in with its X-Offer lines");
    const lines = (n: string) =>
      seen.rawHeaders.filter((_, i) => i % 2 === 1 && seen.rawHeaders[i - 1]!.toLowerCase() === n);
    assert.deepEqual(lines("x-offer"), ["one", "two"], "a header sent on two lines arrives on two lines");
    for (const dropped of [
      "x-hop",
      "cookie",
      "proxy-authorization",
      "impersonate-extra-scopes",
      "x-remote-user",
      "x-remote-group",
      "x-remote-extra-scopes",
    ]) {
      assert.deepEqual(lines(dropped), [], `${dropped} is not forwarded`);
    }
    assert.equal(lines("authorization").length, 1);
    assert.ok([first.token, second.token].map((t) => `Bearer ${t}`).includes(lines("authorization")[0]!));
    assert.deepEqual(lines("impersonate-user"), ["alice"]);
  });
});
