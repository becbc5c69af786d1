import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { GROUP_PATH, startTestServer, type TestResponse, type TestServer } from "../testing/test-server.js";

/** A list or watch from a resourceVersion ahead of the store: a short wait, then kube's 504. */
describe("resourceVersion ahead of the store", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ freshnessWaitMs: 1500 });
  });
  after(() => server.stop());

  const current = async () =>
    Number((await server.request("GET", `${GROUP_PATH}/teams`)).json.metadata.resourceVersion);
  const team = (name: string) => ({ apiVersion: "management.platform/v1", kind: "Team", metadata: { name }, spec: {} });

  const lines = (text: string) =>
    text
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => JSON.parse(l));

  function assertTooLarge(res: TestResponse, asked: number): void {
    assert.equal(res.status, 504, res.text);
    assert.equal(res.headers["retry-after"], "1");
    assert.equal(res.json.reason, "Timeout");
    assert.match(res.json.message, new RegExp(`^Timeout: Too large resource version: ${asked}, current: \\d+$`));
    assert.deepEqual(res.json.details.causes, [
      { reason: "ResourceVersionTooLarge", message: "Too large resource version" },
    ]);
    assert.equal(res.json.details.retryAfterSeconds, 1);
  }

  it("answers a list, an exact list and a watch with 504 Too large resource version", async () => {
    const ahead = (await current()) + 1000;
    const [list, exact, watch] = await Promise.all([
      server.request("GET", `${GROUP_PATH}/teams?resourceVersion=${ahead}`),
      server.request("GET", `${GROUP_PATH}/teams?resourceVersion=${ahead}&resourceVersionMatch=Exact`),
      server.request("GET", `${GROUP_PATH}/teams?watch=1&resourceVersion=${ahead}&timeoutSeconds=5`),
    ]);
    assertTooLarge(list, ahead);
    assertTooLarge(exact, ahead);
    assertTooLarge(watch, ahead);
  });

  it("serves a watch whose resourceVersion the store reaches while it waits", async () => {
    const next = (await current()) + 1;
    const watching = server.request(
      "GET",
      `${GROUP_PATH}/teams?watch=true&resourceVersion=${next - 1}&timeoutSeconds=2`,
    );
    const early = server.request("GET", `${GROUP_PATH}/teams?watch=true&resourceVersion=${next}&timeoutSeconds=2`);
    await new Promise((r) => setTimeout(r, 200));
    const created = await server.request("POST", `${GROUP_PATH}/teams`, { body: team("arrives-late") });
    assert.equal(created.status, 201, created.text);
    for (const res of [await watching, await early]) {
      assert.equal(res.status, 200, res.text);
      const events = lines(res.text);
      // The early watch starts at the new revision: it sees nothing older, and nothing fails.
      for (const e of events) assert.notEqual(e.type, "ERROR", res.text);
    }
    const seen = lines((await watching).text);
    assert.deepEqual(
      seen.map((e) => [e.type, e.object.metadata.name]),
      [["ADDED", "arrives-late"]],
    );
  });
});
