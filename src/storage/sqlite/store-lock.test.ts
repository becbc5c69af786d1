import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { openSqliteStorage } from "./sqlite-storage.js";
import { acquireStoreLock, StoreInUseError } from "./store-lock.js";

describe("store lock", () => {
  const dir = mkdtempSync(join(tmpdir(), "platform-store-lock-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("is held by one owner at a time and free again once released", () => {
    const db = join(dir, "a.db");
    const first = acquireStoreLock(db);
    assert.throws(() => acquireStoreLock(db), StoreInUseError);
    first.release();
    acquireStoreLock(db).release();
  });

  it("an exclusive store owns its database until closed; a plain one does not take the lock", async () => {
    const db = join(dir, "b.db");
    const owner = openSqliteStorage(db, { exclusive: true });
    assert.throws(() => openSqliteStorage(db, { exclusive: true }), /in use by another process/);
    const reader = openSqliteStorage(db);
    await reader.close();
    await owner.close();
    const next = openSqliteStorage(db, { exclusive: true });
    await next.close();
  });
});
