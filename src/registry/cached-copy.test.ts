import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../api/object.js";
import { CachedStorage } from "../storage/cache/cached-storage.js";
import type { Storage, WatchCallbacks, WatchEvent, WatchOptions } from "../storage/interface.js";
import { openSqliteStorage } from "../storage/sqlite/sqlite-storage.js";
import { gadgetKind } from "../testing/gadget-kind.js";
import { AdmissionChain } from "./admission.js";
import { registryPartition } from "./keys.js";
import { defaultWriteOptions } from "./options.js";
import type { RequestContext } from "./request-context.js";
import { Store } from "./store.js";

// Updates and patches start from the watch cache's copy (cached-copy.ts). Here that copy is
// made stale on purpose: the storage under the cache holds back its watch events while another
// writer (another replica, in production) changes the object. Every answer must still be the
// one a consistent read would give.

/** A storage whose watch events are held back while `hold` is set (then flushed in order). */
function withHeldEvents(inner: Storage): { storage: Storage; hold(on: boolean): void; reads: number } {
  let held = false;
  let reads = 0;
  const queued: (() => void)[] = [];
  const later = (deliver: () => void) => (held ? queued.push(deliver) : deliver());
  const storage: Storage = {
    create: (k, v) => inner.create(k, v),
    get: (k) => {
      reads++;
      return inner.get(k);
    },
    list: (p, o) => inner.list(p, o),
    update: (k, v, r) => inner.update(k, v, r),
    delete: (k, r) => inner.delete(k, r),
    txn: (ops) => inner.txn(ops),
    watch: (prefix: string, options: WatchOptions, callbacks: WatchCallbacks) =>
      inner.watch(prefix, options, {
        onError: (err) => callbacks.onError(err),
        onEvents: (events: readonly WatchEvent[]) => later(() => callbacks.onEvents(events)),
        onProgress: (revision: number) => later(() => callbacks.onProgress?.(revision)),
      }),
    // The store's current revision is the writer's, as etcd would answer it.
    currentRevision: () => {
      reads++;
      return inner.currentRevision();
    },
    currentRevisionNow: () => inner.currentRevisionNow!(),
    compactedRevision: () => inner.compactedRevision(),
    compact: (r) => inner.compact(r),
    close: () => inner.close(),
  };
  return {
    storage,
    get reads() {
      return reads;
    },
    hold(on) {
      held = on;
      if (!on) for (const deliver of queued.splice(0)) deliver();
    },
  };
}

const gadgets = gadgetKind();

function setup() {
  const inner = openSqliteStorage(":memory:");
  const gate = withHeldEvents(inner);
  // A short wait for a cache that cannot catch up (its events are held): reads fall back to storage.
  const cached = new CachedStorage(gate.storage, { partition: registryPartition, syncTimeoutMs: 20 });
  const admission = new AdmissionChain([]);
  const store = new Store(gadgets, { storage: cached, admission });
  // The other replica: writes straight to the shared store, past this replica's cache.
  const other = new Store(gadgets, { storage: inner, admission });
  const ctx = (): RequestContext => ({
    user: { name: "alice", subjectKind: "User", groups: [], teams: [] },
    warnings: [],
  });
  const opts = defaultWriteOptions("test");
  const gadget = (size: number, labels: Record<string, string> = {}): KubeObject => ({
    apiVersion: "management.platform/v1",
    kind: "Gadget",
    metadata: { name: "g", labels },
    spec: { size },
  });
  /** Creates g through this replica, then changes it on the other one while this cache is held back. */
  const staleCopy = async (): Promise<{ fresh: KubeObject }> => {
    await store.create(ctx(), undefined, gadget(1, { a: "1" }), opts);
    await cached.prime([store.key(undefined, "g")]);
    assert.equal((await store.get(ctx(), undefined, "g")).metadata.labels?.a, "1");
    gate.hold(true);
    const fresh = await other.patch(ctx(), undefined, "g", "merge", { metadata: { labels: { a: "2" } } }, opts);
    return { fresh };
  };
  return { store, other, ctx, opts, gadget, staleCopy, gate, close: () => cached.close() };
}

