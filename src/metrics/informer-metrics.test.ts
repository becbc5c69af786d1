import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { teamResource } from "../kinds/team/team.js";
import { AdmissionChain } from "../registry/admission.js";
import { Registry } from "../registry/registry.js";
import { SharedInformers } from "../registry/shared-informers.js";
import { openSqliteStorage } from "../storage/sqlite/sqlite-storage.js";
import { flakyStorage } from "../testing/flaky-storage.js";
import { startTestServer, type TestServer } from "../testing/test-server.js";
import { waitFor } from "../testing/wait-for.js";
import { countInformerRelist, registerInformerSource } from "./informer-metrics.js";

/** The value of the sample `name{…labels…}`; undefined when there is none. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) return Number(line.split(" ").pop());
  }
  return undefined;
}

/**
 * A second set of informers in this process (as a second server would have), over a real SQLite
 * store whose lists can be made to fail, wired to the metrics as start-server.ts wires the
 * server's own: its teams informer's watch is ended with an error while the store refuses lists.
 */
function failingInformers() {
  const sqlite = openSqliteStorage(":memory:");
  const flaky = flakyStorage(sqlite);
  const informers = new SharedInformers(
    new Registry(flaky.storage, [teamResource], new AdmissionChain([])),
    undefined,
    {
      retryMinMs: 1,
      retryMaxMs: 20,
      onRelistAttempt: countInformerRelist,
    },
  );
  const unregister = registerInformerSource(informers);
  const close = async () => {
    unregister();
    informers.stop();
    await sqlite.close();
  };
  return { flaky, informers, close };
}

describe("informer metrics", () => {
  let s: TestServer;
  const scrape = async () => {
    const r = await s.request("GET", "/metrics", { headers: { accept: "text/plain" } });
    assert.equal(r.status, 200, r.text);
    return r.text;
  };
  /** Scrapes until `done` holds (bounded by waitFor, a hang guard, not a timing assertion). */
  const scrapeUntil = (done: (text: string) => boolean, what: string) => waitFor(what, scrape, done);
  before(async () => {
    s = await startTestServer();
  });
  after(() => s?.stop());

  it("the server's informers show as watching", async () => {
    const text = await scrape();
    for (const resource of ["ownedaccesskeys", "users", "teams"])
      assert.equal(sample(text, "platform_informer_watching", { resource }), 1, resource);
    assert.match(text, /^# TYPE platform_informer_relists_total counter$/m);
  });

  it("a resource whose informer lost its watch and cannot list shows 0 and counts its relists, until it recovers", async () => {
    const replica = failingInformers();
    try {
      await replica.informers.for("teams").synced();
      const relists = (text: string, result: string) =>
        sample(text, "platform_informer_relists_total", { resource: "teams", result }) ?? 0;
      const before = await scrape();
      assert.equal(sample(before, "platform_informer_watching", { resource: "teams" }), 1);

      replica.flaky.failing = true;
      replica.flaky.endWatch(undefined, "teams");
      const during = await scrapeUntil((t) => relists(t, "failed") > relists(before, "failed"), "a failed relist");
      assert.equal(sample(during, "platform_informer_watching", { resource: "teams" }), 0, "teams has no watch");
      assert.equal(sample(during, "platform_informer_watching", { resource: "users" }), 1, "users is unaffected");
      assert.equal(relists(during, "ok"), relists(before, "ok"));

      replica.flaky.failing = false;
      const recovered = await scrapeUntil(
        (t) => sample(t, "platform_informer_watching", { resource: "teams" }) === 1,
        "teams watches again",
      );
      assert.equal(relists(recovered, "ok") - relists(before, "ok"), 1, "one relist worked");
      assert.ok(relists(recovered, "failed") > relists(before, "failed"));
    } finally {
      await replica.close();
    }
  });
});
