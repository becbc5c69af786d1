import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { EtcdCluster } from "../testing/etcd-cluster.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";

/**
 * A request that reaches the store after it closed (the last moments of a shutdown) is answered
 * 503 ServiceUnavailable with Retry-After, the answer to retry elsewhere: never a 500.
 */
for (const backend of ["SQLite", "etcd"] as const) {
  describe(`a request reaching the closed store (${backend})`, () => {
    let etcd: EtcdCluster | undefined;
    let server: TestServer;

    before(async () => {
      if (backend === "etcd") etcd = await EtcdCluster.start(1);
      server = await startTestServer(etcd ? { storage: etcd.url } : {});
      await server.storage.close();
    });
    after(async () => {
      await server.stop();
      await etcd?.stop();
    });

    const assertUnavailable = (res: Awaited<ReturnType<TestServer["request"]>>) => {
      assert.equal(res.status, 503, res.text);
      assert.equal(res.json.kind, "Status");
      assert.equal(res.json.reason, "ServiceUnavailable");
      assert.equal(res.headers["retry-after"], "1");
    };

    it("a write is refused with 503 and Retry-After", async () => {
      assertUnavailable(await server.request("POST", `${GROUP_PATH}/teams`, { body: { metadata: { name: "t" } } }));
    });

    it("a read the cache cannot answer is refused with 503 and Retry-After", async () => {
      assertUnavailable(
        await server.request("GET", `${GROUP_PATH}/teams?resourceVersion=1&resourceVersionMatch=Exact`),
      );
    });
  });
}
