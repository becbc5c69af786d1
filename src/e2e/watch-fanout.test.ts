import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";
import { type StreamedEvent, WatchClient } from "../testing/watch-client.js";

// Watch events are encoded once and shared by every watcher that sees them unchanged, and all
// events a watcher gets in one pass go out in one write straight to its connection (watch-frame.ts,
// watch-writer.ts; watch-writer.test.ts covers several events per pass). Over real connections,
// watchers of one collection with and without a selector must each get exactly their own events,
// in revision order, framed so that an HTTP client reads them.
describe("watch fan-out", () => {
  let server: TestServer;
  const teams = `${GROUP_PATH}/teams`;
  const names = Array.from({ length: 10 }, (_, i) => `fan-${i}`);
  const isGold = (name: string) => Number(name.slice(4)) % 2 === 0;

  before(async () => {
    server = await startTestServer();
    for (const name of names) {
      const body = {
        apiVersion: "management.platform/v1",
        kind: "Team",
        metadata: { name, labels: { tier: isGold(name) ? "gold" : "silver" } },
        spec: {},
      };
      assert.equal((await server.request("POST", teams, { body })).status, 201);
    }
  });
  after(async () => {
    await server.stop();
  });

  it("watchers with and without a selector each get their own events, in order", async () => {
    const rv = (await server.request("GET", teams)).json.metadata.resourceVersion;
    const watch = (query: string) =>
      new WatchClient(server, `${teams}?watch=1&resourceVersion=${rv}${query}`, server.adminKey);
    const all = [watch(""), watch(""), watch("")];
    const gold = watch(`&labelSelector=${encodeURIComponent("tier=gold")}`);
    try {
      const patched = await Promise.all(
        names.map((name) =>
          server.request("PATCH", `${teams}/${name}`, {
            raw: JSON.stringify({ metadata: { annotations: { seq: name } } }),
            contentType: "application/merge-patch+json",
          }),
        ),
      );
      assert.deepEqual(
        patched.map((r) => r.status),
        names.map(() => 200),
      );
      const rvOf = new Map(patched.map((r) => [r.json.metadata.name as string, r.json.metadata.resourceVersion]));
      const expected = (wanted: string[]) =>
        wanted
          .map((name) => ({ name, rv: rvOf.get(name) }))
          .sort((a, b) => Number(a.rv) - Number(b.rv))
          .map(({ name, rv }) => `MODIFIED ${name} ${rv} ${name}`);
      const seen = (events: readonly StreamedEvent[]) =>
        events.map(
          (e) =>
            `${e.type} ${e.object.metadata.name} ${e.object.metadata.resourceVersion} ${e.object.metadata.annotations?.seq}`,
        );

      for (const w of all) await w.until((events) => events.length >= names.length);
      await gold.until((events) => events.length >= names.filter(isGold).length);
      for (const w of all) assert.deepEqual(seen(w.events), expected(names));
      assert.deepEqual(seen(gold.events), expected(names.filter(isGold)));
    } finally {
      for (const w of [...all, gold]) w.close();
    }
  });
});
