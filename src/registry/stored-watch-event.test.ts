import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../api/object.js";
import { WatchFrames } from "../server/watch-frame.js";
import { CachedStorage } from "../storage/cache/cached-storage.js";
import { openSqliteStorage } from "../storage/sqlite/sqlite-storage.js";
import { gadgetKind } from "../testing/gadget-kind.js";
import { waitFor } from "../testing/wait-for.js";
import { AdmissionChain } from "./admission.js";
import { registryPartition } from "./keys.js";
import { defaultWriteOptions } from "./options.js";
import type { RequestContext } from "./request-context.js";
import type { Strategy } from "./resource-type.js";
import { Store } from "./store.js";
import { type ApiWatchEvent, watchStore } from "./store-watch.js";
import { StoredWatchEvent } from "./stored-watch-event.js";

// A watch that selects nothing, on a kind shown as stored, sends each event's stored bytes with
// the resourceVersion spliced in and decodes nothing; the events (types, objects) are the same
// as those of the decoding path, which every other watch still takes.

const ctx = (): RequestContext => ({
  user: { name: "alice", subjectKind: "User", groups: [], teams: [] },
  warnings: [],
});
const gadget = (name: string, labels?: Record<string, string>): KubeObject => ({
  apiVersion: "management.platform/v1",
  kind: "Gadget",
  metadata: { name, ...(labels ? { labels } : {}) },
  spec: { size: 3 },
});

/** A store on the watch cache, counting how many stored values the watch path decodes. */
function gadgets(strategy: Strategy = {}): { store: Store; decodes: () => number } {
  const storage = new CachedStorage(openSqliteStorage(":memory:"), { partition: registryPartition });
  const store = new Store(gadgetKind(strategy), { storage, admission: new AdmissionChain([]) });
  let decodes = 0;
  const decodeForWatch = store.decodeForWatch.bind(store);
  store.decodeForWatch = (kv) => {
    decodes++;
    return decodeForWatch(kv);
  };
  return { store, decodes: () => decodes };
}

/** Creates g, updates it, deletes it, while a watch from before the create records its events. */
async function watchLifecycle(store: Store, labelSelector?: string): Promise<ApiWatchEvent[]> {
  const events: ApiWatchEvent[] = [];
  const from = String(await store.storage.currentRevision());
  const handle = await watchStore(
    store,
    ctx(),
    undefined,
    { resourceVersion: from, allowWatchBookmarks: false, ...(labelSelector ? { labelSelector } : {}) },
    { send: (e) => events.push(e), end() {} },
    { bookmarkIntervalMs: 60_000 },
  );
  const options = defaultWriteOptions("test");
  await store.create(ctx(), undefined, gadget("g", { tier: "a" }), options);
  await store.patch(ctx(), undefined, "g", "merge", { spec: { size: 4 } }, options);
  await store.delete(ctx(), undefined, "g", options);
  await waitFor(
    "the three events",
    async () => events.length,
    (count) => count >= 3,
  );
  handle.close();
  return events;
}

/** The frames of one server's watches (WatchStreams.frames). */
const frames = new WatchFrames();

/** What a client reads: each event's type and object as parsed from its wire line. */
function onTheWire(events: ApiWatchEvent[]): { type: string; object: KubeObject }[] {
  return events.map((e) => {
    const frame = e instanceof StoredWatchEvent ? frames.stored(e.type, e.json).line.toString() : JSON.stringify(e);
    return JSON.parse(frame);
  });
}

