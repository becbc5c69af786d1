import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { openStorage } from "./factory.js";
import { SqliteStorage } from "./sqlite/sqlite-storage.js";

test("openStorage opens SQLite from sqlite: URLs and bare paths", async () => {
  const dir = await mkdtemp(join(tmpdir(), "platform-factory-"));
  try {
    for (const url of [
      "sqlite::memory:",
      `sqlite:${join(dir, "a.sqlite")}`,
      `sqlite://${join(dir, "b.sqlite")}`,
      join(dir, "c.sqlite"),
    ]) {
      const storage = await openStorage(url);
      try {
        assert.ok(storage instanceof SqliteStorage, url);
        assert.equal(await storage.create("/k", Buffer.from("v")), 1);
      } finally {
        await storage.close();
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("openStorage refuses bad etcd URLs and unknown schemes", async () => {
  await assert.rejects(openStorage("etcd://"), /no etcd endpoints/);
  await assert.rejects(openStorage("etcd://localhost:2379?colour=red"), /unknown etcd storage option/);
  await assert.rejects(openStorage("postgres://localhost/db"), /unknown storage URL scheme/);
  await assert.rejects(openStorage("sqlite:"), /no database path/);
});
