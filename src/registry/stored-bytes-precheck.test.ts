import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CachedStorage } from "../storage/cache/cached-storage.js";
import type { KeyValue } from "../storage/interface.js";
import { openSqliteStorage } from "../storage/sqlite/sqlite-storage.js";
import { flakyStorage } from "../testing/flaky-storage.js";
import { gadgetKind } from "../testing/gadget-kind.js";
import { objectKey, registryPartition, resourcePrefix } from "./keys.js";
import type { ResourceType } from "./resource-type.js";
import { StoredBytesPrecheck } from "./stored-bytes-precheck.js";
import { StoredVersions } from "./stored-versions.js";

// The background check after a watch cache fill, wired as the composition root wires it
// (CachedStorage.whenFilled), over a real SQLite store holding good and damaged values: no read
// through the fast paths is made, yet every version's verdict is known once it is idle.

const rt = gadgetKind();
/** Where the verdicts are kept, as a Store keeps them (its registry's StoredVersions). */
const versions = new StoredVersions();
const store = { rt, versions };
const good = (name: string) =>
  Buffer.from(JSON.stringify({ apiVersion: "management.platform/v1", kind: "Gadget", metadata: { name }, spec: {} }));
const DAMAGED: Record<string, Buffer> = {
  truncated: Buffer.from('{"apiVersion":"management.platform/v1","kind":"Gadget","metadata":{"name":"truncated"}'),
  "another-name": good("someone-else"),
  "with-spaces": Buffer.from(
    '{ "apiVersion": "management.platform/v1", "kind": "Gadget", "metadata": { "name": "with-spaces" } }',
  ),
};

async function storeHolding(names: readonly string[]) {
  return (await flakyStoreHolding(names)).storage;
}

/** The same, and the flaky storage under the cache (its watches can be ended with an error). */
async function flakyStoreHolding(names: readonly string[]) {
  const sqlite = openSqliteStorage(":memory:");
  for (const name of names) await sqlite.create(objectKey(rt, undefined, name), good(name));
  for (const [name, value] of Object.entries(DAMAGED)) await sqlite.create(objectKey(rt, undefined, name), value);
  const flaky = flakyStorage(sqlite);
  return { flaky, storage: new CachedStorage(flaky.storage, { partition: registryPartition }) };
}

const verdicts = (items: readonly KeyValue[]) =>
  Object.fromEntries(items.map((kv) => [kv.key.slice(resourcePrefix(rt).length), versions.verdict(kv)]));

describe("StoredBytesPrecheck", () => {
  it("checks every version of a filled cache in the background, before any read asks", async () => {
    const storage = await storeHolding(["a", "b", "c"]);
    const precheck = new StoredBytesPrecheck([store]);
    storage.whenFilled(precheck.filled);
    try {
      await storage.prime([resourcePrefix(rt)]);
      const { items } = await storage.list(resourcePrefix(rt));
      await precheck.idle();
      assert.deepEqual(verdicts(items), {
        a: true,
        b: true,
        c: true,
        truncated: false,
        "another-name": false,
        "with-spaces": false,
      });
    } finally {
      await storage.close();
    }
  });

  it("is told of caches filled before it was wired too", async () => {
    const storage = await storeHolding(["a"]);
    try {
      await storage.prime([resourcePrefix(rt)]);
      const precheck = new StoredBytesPrecheck([store]);
      storage.whenFilled(precheck.filled);
      const { items } = await storage.list(resourcePrefix(rt));
      await new Promise((resolve) => setImmediate(resolve));
      await precheck.idle();
      assert.equal(verdicts(items).a, true);
      assert.equal(verdicts(items).truncated, false);
    } finally {
      await storage.close();
    }
  });

  it("leaves alone kinds whose stored bytes are not what callers see, and versions no longer current", async () => {
    const presented: ResourceType = gadgetKind({ present: (obj) => obj });
    const storage = await storeHolding(["a", "b"]);
    const precheck = new StoredBytesPrecheck([{ rt: presented, versions }]);
    storage.whenFilled(precheck.filled);
    try {
      await storage.prime([resourcePrefix(rt)]);
      const { items } = await storage.list(resourcePrefix(rt));
      await precheck.idle();
      assert.ok(
        Object.values(verdicts(items)).every((v) => v === undefined),
        "a presented kind is never checked",
      );

      const copies = items.map((kv) => ({ ...kv }));
      const replaced = copies[0]!;
      const other = new StoredBytesPrecheck([store]);
      other.filled(resourcePrefix(rt), copies, (kv) => kv !== replaced);
      await other.idle();
      assert.equal(versions.verdict(replaced), undefined, "a version replaced before its turn is skipped");
      assert.ok(copies.slice(1).every((kv) => versions.verdict(kv) !== undefined));
    } finally {
      await storage.close();
    }
  });

  it("checks the versions of a new cache made after one broke (its feed ended with an error)", async () => {
    const { flaky, storage } = await flakyStoreHolding(["a"]);
    const precheck = new StoredBytesPrecheck([store]);
    storage.whenFilled(precheck.filled);
    try {
      await storage.prime([resourcePrefix(rt)]);
      const before = (await storage.list(resourcePrefix(rt))).items;
      await precheck.idle();
      flaky.endWatch(undefined, "gadgets");
      // The next read makes a new cache: a new list, new versions, none checked by a request.
      await storage.prime([resourcePrefix(rt)]);
      const { items } = await storage.list(resourcePrefix(rt));
      assert.ok(
        items.every((kv) => !before.includes(kv)),
        "the new cache's versions are new KeyValues",
      );
      await new Promise((resolve) => setImmediate(resolve));
      await precheck.idle();
      assert.equal(verdicts(items).a, true);
      assert.equal(verdicts(items).truncated, false);
    } finally {
      await storage.close();
    }
  });
});
