import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ApiError } from "../api/errors.js";
import type { KubeObject } from "../api/object.js";
import { CachedStorage } from "../storage/cache/cached-storage.js";
import type { Storage } from "../storage/interface.js";
import { openSqliteStorage } from "../storage/sqlite/sqlite-storage.js";
import { gadgetKind } from "../testing/gadget-kind.js";
import { storageWith } from "../testing/storage-with.js";
import { AdmissionChain } from "./admission.js";
import { registryPartition } from "./keys.js";
import { defaultWriteOptions } from "./options.js";
import type { RequestContext } from "./request-context.js";
import type { Strategy } from "./resource-type.js";
import { Store } from "./store.js";

// Store.readRaw / readRawSoon / listRaw: the stored-bytes fast paths HTTP takes, decided by the
// Store from the kind and the storage's interface (Storage.getFromMemory), never by its class.

function gadgets(storage: Storage, strategy: Strategy = {}): Store {
  const rt = gadgetKind(strategy);
  return new Store(rt, { storage, admission: new AdmissionChain([]) });
}

const ctx = (): RequestContext => ({
  user: { name: "alice", subjectKind: "User", groups: [], teams: [] },
  warnings: [],
});
const gadget = (name: string): KubeObject => ({
  apiVersion: "management.platform/v1",
  kind: "Gadget",
  metadata: { name },
  spec: { size: 3 },
});
const cached = (inner: Storage) => new CachedStorage(inner, { partition: registryPartition });

async function withGadget(store: Store): Promise<KubeObject> {
  await store.create(ctx(), undefined, gadget("g"), defaultWriteOptions("test"));
  return store.get(ctx(), undefined, "g");
}

describe("Store.readRaw", () => {
  it("answers the stored bytes with the resourceVersion from a storage that reads from memory", async () => {
    const store = gadgets(cached(openSqliteStorage(":memory:")));
    const expected = await withGadget(store);
    assert.deepEqual(JSON.parse((await store.readRaw(undefined, "g"))!.toString()), expected);
    const soon = store.readRawSoon(store.key(undefined, "g"));
    assert.ok(Buffer.isBuffer(soon), "the embedded store answers at once, without a promise");
    assert.deepEqual(JSON.parse(soon.toString()), expected);
    assert.equal(store.readRawSoon(store.key(undefined, "missing")), null);
    await assert.rejects(store.readRaw(undefined, "missing"), (e: ApiError) => e.code === 404);
    await store.storage.close();
  });

  it("splices a version's bytes once and shares them between reads; a new version has its own", async () => {
    const store = gadgets(cached(openSqliteStorage(":memory:")));
    const first = await withGadget(store);
    const a = store.readRawSoon(store.key(undefined, "g")) as Buffer;
    const b = store.readRawSoon(store.key(undefined, "g")) as Buffer;
    assert.equal(a, b, "the same version is answered from the same bytes");
    assert.equal(JSON.parse(a.toString()).metadata.resourceVersion, first.metadata.resourceVersion);
    await store.update(ctx(), undefined, "g", { ...first, spec: { size: 4 } }, defaultWriteOptions("test"));
    const c = store.readRawSoon(store.key(undefined, "g")) as Buffer;
    assert.notEqual(c, a);
    const after = JSON.parse(c.toString());
    assert.equal(after.spec.size, 4);
    assert.ok(Number(after.metadata.resourceVersion) > Number(first.metadata.resourceVersion));
    // The earlier answer is unchanged: a sent response is never rewritten.
    assert.equal(JSON.parse(a.toString()).spec.size, 3);
    await store.storage.close();
  });

  it("waits for the revision check when the backend cannot say its revision at once (etcd)", async () => {
    const inner = openSqliteStorage(":memory:");
    const asking = storageWith<Storage>(inner, { currentRevisionNow: undefined });
    const store = gadgets(cached(asking));
    const expected = await withGadget(store);
    const soon = store.readRawSoon(store.key(undefined, "g"));
    assert.ok(soon instanceof Promise);
    assert.deepEqual(JSON.parse((await soon)!.toString()), expected);
    await store.storage.close();
  });

  it("steps aside for a storage without memory and for a kind that presents or transforms", async () => {
    const plain = gadgets(openSqliteStorage(":memory:"));
    await withGadget(plain);
    assert.equal(await plain.readRaw(undefined, "g"), undefined);
    assert.equal(plain.readRawSoon(plain.key(undefined, "g")), undefined);
    // A LIST's bytes are the same whoever answered: it needs no memory.
    assert.ok(await plain.listRaw(ctx(), undefined, {}));
    await plain.storage.close();

    const presenting = gadgets(cached(openSqliteStorage(":memory:")), { present: (obj) => obj });
    await withGadget(presenting);
    assert.equal(await presenting.readRaw(undefined, "g"), undefined);
    assert.equal(presenting.readRawSoon(presenting.key(undefined, "g")), undefined);
    assert.equal(await presenting.listRaw(ctx(), undefined, {}), undefined);
    await presenting.storage.close();
  });
});

describe("stored-bytes verdicts", () => {
  it("belong to the version they were found for: a copy of a checked version is checked on its own", async () => {
    const storage = openSqliteStorage(":memory:");
    const store = gadgets(cached(storage));
    const { versions } = store;
    await withGadget(store);
    const kv = (await store.storage.get(store.key(undefined, "g")))!;
    assert.ok(Buffer.isBuffer(store.readRawSoon(store.key(undefined, "g"))), "checked and answered");
    assert.equal(versions.verdict(kv), true);
    // A copy (as a delete event is made from the last version) is a version of its own.
    const damaged = { ...kv, value: Buffer.from('{"apiVersion":') };
    assert.equal(versions.verdict(damaged), undefined);
    assert.equal(versions.eventBytes(store.rt, damaged), undefined, "refused: the decoding path answers");
    assert.equal(versions.verdict(damaged), false);
    const deleted = { ...kv, modRevision: kv.modRevision + 7 };
    assert.equal(versions.verdict(deleted), undefined);
    const event = JSON.parse(versions.eventBytes(store.rt, deleted)!.toString());
    assert.equal(
      event.metadata.resourceVersion,
      String(kv.modRevision + 7),
      "its own resourceVersion, not the GET's answer",
    );
    // A KeyValue made by hand has its verdict remembered all the same, and nothing added to it.
    const byHand = { key: kv.key, value: kv.value, createRevision: kv.createRevision, modRevision: kv.modRevision };
    assert.equal(versions.sendableAsStored(store.rt, byHand), true);
    assert.equal(versions.verdict(byHand), true);
    assert.deepEqual(Object.getOwnPropertySymbols(kv), [], "the storage's version carries nothing of the registry");
    await store.storage.close();
  });
});
