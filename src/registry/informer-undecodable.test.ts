import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../api/object.js";
import { openSqliteStorage } from "../storage/sqlite/sqlite-storage.js";
import { gadgetKind } from "../testing/gadget-kind.js";
import { AdmissionChain } from "./admission.js";
import type { InformerEvent } from "./informer.js";
import { defaultWriteOptions } from "./options.js";
import { systemContext } from "./request-context.js";
import { SharedInformers } from "./shared-informers.js";
import { Store } from "./store.js";
import type { UndecodableObject } from "./undecodable.js";

// An informer over a real SQLite store, with values written under its keys below the registry
// (as a damaged or hand-edited store holds them).

/** Marks the bytes of every corrupt value: no report may carry it. */
const SECRET = "hunter2-secret-bytes";
const CORRUPT_VALUES = {
  truncated: `{"apiVersion":"management.platform/v1","kind":"Gadget","metadata":{"name":"x"},"spec":{"p":"${SECRET}"`,
  notJson: `not json at all ${SECRET}`,
  array: `["${SECRET}"]`,
  noName: `{"metadata":{"labels":{"k":"${SECRET}"}}}`,
};

function setup() {
  const storage = openSqliteStorage(":memory:");
  const store = new Store(gadgetKind(), { storage, admission: new AdmissionChain([]) });
  const reports: UndecodableObject[] = [];
  const informers = new SharedInformers({ store: () => store }, (r) => reports.push(r));
  const informer = informers.for("gadgets");
  const events: string[] = [];
  informer.onChange((e: InformerEvent) =>
    events.push(`${e.type} ${e.object.metadata.name}${e.type === "upsert" && e.old ? " (replaced)" : ""}`),
  );
  const gadget = (name: string, size?: number) =>
    ({
      apiVersion: "management.platform/v1",
      kind: "Gadget",
      metadata: { name },
      spec: size === undefined ? {} : { size },
    }) as KubeObject;
  const create = (name: string) => store.create(systemContext(), undefined, gadget(name), defaultWriteOptions("test"));
  const writeRaw = async (name: string, value: string) => {
    const key = store.key(undefined, name);
    const current = await storage.get(key);
    return current
      ? storage.update(key, Buffer.from(value), current.modRevision)
      : storage.create(key, Buffer.from(value));
  };
  const close = async () => {
    informers.stop();
    await storage.close();
  };
  return { storage, store, informer, reports, events, create, writeRaw, close };
}

/** A Gadget as the store holds it (what a write through the API stores). */
const gadgetValue = (name: string) => ({
  apiVersion: "management.platform/v1",
  kind: "Gadget",
  metadata: { name },
  spec: {},
});

const names = (objects: KubeObject[]) => objects.map((o) => o.metadata.name).sort();

