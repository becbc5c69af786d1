import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { StorageError } from "../storage/errors.js";
import { openSqliteStorage } from "../storage/sqlite/sqlite-storage.js";
import { flakyStorage } from "../testing/flaky-storage.js";
import { createGadget, gadgetKind } from "../testing/gadget-kind.js";
import { AdmissionChain } from "./admission.js";
import { Informer, type InformerEvent } from "./informer.js";
import { type InformerOutage, relistDelayMs } from "./informer-relist.js";
import { Store } from "./store.js";

// An informer over a real SQLite `:memory:` store whose list() can be made to fail (as an etcd
// that went away does) and whose watches the test can end with an error.

function setup(retry: { retryMinMs: number; retryMaxMs: number }) {
  const sqlite = openSqliteStorage(":memory:");
  const store$ = flakyStorage(sqlite);
  const store = new Store(gadgetKind(), { storage: store$.storage, admission: new AdmissionChain([]) });
  const outages: InformerOutage[] = [];
  const reported: string[] = [];
  const informer = new Informer(store, (r) => reported.push(r.key), { ...retry, onOutage: (o) => outages.push(o) });
  const events: string[] = [];
  informer.onChange((e: InformerEvent) => events.push(`${e.type} ${e.object.metadata.name}`));
  let relists = 0;
  informer.onRelist(() => relists++);
  const create = (name: string) => createGadget(store, name);
  const remove = async (name: string) => (await sqlite.delete(store.key(undefined, name))).revision;
  const writeRaw = (name: string, value: string) => sqlite.create(store.key(undefined, name), Buffer.from(value));
  const close = async () => {
    informer.stop();
    await sqlite.close();
  };
  return {
    flaky: store$,
    informer,
    outages,
    events,
    relists: () => relists,
    create,
    remove,
    writeRaw,
    reported,
    close,
  };
}

/** Polls until `done` (a hang guard, not a timing assertion: 20 s is far beyond any run). */
async function until(done: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2000 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(done(), what);
}

