import assert from "node:assert/strict";
import { Agent, request } from "node:https";
import { after, before, describe, it } from "node:test";
import { FakeClusterApiServer } from "../testing/fake-cluster-apiserver.js";
import { connectCluster } from "../testing/gateway-fixture.js";
import { startTestServer, type TestServer } from "../testing/test-server.js";

/**
 * The gateway under load and failure: slow clusters, many watches. Stand-in clusters
 * (testing/fake-cluster-apiserver.ts): a cluster slow on cue, open watches counted and requests
 * seen are what a real kube-apiserver does not offer.
 */
describe("cluster gateway faults", () => {
  let server: TestServer;
  let slow: FakeClusterApiServer;
  let fast: FakeClusterApiServer;

  before(async () => {
    [slow, fast, server] = await Promise.all([
      FakeClusterApiServer.start(),
      FakeClusterApiServer.start(),
      startTestServer({ allowLocalEndpoints: true }),
    ]);
    await connectCluster(server, "slow", slow);
    await connectCluster(server, "fast", fast);
    fast.add("pods", "default", "p");
  });
  after(async () => {
    await server.stop();
    await Promise.all([slow.stop(), fast.stop()]);
  });

  it("a cluster whose certificate the kubeconfig's CA does not verify gives 503 TLSVerificationFailed", async () => {
    const b64 = (pem: string) => Buffer.from(pem).toString("base64");
    // slow's address, fast's CA.
    const wrongCa = slow.kubeconfig().replace(b64(slow.ca.certPem), b64(fast.ca.certPem));
    await connectCluster(server, "wrong-ca", { kubeconfig: () => wrongCa });
    // Only the pods path counts: the health controller's checks of "slow" itself (/version, a
    // list of services) may land at any moment after it was connected.
    const pods = () => slow.seen.filter((s) => s.path.startsWith("/api/v1/namespaces/default/pods")).length;
    const before = pods();
    const res = await server.request("GET", "/kubernetes/cluster/wrong-ca/api/v1/namespaces/default/pods");
    assert.equal(res.status, 503, res.text);
    assert.equal(res.json.kind, "Status");
    assert.match(res.json.message, /^cluster "wrong-ca" cannot be used \(TLSVerificationFailed\)/);
    assert.equal(pods(), before, "no request was sent over the unverified connection");
  });

  it("a slow cluster does not hold up another cluster's requests", async () => {
    slow.delayMs = 4000;
    let slowDone = 0;
    const pending = Array.from({ length: 20 }, () =>
      server.request("GET", "/kubernetes/cluster/slow/version").then((r) => {
        slowDone++;
        return r;
      }),
    );
    for (let i = 0; i < 5; i++) {
      const res = await server.request("GET", "/kubernetes/cluster/fast/api/v1/namespaces/default/pods/p");
      assert.equal(res.status, 200, res.text);
    }
    assert.equal(slowDone, 0, "every fast request was answered while the slow ones were still waiting");
    for (const r of await Promise.all(pending)) assert.equal(r.status, 200);
    slow.delayMs = 0;
  });

  it("1,000 concurrent watches: each gets its event, and closing them leaves nothing open", async () => {
    const N = Number(process.env.GW_N ?? 1000);
    const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY, ca: server.caPem });
    const heapBefore = process.memoryUsage().heapUsed;
    const received = new Array<string>(N).fill("");
    const errors: string[] = [];
    const open = (i: number) => {
      const req = request(
        `${server.url}/kubernetes/cluster/fast/api/v1/namespaces/default/pods?watch=true`,
        { agent, headers: { authorization: `Bearer ${server.adminKey}` } },
        (res) => {
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => {
            received[i] += chunk;
          });
          res.on("error", () => {});
        },
      );
      req.on("error", (err) => {
        if (!closing) errors.push(err.message);
      });
      req.end();
      return req;
    };
    let closing = false;
    // Opened a hundred at a time (TLS handshakes on a shared machine), held open all together.
    const requests: ReturnType<typeof request>[] = [];
    for (let i = 0; i < N; i++) {
      requests.push(open(i));
      if ((i + 1) % 100 === 0 || i === N - 1) {
        await waitFor(
          () => fast.openWatches === i + 1 || errors.length > 0,
          180_000,
          () => `${fast.openWatches} upstream, ${server.gateway.openExchanges} in the gateway`,
        );
        assert.deepEqual(errors, []);
      }
    }
    assert.equal(server.gateway.openExchanges, N);
    fast.add("pods", "default", "broadcast");
    await waitFor(() => received.every((r) => r.includes('"broadcast"')), 180_000);
    const heapPerWatch = (process.memoryUsage().heapUsed - heapBefore) / N;
    // Client, gateway and stand-in share this process: all three sides together stay small per watch.
    assert.ok(heapPerWatch < 200_000, `heap per watch ${Math.round(heapPerWatch)} bytes`);
    closing = true;
    for (const r of requests) r.destroy();
    await waitFor(() => fast.openWatches === 0 && server.gateway.openExchanges === 0, 180_000);
    agent.destroy();
  });
});

async function waitFor(check: () => boolean, ms: number, state?: () => string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting${state ? `: ${state()}` : ""}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
