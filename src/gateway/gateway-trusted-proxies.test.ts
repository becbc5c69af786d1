import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { request as httpsRequest } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { FakeClusterApiServer } from "../testing/fake-cluster-apiserver.js";
import { accessKey, connectCluster, postObject } from "../testing/gateway-fixture.js";
import { startTestServer, type TestServer } from "../testing/test-server.js";

/**
 * The cluster gateway behind `--trusted-proxies`: its audit lines give the client's address from a
 * trusted proxy's X-Forwarded-For, and the peer's own when the peer is not a trusted proxy.
 * 127.0.0.10 plays the load balancer; any 127.x address reaches a server on 127.0.0.1.
 *
 * The audit lines are under test, not the cluster: a stand-in (testing/fake-cluster-apiserver.ts)
 * answers in the real wire format without a control plane's start and memory. Forwarding to a
 * real cluster: gateway-real-cluster.test.ts.
 */
const PROXY = "127.0.0.10";
const DIRECT = "127.0.0.20";
const POD = "/kubernetes/cluster/c1/api/v1/namespaces/default/pods/web-1";

describe("cluster gateway behind trusted proxies", () => {
  let server: TestServer;
  let cluster: FakeClusterApiServer;
  let key: string;
  const auditFile = join(mkdtempSync(join(tmpdir(), "gw-proxies-")), "audit.log");

  before(async () => {
    [cluster, server] = await Promise.all([
      FakeClusterApiServer.start(),
      startTestServer({ auditLog: auditFile, trustedProxies: [`${PROXY}/32`], allowLocalEndpoints: true }),
    ]);
    cluster.add("pods", "default", "web-1");
    await postObject(server, "users", { metadata: { name: "alice" }, spec: {} });
    await connectCluster(server, "c1", cluster, { access: [{ verbs: ["use"], users: ["alice"] }] });
    key = await accessKey(server, "alice");
  });
  after(async () => {
    await server.stop();
    await cluster.stop();
  });

  const getFrom = (from: string, query: string, forwardedFor: string) =>
    new Promise<number>((resolve, reject) => {
      const headers = { authorization: `Bearer ${key}`, "x-forwarded-for": forwardedFor };
      const req = httpsRequest(
        new URL(`${POD}?${query}`, server.url),
        { ca: server.caPem, localAddress: from, headers, agent: false },
        (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode ?? 0));
        },
      );
      req.on("error", reject);
      req.end();
    });

  /** The gateway's audit lines, once there are `count` of them (they are written asynchronously). */
  const gatewayLines = async (count: number) => {
    for (let i = 0; ; i++) {
      const lines = readFileSync(auditFile, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((l) => l.gateway === "cluster/c1");
      if (lines.length >= count || i === 500) return lines;
      await new Promise((r) => setTimeout(r, 10));
    }
  };

  it("audits the client behind a trusted proxy, and the peer itself when it is not one", async () => {
    assert.equal(await getFrom(PROXY, "a=1", "1.1.1.1, 203.0.113.40"), 200);
    assert.equal(await getFrom(DIRECT, "a=2", "203.0.113.41"), 200);
    const lines = await gatewayLines(2);
    assert.deepEqual(
      lines.map((l) => l.sourceAddress),
      ["203.0.113.40", DIRECT],
    );
  });
});