describe("an informer whose relist fails", () => {
  const rejections: unknown[] = [];
  const onRejection = (reason: unknown) => rejections.push(reason);
  before(() => process.on("unhandledRejection", onRejection));
  after(() => process.off("unhandledRejection", onRejection));

  it("retries until the store answers, then applies what was written meanwhile; no unhandled rejection", async () => {
    const t = setup({ retryMinMs: 1, retryMaxMs: 20 });
    try {
      await t.create("a");
      await t.create("c");
      await t.informer.synced();
      const revisionBefore = t.informer.currentRevision;
      t.flaky.failing = true;
      const attempts = t.flaky.listAttempts;
      t.flaky.endWatch(new StorageError("Compacted", "/registry/", "required revision has been compacted"));
      await until(() => t.flaky.listAttempts >= attempts + 3, "the informer lists again after each failure");

      // Written while this informer cannot list: its copy stays as it was and says so.
      await t.create("b");
      const revision = await t.remove("a");
      assert.equal(t.informer.watching, false);
      assert.equal(t.informer.hasSynced, true, "the copy exists and is still read");
      assert.ok(t.informer.currentRevision < revision, "it does not claim the writes it has not seen");
      assert.equal(await t.informer.reach(revision, 1), false, "nobody waiting for them is released");
      assert.deepEqual(t.informer.names().sort(), ["a", "c"]);

      t.flaky.failing = false;
      assert.equal(await t.informer.reach(revision, 20_000), true, "recovered by itself");
      assert.equal(t.informer.watching, true);
      assert.deepEqual(t.informer.names().sort(), ["b", "c"]);
      assert.deepEqual(t.events, ["upsert b", "delete a"], "consumers hear of what the outage hid");
      assert.equal(t.relists(), 1, "relist listeners hear once, when the copy is replaced");

      // Reported once when the outage began and once when it ended, not per retry.
      await until(() => t.outages.length >= 2, "the end of the outage is reported");
      assert.equal(t.outages.length, 2);
      const [failing, recovered] = t.outages;
      assert.equal(failing!.phase, "failing");
      assert.equal(failing!.resource, "gadgets");
      assert.equal(failing!.failedAttempts, 1);
      assert.equal(failing!.revision, revisionBefore);
      assert.match(failing!.error!, /StorageError: store down \(test\)/);
      assert.equal(recovered!.phase, "recovered");
      assert.ok(recovered!.failedAttempts >= 3);

      // The new watch keeps the copy current.
      await t.create("d");
      await t.informer.sync();
      assert.deepEqual(t.informer.names().sort(), ["b", "c", "d"]);
      assert.deepEqual(rejections, []);
    } finally {
      await t.close();
    }
  });

  it("lists again after a watch that ended with any error, not only Compacted", async () => {
    const t = setup({ retryMinMs: 1, retryMaxMs: 20 });
    try {
      await t.informer.synced();
      t.flaky.endWatch(new StorageError("Unavailable", "/registry/", "connection lost (test)"));
      const revision = (await t.create("x")).metadata.resourceVersion;
      assert.equal(await t.informer.reach(Number(revision), 20_000), true, "listed and watching again");
      assert.deepEqual(t.informer.names(), ["x"]);
      assert.equal(t.informer.watching, true);
      assert.deepEqual(t.outages, [], "a relist that worked at once is no outage");
      assert.deepEqual(rejections, []);
    } finally {
      await t.close();
    }
  });

  it("stop() during the backoff ends the retries", async () => {
    const t = setup({ retryMinMs: 5, retryMaxMs: 5 });
    try {
      await t.informer.synced();
      t.flaky.failing = true;
      const attempts = t.flaky.listAttempts;
      t.flaky.endWatch(new StorageError("Compacted", "/registry/", "required revision has been compacted"));
      await until(() => t.flaky.listAttempts >= attempts + 2, "the informer retries");
      const waiting = t.informer.waitForRevision(t.informer.currentRevision + 1000);
      t.informer.stop();
      await waiting; // a stopped informer serves nobody: its waiters are let go
      const atStop = t.flaky.listAttempts;
      // Twenty retry delays: any retry still armed would have listed by then.
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(t.flaky.listAttempts, atStop, "no list after stop()");
      assert.deepEqual(
        t.outages.map((o) => o.phase),
        ["failing"],
      );
      assert.deepEqual(rejections, []);
    } finally {
      await t.close();
    }
  });
});

describe("an informer's relist and the undecodable values it reported", () => {
  it("forgets a damaged key deleted while its watch was down; one still there is not reported again", async () => {
    const t = setup({ retryMinMs: 1, retryMaxMs: 20 });
    try {
      await t.informer.synced();
      await t.writeRaw("gone", "not json");
      await t.writeRaw("stays", "not json either");
      await t.create("fine");
      await t.informer.sync();
      assert.equal(t.informer.undecodableKeys, 2);

      t.flaky.failing = true;
      const attempts = t.flaky.listAttempts;
      t.flaky.endWatch(new StorageError("Compacted", "/registry/", "required revision has been compacted"));
      await until(() => t.flaky.listAttempts > attempts, "the informer lists again");
      const revision = await t.remove("gone");
      t.flaky.failing = false;
      assert.equal(await t.informer.reach(revision, 20_000), true, "recovered");
      assert.equal(t.informer.undecodableKeys, 1, "the deleted key is forgotten, the damaged one still there kept");
      assert.equal(t.reported.length, 2, "the damaged value the relist meets again is not reported again");
    } finally {
      await t.close();
    }
  });
});

describe("relistDelayMs", () => {
  it("doubles from the minimum up to the maximum, jittered within the upper half", () => {
    const options = { retryMinMs: 100, retryMaxMs: 5000 };
    const ceilings = [1, 2, 3, 4, 5, 6, 7, 8, 50].map((n) => relistDelayMs(n, options, () => 1));
    assert.deepEqual(ceilings, [100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000]);
    assert.equal(
      relistDelayMs(3, options, () => 0),
      200,
    );
    assert.equal(
      relistDelayMs(3, options, () => 0.5),
      300,
    );
    assert.equal(
      relistDelayMs(1, {}, () => 1),
      100,
      "defaults: 100 ms first",
    );
    assert.equal(
      relistDelayMs(1000, {}, () => 1),
      5000,
      "defaults: 5 s at most",
    );
  });
});