describe("updates from the watch cache's copy", () => {
  it("start without asking the store (on etcd, no revision round trip before the write)", async () => {
    const s = setup();
    const created = await s.store.create(s.ctx(), undefined, s.gadget(1), s.opts);
    await s.store.get(s.ctx(), undefined, "g");
    const before = s.gate.reads;
    const patched = await s.store.patch(s.ctx(), undefined, "g", "merge", { spec: { size: 2 } }, s.opts);
    const body = { ...s.gadget(3), metadata: { name: "g", resourceVersion: patched.metadata.resourceVersion } };
    const updated = await s.store.update(s.ctx(), undefined, "g", body, s.opts);
    assert.equal(s.gate.reads, before);
    assert.ok(Number(updated.metadata.resourceVersion) > Number(patched.metadata.resourceVersion));
    assert.ok(Number(patched.metadata.resourceVersion) > Number(created.metadata.resourceVersion));
    await s.close();
  });

  it("a patch of a stale copy applies to the current object (no lost update)", async () => {
    const s = setup();
    await s.staleCopy();
    const patched = await s.store.patch(s.ctx(), undefined, "g", "merge", { spec: { size: 5 } }, s.opts);
    assert.equal(patched.metadata.labels?.a, "2");
    assert.equal(patched.spec?.size, 5);
    const stored = await s.other.read(undefined, "g");
    assert.deepEqual([stored?.metadata.labels?.a, stored?.spec?.size], ["2", 5]);
    await s.close();
  });

  it("a patch that changes nothing on the stale copy still changes the current object", async () => {
    const s = setup();
    await s.staleCopy();
    // On the cached copy (a=1) this is a no-op; on the current object (a=2) it is not.
    const patched = await s.store.patch(s.ctx(), undefined, "g", "merge", { metadata: { labels: { a: "1" } } }, s.opts);
    assert.equal(patched.metadata.labels?.a, "1");
    assert.equal((await s.other.read(undefined, "g"))?.metadata.labels?.a, "1");
    await s.close();
  });

  it("a refusal earned only by the stale copy is not the answer (JSON patch test)", async () => {
    const s = setup();
    await s.staleCopy();
    // The test fails on the cached copy (a=1) and holds on the current object (a=2).
    const ops = [
      { op: "test", path: "/metadata/labels/a", value: "2" },
      { op: "replace", path: "/spec/size", value: 8 },
    ];
    const patched = await s.store.patch(s.ctx(), undefined, "g", "json", ops, s.opts);
    assert.deepEqual([patched.metadata.labels?.a, patched.spec?.size], ["2", 8]);
    await s.close();
  });

  it("an update naming the current resourceVersion succeeds although the copy is older", async () => {
    const s = setup();
    const { fresh } = await s.staleCopy();
    const body = {
      ...s.gadget(7, { a: "2" }),
      metadata: { name: "g", labels: { a: "2" }, resourceVersion: fresh.metadata.resourceVersion },
    };
    const updated = await s.store.update(s.ctx(), undefined, "g", body, s.opts);
    assert.equal(updated.spec?.size, 7);
    assert.ok(Number(updated.metadata.resourceVersion) > Number(fresh.metadata.resourceVersion));
    await s.close();
  });

  it("an update naming the stale copy's resourceVersion is refused with 409", async () => {
    const s = setup();
    await s.staleCopy();
    s.gate.hold(false);
    const old = await s.other.read(undefined, "g");
    s.gate.hold(true);
    await s.other.patch(s.ctx(), undefined, "g", "merge", { spec: { size: 3 } }, s.opts);
    const body = { ...s.gadget(9), metadata: { name: "g", resourceVersion: old?.metadata.resourceVersion } };
    await assert.rejects(
      s.store.update(s.ctx(), undefined, "g", body, s.opts),
      (err: { code?: number }) => err.code === 409,
    );
    assert.equal((await s.other.read(undefined, "g"))?.spec?.size, 3);
    await s.close();
  });

  it("a patch of an object the stale cache does not have yet finds it", async () => {
    const s = setup();
    await s.store.create(s.ctx(), undefined, { ...s.gadget(1), metadata: { name: "h" } }, s.opts);
    s.gate.hold(true);
    await s.other.create(s.ctx(), undefined, s.gadget(2), s.opts);
    const patched = await s.store.patch(s.ctx(), undefined, "g", "merge", { spec: { size: 4 } }, s.opts);
    assert.equal(patched.spec?.size, 4);
    await s.close();
  });
});
