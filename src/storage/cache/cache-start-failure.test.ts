import assert from "node:assert/strict";
import { test } from "node:test";
import { storageWith } from "../../testing/storage-with.js";
import { StorageError } from "../errors.js";
import type { ListOptions, Storage } from "../interface.js";
import { NOT_NOW } from "../interface.js";
import { openSqliteStorage } from "../sqlite/sqlite-storage.js";
import { CachedStorage, partitionBySegments } from "./cached-storage.js";

const P = "/registry/g/things/";

test("a cache whose first list failed (store unavailable) is started again on the next use", async () => {
  const inner = openSqliteStorage(":memory:");
  let failLists = 1;
  const storage = storageWith<Storage>(inner, {
    list: (prefix: string, options?: ListOptions) => {
      if (failLists > 0) {
        failLists--;
        return Promise.reject(new StorageError("Unavailable", prefix, "store down (test)"));
      }
      return inner.list(prefix, options);
    },
  });
  const cached = new CachedStorage(storage, { partition: partitionBySegments("/registry/", 2) });
  try {
    await inner.create(`${P}a`, Buffer.from('{"n":1}'));
    // The cache's list fails: this read falls back to the storage.
    assert.equal(await cached.getFromMemory(`${P}a`), NOT_NOW);
    assert.equal((await cached.get(`${P}a`))?.value.toString(), '{"n":1}');
    // The store answers again: the resource is served from memory once more.
    await cached.prime([P]);
    const read = await cached.getFromMemory(`${P}a`);
    assert.notEqual(read, NOT_NOW, "answered from memory");
    assert.equal(read === NOT_NOW ? undefined : read?.value.toString(), '{"n":1}');
    assert.equal(cached.cacheFor(P)?.size, 1);
  } finally {
    await cached.close();
  }
});