describe("watch events as stored bytes", () => {
  it("a watch selecting nothing on a kind shown as stored decodes nothing and sends what decoding would", async () => {
    const plain = gadgets();
    const events = await watchLifecycle(plain.store);
    assert.deepEqual(
      events.map((e) => e.type),
      ["ADDED", "MODIFIED", "DELETED"],
    );
    assert.ok(events.every((e) => e instanceof StoredWatchEvent));
    assert.equal(plain.decodes(), 0, "no event was decoded");
    // The same events through the decoding path (a selector every object matches).
    const selected = gadgets();
    const decoded = await watchLifecycle(selected.store, "tier=a");
    assert.ok(decoded.every((e) => !(e instanceof StoredWatchEvent)));
    assert.ok(selected.decodes() > 0);
    const strip = (o: KubeObject) => ({
      ...o,
      metadata: { ...o.metadata, uid: "", creationTimestamp: "", managedFields: [] },
    });
    const [wire, expected] = [onTheWire(events), onTheWire(decoded)];
    assert.deepEqual(
      wire.map((e) => ({ type: e.type, object: strip(e.object) })),
      expected.map((e) => ({ type: e.type, object: strip(e.object) })),
    );
    assert.deepEqual(
      wire.map((e) => e.object.metadata.resourceVersion),
      events.map((e) => (e.object as KubeObject).metadata.resourceVersion),
      "the spliced resourceVersion is the decoded one",
    );
    assert.equal(plain.decodes(), 3, "object decodes on access (for consumers that need it)");
  });

  it("a kind that presents objects per caller keeps the decoding path", async () => {
    const shown = gadgets({ present: (obj) => ({ ...obj, spec: { ...obj.spec, shown: true } }) });
    const events = await watchLifecycle(shown.store);
    assert.deepEqual(
      events.map((e) => e.type),
      ["ADDED", "MODIFIED", "DELETED"],
    );
    assert.ok(events.every((e) => !(e instanceof StoredWatchEvent)));
    assert.ok(events.every((e) => (e.object as KubeObject).spec?.shown === true));
  });

  it("an update's previous value is not decoded when the watch selects everything", async () => {
    const shown = gadgets({ present: (obj) => obj });
    await watchLifecycle(shown.store);
    // One decode per event: the create's, the update's and the delete's objects, no previous value.
    assert.equal(shown.decodes(), 3);
  });
});

describe("WatchFrames.stored", () => {
  it("frames the stored JSON as one HTTP/1.1 chunk holding one watch line", () => {
    const json = Buffer.from('{"kind":"Gadget","metadata":{"resourceVersion":"7","name":"é"}}');
    const frame = frames.stored("MODIFIED", json);
    const line = frame.line.toString();
    assert.ok(line.endsWith("\n"));
    assert.deepEqual(JSON.parse(line), { type: "MODIFIED", object: JSON.parse(json.toString()) });
    const chunk = frame.chunk.toString("latin1");
    const size = Number.parseInt(chunk.slice(0, chunk.indexOf("\r\n")), 16);
    assert.equal(size, frame.line.length, "the chunk size counts bytes, not characters");
    assert.ok(frame.chunk.subarray(-2).equals(Buffer.from("\r\n")));
    assert.equal(frame.chunk.length, chunk.indexOf("\r\n") + 2 + size + 2);
    // Another type of the same bytes is another frame.
    assert.equal(JSON.parse(frames.stored("ADDED", json).line.toString()).type, "ADDED");
    assert.equal(JSON.parse(frames.stored("MODIFIED", json).line.toString()).type, "MODIFIED");
  });

  it("keeps each event's frame while its bytes live: a batch asked for by watcher after watcher is built once", () => {
    const batch = [Buffer.from('{"n":1}'), Buffer.from('{"n":2}'), Buffer.from('{"n":3}')];
    const first = batch.map((json) => frames.stored("MODIFIED", json));
    const second = batch.map((json) => frames.stored("MODIFIED", json));
    assert.ok(
      first.every((frame, i) => frame === second[i]),
      "the second watcher gets the first one's frames",
    );
    assert.equal(JSON.parse(second[0]!.line.toString()).object.n, 1);
  });
});

describe("storedEvents", () => {
  it("the watchers of one commit's batch get the same event objects, in order, each once", async () => {
    const { store } = gadgets();
    const from = String(await store.storage.currentRevision());
    const seen: ApiWatchEvent[][] = [[], []];
    const handles = await Promise.all(
      seen.map((events) =>
        watchStore(
          store,
          ctx(),
          undefined,
          { resourceVersion: from, allowWatchBookmarks: false },
          { send: (e) => events.push(e), end() {} },
          { bookmarkIntervalMs: 60_000 },
        ),
      ),
    );
    const options = defaultWriteOptions("test");
    // Issued in one turn: one group commit, one batch of two events for each watcher.
    await Promise.all([
      store.create(ctx(), undefined, gadget("a"), options),
      store.create(ctx(), undefined, gadget("b"), options),
    ]);
    await waitFor(
      "the second watch's two events",
      async () => seen[1]!.length,
      (count) => count >= 2,
    );
    for (const h of handles) h.close();
    const [one, two] = seen as [ApiWatchEvent[], ApiWatchEvent[]];
    assert.deepEqual(
      one.map((e) => [e.type, (e.object as KubeObject).metadata.name]),
      [
        ["ADDED", "a"],
        ["ADDED", "b"],
      ],
    );
    assert.ok(one.every((e) => e instanceof StoredWatchEvent));
    assert.equal(two.length, 2);
    assert.ok(
      one.every((e, i) => e === two[i]),
      "one object per event, shared by both watchers",
    );
  });
});
