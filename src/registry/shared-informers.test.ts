import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Storage } from "../storage/interface.js";
import { openSqliteStorage } from "../storage/sqlite/sqlite-storage.js";
import { createGadget, gadgetKind } from "../testing/gadget-kind.js";
import { storageWith } from "../testing/storage-with.js";
import { AdmissionChain } from "./admission.js";
import type { InformerEvent } from "./informer.js";
import { SharedInformers } from "./shared-informers.js";
import { Store } from "./store.js";

// SharedInformers over a real SQLite `:memory:` store whose watch() calls are counted.

/** The storage, with every watch() it is asked for recorded by prefix. */
function countingWatches(storage: Storage): { storage: Storage; watches: string[]; failLists: (n: number) => void } {
  const watches: string[] = [];
  let listFailures = 0;
  const counted = storageWith(storage, {
    list: (...args: Parameters<Storage["list"]>) => {
      if (listFailures === 0) return storage.list(...args);
      listFailures--;
      return Promise.reject(new Error("storage unavailable (test)"));
    },
    watch: (...args: Parameters<Storage["watch"]>) => {
      watches.push(args[0]);
      return storage.watch(...args);
    },
  });
  return {
    storage: counted,
    watches,
    failLists: (n) => {
      listFailures = n;
    },
  };
}

function setup() {
  const { storage, watches, failLists } = countingWatches(openSqliteStorage(":memory:"));
  const store = new Store(gadgetKind(), { storage, admission: new AdmissionChain([]) });
  const informers = new SharedInformers({
    store: (plural) => {
      assert.equal(plural, "gadgets");
      return store;
    },
  });
  const create = (name: string) => createGadget(store, name);
  return { storage, watches, store, informers, create, failLists };
}

describe("SharedInformers", () => {
  it("gives two consumers of one kind the same informer over one watch, each with its own handler", async () => {
    const { watches, informers, create, storage } = setup();
    try {
      await create("before");
      const gateway = informers.for("gadgets");
      const controller = informers.for("gadgets");
      assert.equal(gateway, controller);
      assert.equal(gateway.hasSynced, false);
      const seenByGateway: string[] = [];
      const seenByController: string[] = [];
      const removeGateway = gateway.onChange((e: InformerEvent) =>
        seenByGateway.push(`${e.type} ${e.object.metadata.name}`),
      );
      controller.onChange((e: InformerEvent) => seenByController.push(`${e.type} ${e.object.metadata.name}`));
      await Promise.all([gateway.synced(), controller.synced(), gateway.synced()]);
      assert.equal(gateway.hasSynced, true);
      assert.deepEqual(watches, ["/registry/management.platform/gadgets/"], "one list and watch for both");
      assert.deepEqual(
        gateway.list().map((o) => o.metadata.name),
        ["before"],
      );

      await create("after");
      await gateway.sync(); // handlers run as the copy applies the event
      assert.deepEqual(seenByGateway, ["upsert after"]);
      assert.deepEqual(seenByController, ["upsert after"]);

      // One consumer leaving (a controller losing the lease) does not stop the other's copy.
      removeGateway();
      await create("later");
      await controller.sync();
      assert.deepEqual(seenByController, ["upsert after", "upsert later"]);
      assert.deepEqual(seenByGateway, ["upsert after"]);
      assert.deepEqual(
        gateway
          .list()
          .map((o) => o.metadata.name)
          .sort(),
        ["after", "before", "later"],
      );
      assert.deepEqual(gateway.names().sort(), ["after", "before", "later"]);
      assert.equal(watches.length, 1);
      assert.deepEqual(informers.resources(), [{ resource: "gadgets", synced: true, watching: true }]);
    } finally {
      informers.stop();
      await storage.close();
    }
  });

  it("a first list that failed is tried again by the next consumer that waits for it", async () => {
    const { informers, storage, create, failLists, watches } = setup();
    try {
      await create("one");
      failLists(1);
      const informer = informers.for("gadgets");
      await assert.rejects(informer.synced(), /storage unavailable/);
      assert.equal(informer.hasSynced, false);
      await informer.synced();
      assert.equal(informer.hasSynced, true);
      assert.deepEqual(informer.names(), ["one"]);
      assert.equal(watches.length, 1);
    } finally {
      informers.stop();
      await storage.close();
    }
  });

  it("after stop, no informer is handed out", async () => {
    const { informers, storage } = setup();
    await informers.for("gadgets").synced();
    informers.stop();
    assert.throws(() => informers.for("gadgets"), /after the informers stopped/);
    await storage.close();
  });
});
