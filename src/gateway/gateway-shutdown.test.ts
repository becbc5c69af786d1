import assert from "node:assert/strict";
import { request } from "node:https";
import { after, before, describe, it } from "node:test";
import { FakeClusterApiServer } from "../testing/fake-cluster-apiserver.js";
import { accessKey, connectCluster, postObject } from "../testing/gateway-fixture.js";
import { startTestServer, type TestServer } from "../testing/test-server.js";

/**
 * A stopping server ends the forwarded watches at once (their clients reconnect elsewhere) and
 * lets a plain forwarded request in flight finish (docs/deployment.md, "Stopping a server").
 *
 * A stand-in cluster (testing/fake-cluster-apiserver.ts): a request is in flight at the gateway
 * only while the cluster holds its answer back, which a real kube-apiserver does not do on cue.
 */
describe("cluster gateway while the server stops", () => {
  let server: TestServer;
  let cluster: FakeClusterApiServer;
  let key: string;
  const PODS = "/kubernetes/cluster/c1/api/v1/namespaces/default/pods";

  before(async () => {
    [cluster, server] = await Promise.all([
      FakeClusterApiServer.start(),
      startTestServer({ allowLocalEndpoints: true }),
    ]);
    cluster.add("pods", "default", "web-1");
    await postObject(server, "users", { metadata: { name: "alice" }, spec: {} });
    await connectCluster(server, "c1", cluster, { access: [{ verbs: ["use"], users: ["alice"] }] });
    key = await accessKey(server, "alice");
  });
  after(() => cluster.stop());

  /** A request through the gateway: `responded` once its headers came, `ended` with how it ended. */
  const send = (path: string) => {
    let responded!: (status: number) => void;
    const headers = new Promise<number>((r) => {
      responded = r;
    });
    const ended = new Promise<string>((resolve) => {
      const req = request(
        new URL(path, server.url),
        { agent: false, ca: server.caPem, headers: { authorization: `Bearer ${key}` } },
        (res) => {
          responded(res.statusCode ?? 0);
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (c: string) => {
            text += c;
          });
          res.on("end", () => resolve(`${res.statusCode} ${text}`));
          res.on("error", (e: NodeJS.ErrnoException) => resolve(`error ${e.code ?? e.message}`));
        },
      );
      req.on("error", (e: NodeJS.ErrnoException) => resolve(`error ${e.code ?? e.message}`));
      req.end();
    });
    return { headers, ended };
  };

  it("ends a forwarded watch and lets a forwarded GET in flight finish", async () => {
    const watch = send(`${PODS}?watch=true`);
    assert.equal(await watch.headers, 200);
    // The cluster now answers slowly: the GET is in flight at the gateway when the server stops.
    cluster.delayMs = 500;
    const get = send(`${PODS}/web-1`);
    for (let i = 0; server.gateway.openExchanges < 2; i++) {
      assert.ok(i < 1000, "the GET never reached the gateway");
      await new Promise((r) => setTimeout(r, 5));
    }
    const stopped = server.stop();
    const watchEnd = await watch.ended;
    assert.ok(watchEnd.startsWith("error") || watchEnd.startsWith("200"), watchEnd);
    const got = await get.ended;
    assert.match(got, /^200 /, got);
    assert.equal(JSON.parse(got.slice(4)).metadata.name, "web-1");
    await stopped;
  });
});
