import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { suiteServer } from "../testing/suite-server.js";
import { GROUP_PATH, type TestServer } from "../testing/test-server.js";

/**
 * A request that reaches the store after it closed (the last moments of a shutdown) is answered
 * 503 ServiceUnavailable with Retry-After, the answer to retry elsewhere: never a 500.
 */
for (const backend of ["SQLite", "etcd"] as const) {
  describe(`a request reaching the closed store (${backend})`, () => {
    const suite = suiteServer(backend === "etcd" ? "etcd" : "sqlite");
    before(() => suite.server.storage.close());

    const assertUnavailable = (res: Awaited<ReturnType<TestServer["request"]>>) => {
      assert.equal(res.status, 503, res.text);
      assert.equal(res.json.kind, "Status");
      assert.equal(res.json.reason, "ServiceUnavailable");
      assert.equal(res.headers["retry-after"], "1");
    };

    it("a write is refused with 503 and Retry-After", async () => {
      assertUnavailable(
        await suite.server.request("POST", `${GROUP_PATH}/teams`, { body: { metadata: { name: "t" } } }),
      );
    });

    it("a read the cache cannot answer is refused with 503 and Retry-After", async () => {
      assertUnavailable(
        await suite.server.request("GET", `${GROUP_PATH}/teams?resourceVersion=1&resourceVersionMatch=Exact`),
      );
    });
  });
}