describe("an informer skips stored values that do not decode", () => {
  it("in its first list: it syncs with the others, and reports each (key, revision, reason) without its bytes", async () => {
    const { informer, reports, create, writeRaw, close } = setup();
    try {
      await create("good-a");
      const revisions: Record<string, number> = {};
      for (const [name, value] of Object.entries(CORRUPT_VALUES)) revisions[name] = await writeRaw(name, value);
      await create("good-b");
      await informer.synced();
      assert.deepEqual(names(informer.list()), ["good-a", "good-b"]);
      assert.deepEqual(informer.names().sort(), ["good-a", "good-b"]);
      assert.deepEqual(names(informer.listWhere(() => true)), ["good-a", "good-b"]);
      assert.equal(informer.get(undefined, "truncated"), undefined);
      assert.deepEqual(
        reports.map((r) => [r.resource, r.key, r.revision, r.reason]).sort(),
        [
          [
            "gadgets",
            "/registry/management.platform/gadgets/array",
            revisions.array,
            "the stored value is not an object with metadata",
          ],
          [
            "gadgets",
            "/registry/management.platform/gadgets/noName",
            revisions.noName,
            "the stored object has no metadata.name",
          ],
          [
            "gadgets",
            "/registry/management.platform/gadgets/notJson",
            revisions.notJson,
            "the stored value is not valid JSON",
          ],
          [
            "gadgets",
            "/registry/management.platform/gadgets/truncated",
            revisions.truncated,
            "the stored value is not valid JSON",
          ],
        ].sort(),
      );
      assert.doesNotMatch(JSON.stringify(reports), new RegExp(SECRET), "a report never carries the value");
    } finally {
      await close();
    }
  });

  it("its first list decodes nothing: a value is checked, and reported once, when a consumer first reads it", async () => {
    const { informer, store, reports, create, writeRaw, close } = setup();
    try {
      for (const name of ["good-a", "good-b", "good-c"]) await create(name);
      const revision = await writeRaw("broken", CORRUPT_VALUES.truncated);
      const decoded: string[] = [];
      const decode = store.decodeForWatch.bind(store);
      store.decodeForWatch = (kv) => {
        decoded.push(kv.key.slice(kv.key.lastIndexOf("/") + 1));
        return decode(kv);
      };
      await informer.synced();
      assert.deepEqual(decoded, [], "the list parses no value");
      assert.equal(reports.length, 0);
      assert.deepEqual(informer.names().sort(), ["broken", "good-a", "good-b", "good-c"], "names() does not decode");

      assert.equal(informer.get(undefined, "good-b")?.metadata.name, "good-b");
      assert.deepEqual(decoded, ["good-b"], "only what is read is parsed");
      assert.deepEqual(names(informer.listWhere((bytes) => bytes.includes(SECRET))), []);
      assert.deepEqual(
        reports.map((r) => [r.key, r.revision, r.reason]),
        [["/registry/management.platform/gadgets/broken", revision, "the stored value is not valid JSON"]],
      );
      assert.equal(informer.get(undefined, "broken"), undefined);
      assert.deepEqual(informer.names().sort(), ["good-a", "good-b", "good-c"], "it left the copy");
      assert.deepEqual(names(informer.list()), ["good-a", "good-b", "good-c"]);
      assert.equal(reports.length, 1, "reported once");
    } finally {
      await close();
    }
  });

  it("an unread list value that does not decode is never an event's old object: an update is an upsert of a new object", async () => {
    const { informer, reports, events, create, writeRaw, storage, store, close } = setup();
    try {
      await writeRaw("gadget", CORRUPT_VALUES.noName);
      await informer.synced();
      const current = await storage.get(store.key(undefined, "gadget"));
      await storage.delete(store.key(undefined, "gadget"), current!.modRevision);
      await create("gadget");
      await writeRaw("other", CORRUPT_VALUES.array);
      await informer.sync();
      assert.deepEqual(events, ["upsert gadget"], "no delete for a value no consumer had");
      assert.deepEqual(reports.map((r) => r.key).sort(), [
        "/registry/management.platform/gadgets/gadget",
        "/registry/management.platform/gadgets/other",
      ]);
    } finally {
      await close();
    }
  });

  it("in its watch: a new key that does not decode is skipped and the events after it still arrive", async () => {
    const { informer, reports, events, create, writeRaw, close } = setup();
    try {
      await informer.synced();
      await create("before");
      const revision = await writeRaw("broken", CORRUPT_VALUES.truncated);
      await create("after");
      await informer.sync();
      assert.deepEqual(events, ["upsert before", "upsert after"]);
      assert.deepEqual(names(informer.list()), ["after", "before"]);
      assert.deepEqual(
        reports.map((r) => [r.key, r.revision]),
        [["/registry/management.platform/gadgets/broken", revision]],
      );
      assert.equal(informer.currentRevision, revision + 1, "the copy's revision passes the skipped event");
    } finally {
      await close();
    }
  });

  it("an update to a value that does not decode removes the stale copy (its consumers hear a delete); a good write brings it back", async () => {
    const { informer, reports, events, create, writeRaw, storage, store, close } = setup();
    try {
      await create("gadget");
      await informer.synced();
      assert.ok(informer.get(undefined, "gadget"));

      await writeRaw("gadget", CORRUPT_VALUES.notJson);
      await informer.sync();
      assert.deepEqual(events, ["delete gadget"], "the last good copy leaves, as a delete");
      assert.equal(informer.get(undefined, "gadget"), undefined);
      assert.deepEqual(informer.names(), []);
      assert.equal(reports.length, 1);

      // Deleting the undecodable value: nothing to tell (the copy no longer holds it), nothing thrown.
      await storage.delete(store.key(undefined, "gadget"));
      await create("gadget");
      await informer.sync();
      assert.deepEqual(events, ["delete gadget", "upsert gadget"], "back as a new object, not a replacement");
      assert.equal(informer.get(undefined, "gadget")?.metadata.name, "gadget");
      assert.equal(reports.length, 1, "each undecodable value reported once");
    } finally {
      await close();
    }
  });

  it("forgets a damaged key once it is deleted or a good value replaces it (still reported once per version)", async () => {
    const { informer, reports, create, writeRaw, storage, store, close } = setup();
    try {
      await informer.synced();
      for (const name of ["deleted", "repaired", "kept"]) await writeRaw(name, CORRUPT_VALUES.truncated);
      await informer.sync();
      assert.equal(reports.length, 3);
      assert.equal(informer.undecodableKeys, 3);

      await storage.delete(store.key(undefined, "deleted"));
      const repaired = await storage.get(store.key(undefined, "repaired"));
      await storage.delete(store.key(undefined, "repaired"), repaired!.modRevision);
      await create("repaired");
      await informer.sync();
      assert.equal(informer.undecodableKeys, 1, "only the key still damaged is remembered");

      await writeRaw("kept", CORRUPT_VALUES.notJson);
      await writeRaw("repaired", CORRUPT_VALUES.array);
      await informer.sync();
      assert.deepEqual(
        reports.slice(3).map((r) => r.key.slice(r.key.lastIndexOf("/") + 1)),
        ["kept", "repaired"],
        "a new damaged version is reported again",
      );
      assert.equal(informer.undecodableKeys, 2);
      await writeRaw("kept", JSON.stringify(gadgetValue("kept")));
      await informer.sync();
      assert.equal(informer.undecodableKeys, 1, "a good value written over a damaged one");
    } finally {
      await close();
    }
  });
});
