import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Type } from "@sinclair/typebox";
import type { KubeObject } from "../api/object.js";
import { objectSchema } from "../api/schema/meta.js";
import { defineKind } from "../kinds/define.js";
import { CachedStorage } from "../storage/cache/cached-storage.js";
import { openSqliteStorage } from "../storage/sqlite/sqlite-storage.js";
import { createGadget, gadgetKind } from "../testing/gadget-kind.js";
import { waitFor } from "../testing/wait-for.js";
import { AdmissionChain } from "./admission.js";
import { registryPartition } from "./keys.js";
import { Registry } from "./registry.js";
import type { RequestContext } from "./request-context.js";
import { type ApiWatchEvent, watchStore } from "./store-watch.js";

// What a registry finds of the stored versions it serves is its own (stored-versions.ts): two
// registries over one storage each check and decode for themselves, even when one of them has
// already done it for the same version.

const ctx = (): RequestContext => ({
  user: { name: "alice", subjectKind: "User", groups: [], teams: [] },
  warnings: [],
});

/** Another kind stored under the gadgets' keys: the Gadgets stored there are not Widgets. */
const widgetKind = () =>
  defineKind({
    kind: "Widget",
    plural: "gadgets",
    singular: "widget",
    shortNames: [],
    namespaced: false,
    hasStatus: false,
    description: "A test kind under another kind's keys.",
    schema: objectSchema("Widget", "A test kind.", Type.Object({}), undefined),
    columns: [],
    strategy: {},
  });

function sharedStorage() {
  return new CachedStorage(openSqliteStorage(":memory:"), { partition: registryPartition });
}

describe("StoredVersions", () => {
  it("are one registry's: another registry over the same storage checks the same version for itself", async () => {
    const storage = sharedStorage();
    try {
      const gadgets = new Registry(storage, [gadgetKind()], new AdmissionChain([])).store("gadgets");
      const widgets = new Registry(storage, [widgetKind()], new AdmissionChain([])).store("gadgets");
      await createGadget(gadgets, "g");
      const key = gadgets.key(undefined, "g");
      assert.ok(Buffer.isBuffer(await gadgets.readRaw(undefined, "g")), "a Gadget, sent as stored");
      const kv = (await storage.get(key))!;
      assert.equal(gadgets.versions.verdict(kv), true);
      assert.equal(widgets.versions.verdict(kv), undefined, "nothing carried over from the other registry");
      // The same bytes are no Widget: the Widgets' registry finds so and leaves them to the decoding path.
      assert.equal(await widgets.readRaw(undefined, "g"), undefined);
      assert.equal(widgets.versions.verdict(kv), false);
      assert.equal(gadgets.versions.verdict(kv), true, "and the Gadgets' verdict stays theirs");
    } finally {
      await storage.close();
    }
  });

  it("decode for their own registry: a watcher of another registry never gets an object decoded by this one's kind", async () => {
    const storage = sharedStorage();
    const sized = (obj: KubeObject): KubeObject => ({ ...obj, spec: { size: 99 } });
    try {
      const plain = new Registry(storage, [gadgetKind()], new AdmissionChain([])).store("gadgets");
      const resized = new Registry(storage, [gadgetKind({ fromStorage: sized })], new AdmissionChain([])).store(
        "gadgets",
      );
      const from = String(await storage.currentRevision());
      const seen: Record<string, unknown[]> = { plain: [], resized: [] };
      const watch = (store: typeof plain, into: unknown[]) =>
        watchStore(
          store,
          ctx(),
          undefined,
          { resourceVersion: from, allowWatchBookmarks: false },
          // Each event's object read as it arrives: the plain one decodes it first.
          { send: (e: ApiWatchEvent) => into.push((e.object as KubeObject).spec), end() {} },
          { bookmarkIntervalMs: 60_000 },
        );
      const handles = [await watch(plain, seen.plain!), await watch(resized, seen.resized!)];
      await createGadget(plain, "g");
      await waitFor(
        "the resized watch's event",
        async () => seen.resized!.length,
        (count) => count >= 1,
      );
      for (const h of handles) h.close();
      assert.deepEqual(seen, { plain: [{}], resized: [{ size: 99 }] });
    } finally {
      await storage.close();
    }
  });
});
